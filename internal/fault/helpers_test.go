package fault_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// worldSpec is testenv.SmallWorldSpec.
const worldSpec = testenv.SmallWorldSpec

// testWorld is what the tests read of a world object.
type testWorld = testenv.World

func newWorld(t testing.TB, e *testenv.Env, name string) testWorld {
	t.Helper()
	spec := []byte(sprintf(worldSpec, name))
	res := e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), json.RawMessage(spec))
	if res.Status != http.StatusCreated {
		t.Fatalf("create world: %d %s", res.Status, res.Body)
	}
	var w testWorld
	res.JSON(t, &w)
	return w
}

// faultView is a fault as the admin API answers it.
type faultView struct {
	ID          string          `json:"id"`
	WorldID     string          `json:"world_id"`
	Kind        string          `json:"kind"`
	AppID       string          `json:"app_id"`
	Route       string          `json:"route"`
	Count       int64           `json:"count"`
	Remaining   *int64          `json:"remaining"`
	Probability float64         `json:"probability"`
	Seed        *int64          `json:"seed"`
	Matched     int64           `json:"matched"`
	Fired       int64           `json:"fired"`
	Params      json.RawMessage `json:"params"`
}

func addFault(t testing.TB, e *testenv.Env, w testWorld, body map[string]any) faultView {
	t.Helper()
	res := e.Do("POST", "/admin/v1/worlds/"+w.Name+"/faults", e.AdminAuth(), body)
	if res.Status != http.StatusCreated {
		t.Fatalf("add fault %v: %d %s", body, res.Status, res.Body)
	}
	var f faultView
	res.JSON(t, &f)
	return f
}

func listFaults(t *testing.T, e *testenv.Env, w testWorld) []faultView {
	t.Helper()
	res := e.Do("GET", "/admin/v1/worlds/"+w.ID+"/faults", e.AdminAuth(), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list faults: %d %s", res.Status, res.Body)
	}
	var fs []faultView
	res.JSON(t, &fs)
	return fs
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
