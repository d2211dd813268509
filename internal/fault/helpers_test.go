package fault_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// worldSpec is a small world: modbot installed in club, where alice is a
// member of #general, with one command.
const worldSpec = `{"name": %q,
 "users": {"alice": {}},
 "apps": {"modbot": {"commands": [{"name": "ping", "description": "Ping"}]}},
 "guilds": {"club": {"owner": "alice", "channels": {"general": {}},
   "members": {"alice": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// testWorld is what the tests read of a world object.
type testWorld struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Users map[string]struct {
		ID          string `json:"id"`
		ClientToken string `json:"client_token"`
	} `json:"users"`
	Apps map[string]struct {
		ID       string            `json:"id"`
		BotToken string            `json:"bot_token"`
		Commands map[string]string `json:"commands"`
	} `json:"apps"`
	Guilds map[string]struct {
		ID       string            `json:"id"`
		Channels map[string]string `json:"channels"`
	} `json:"guilds"`
}

func (w testWorld) bot() string   { return "Bot " + w.Apps["modbot"].BotToken }
func (w testWorld) appID() string { return w.Apps["modbot"].ID }

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
