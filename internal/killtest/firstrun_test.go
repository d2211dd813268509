package killtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/store/postgres/pgtest"
)

// TestSimultaneousFirstStart: the nodes of a new cluster started together
// on an empty store (docker compose up, a deployment with three replicas)
// bootstrap one demo app between them, not one each.
func TestSimultaneousFirstStart(t *testing.T) {
	dsn := pgtest.DSN(t)
	bin := slashdBinary(t)
	nodes := newCluster(t, bin, nodeCount, true, "--store", pgtest.WithParam(t, dsn, "pool_max_conns", "4"), "--ratelimit=false")
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	for i, n := range nodes {
		wg.Go(func() { errs[i] = n.start() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var wrote []int
	for _, n := range nodes {
		if _, err := os.Stat(filepath.Join(n.dataDir, "bootstrap.json")); err == nil {
			wrote = append(wrote, n.index)
		}
	}
	if apps := countApplications(t, dsn); apps != 1 || len(wrote) != 1 {
		t.Fatalf("%d nodes started together on an empty store made %d demo applications (nodes %v wrote bootstrap.json), want 1",
			len(nodes), apps, wrote)
	}
	// Every node agrees on the one demo world, the default world: a
	// user created through any of them without world_id joins the demo
	// guild.
	creds, err := readCredentials(nodes[wrote[0]].dataDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		var ws []struct {
			Name    string `json:"name"`
			Default bool   `json:"default"`
		}
		adminCall(t, n.URL(), creds.AdminToken, "GET", "/worlds", "", &ws)
		if len(ws) != 1 || ws[0].Name != "demo" || !ws[0].Default {
			t.Errorf("node %d lists the worlds %+v, want the demo world alone, the default", n.index, ws)
		}
		var u struct{ ID string }
		adminCall(t, n.URL(), creds.AdminToken, "POST", "/users", fmt.Sprintf(`{"username": "user%d"}`, n.index), &u)
		adminCall(t, n.URL(), creds.AdminToken, "PUT", "/guilds/"+creds.GuildID+"/members/"+u.ID, "", nil)
	}
}

// adminCall calls a node's admin API and decodes a 2xx answer into out.
func adminCall(t *testing.T, base, token, method, path, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(method, base+"/admin/v1"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Admin "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s on %s: %d %s", method, path, base, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
}

// TestFirstRunWithoutDataDir: a first run that cannot write bootstrap.json
// must not leave an application in the store, or no later run would
// bootstrap again and its bot and admin tokens (stored only as hashes)
// would be lost. With --store, a data directory that does not exist yet
// is such a case (with SQLite, serve makes it).
func TestFirstRunWithoutDataDir(t *testing.T) {
	dsn := pgtest.DSN(t)
	bin := slashdBinary(t)
	nodes := newCluster(t, bin, 1, false, "--store", pgtest.WithParam(t, dsn, "pool_max_conns", "4"), "--ratelimit=false")
	n := nodes[0]
	err := n.start()
	if err == nil {
		if _, err := readCredentials(n.dataDir); err != nil {
			t.Errorf("node started without writing its credentials: %v", err)
		}
		return
	}
	apps := countApplications(t, dsn)
	if apps != 0 {
		t.Errorf("serve --data %s (missing) --store …: %v (%s); the store now holds %d application(s) whose credentials "+
			"were never written, and a restart will not bootstrap again", n.dataDir, err, lastLine(n.logs()), apps)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
