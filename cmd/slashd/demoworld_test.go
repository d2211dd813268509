package main

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// adminDo calls the admin API with creds' admin token and decodes the
// answer into out (when not nil); a status other than one of want fails.
func adminDo(t *testing.T, base string, creds map[string]string, method, path, body string, out any, want ...int) int {
	t.Helper()
	status, raw := call(t, method, base+"/admin/v1"+path, "Admin "+creds["admin_token"], body)
	ok := false
	for _, w := range want {
		ok = ok || status == w
	}
	if !ok {
		t.Fatalf("%s %s: %d %s, want %v", method, path, status, raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return status
}

// demoFlows runs, against a server and its bootstrap.json, what users
// and client libraries do with the demo without ever naming a world: a
// user created without world_id joins the demo guild, another app
// created without world_id is installed there, the owner opens a DM and
// a group DM with the new user, the bot token reads the API. It returns
// the new user's id.
func demoFlows(t *testing.T, base string, creds map[string]string) string {
	t.Helper()
	var user struct{ ID string }
	adminDo(t, base, creds, "POST", "/users", `{"username": "newbie"}`, &user, http.StatusOK, http.StatusCreated)
	adminDo(t, base, creds, "PUT", "/guilds/"+creds["guild_id"]+"/members/"+user.ID, "", nil, http.StatusOK, http.StatusCreated)
	var other struct {
		ApplicationID string `json:"application_id"`
		BotToken      string `json:"bot_token"`
	}
	adminDo(t, base, creds, "POST", "/applications", `{"name": "other"}`, &other, http.StatusOK, http.StatusCreated)
	adminDo(t, base, creds, "PUT", "/guilds/"+creds["guild_id"]+"/installations/"+other.ApplicationID,
		`{"scopes": ["applications.commands", "bot"]}`, nil, http.StatusOK, http.StatusCreated)
	adminDo(t, base, creds, "POST", "/users/"+creds["owner_user_id"]+"/channels", `{"recipient_id": "`+user.ID+`"}`, nil,
		http.StatusOK, http.StatusCreated)
	adminDo(t, base, creds, "POST", "/group-dms", `{"owner_id": "`+creds["owner_user_id"]+`", "recipient_ids": ["`+user.ID+`"]}`,
		nil, http.StatusOK, http.StatusCreated)
	for who, auth := range map[string]string{"the demo bot": "Bot " + creds["bot_token"], "the other bot": "Bot " + other.BotToken,
		"the owner's Bearer token": "Bearer " + creds["owner_bearer_token"]} {
		if status, body := call(t, "GET", base+"/api/v10/users/@me", auth, ""); status != http.StatusOK {
			t.Errorf("%s on /api/v10/users/@me: %d %s", who, status, body)
		}
	}
	// The other app's guild commands are seen by the owner in #general.
	if status, body := call(t, "POST", base+"/api/v10/applications/"+other.ApplicationID+"/guilds/"+creds["guild_id"]+"/commands",
		"Bot "+other.BotToken, `{"name": "other-ping", "description": "Pong"}`); status != http.StatusCreated {
		t.Fatalf("the other app's guild command: %d %s", status, body)
	}
	status, body := call(t, "GET", base+"/api/v10/channels/"+creds["channel_id"]+"/application-command-index", creds["owner_client_token"], "")
	if status != http.StatusOK || !strings.Contains(string(body), `"other-ping"`) {
		t.Errorf("the owner's command picker in #general: %d %s, want other-ping in it", status, body)
	}
	return user.ID
}

type worldObject struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Default bool   `json:"default"`
	Users   map[string]struct {
		ID          string `json:"id"`
		ClientToken string `json:"client_token"`
	} `json:"users"`
	Apps map[string]struct {
		ID       string `json:"id"`
		BotToken string `json:"bot_token"`
	} `json:"apps"`
	Guilds map[string]struct {
		ID       string            `json:"id"`
		Channels map[string]string `json:"channels"`
	} `json:"guilds"`
}

// TestFirstStartMakesTheDemoWorld: a first start makes the demo as the
// test world "demo", the default world, listed by GET /admin/v1/worlds
// with bootstrap.json's ids and credentials; the flows a user runs on
// bootstrap.json stay in it (a user and an app created without world_id,
// with the CLI too, and the journal records the demo bot); a reset
// removes what was made by hand and keeps every credential of
// bootstrap.json; a restart makes no second demo.
func TestFirstStartMakesTheDemoWorld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, _ := serveWith(t, dir, nil)
	creds := readCredentials(t, filepath.Join(dir, bootstrap.FileName))
	if creds["world_name"] != "demo" || creds["world_id"] == "" {
		t.Fatalf("bootstrap.json names the world %q (%q), want demo", creds["world_name"], creds["world_id"])
	}
	var ws []worldObject
	adminDo(t, p.url, creds, "GET", "/worlds", "", &ws, http.StatusOK)
	if len(ws) != 1 {
		t.Fatalf("worlds: %+v, want the demo alone", ws)
	}
	w := ws[0]
	if w.Name != "demo" || w.ID != creds["world_id"] || !w.Default || w.Apps["demo"].ID != creds["application_id"] ||
		w.Apps["demo"].BotToken != creds["bot_token"] || w.Users["owner"].ID != creds["owner_user_id"] ||
		w.Users["owner"].ClientToken != creds["owner_client_token"] || w.Guilds["demo"].ID != creds["guild_id"] ||
		w.Guilds["demo"].Channels["general"] != creds["channel_id"] {
		t.Fatalf("the demo world %+v does not hold bootstrap.json's objects %v", w, creds)
	}

	newbie := demoFlows(t, p.url, creds)
	// The CLI beside the server: a user it creates joins the demo guild.
	cliUser := strOf(runJSON(t, dir, "user", "create", "--name", "cliuser"), "id")
	runJSON(t, dir, "member", "add", "--guild", creds["guild_id"], "--user", cliUser)
	// world_id "0" still makes an object of no world, which the demo
	// guild refuses.
	var loner struct{ ID string }
	adminDo(t, p.url, creds, "POST", "/users", `{"username": "loner", "world_id": "0"}`, &loner, http.StatusOK, http.StatusCreated)
	status, body := call(t, "PUT", p.url+"/admin/v1/guilds/"+creds["guild_id"]+"/members/"+loner.ID, "Admin "+creds["admin_token"], "")
	if status != http.StatusBadRequest || !strings.Contains(string(body), "WORLD_MISMATCH") {
		t.Errorf("a user of no world in the demo guild: %d %s, want WORLD_MISMATCH", status, body)
	}
	// The demo world's journal has the demo bot's calls.
	var events struct {
		Events []struct {
			Type  string `json:"type"`
			Route string `json:"route"`
		} `json:"events"`
	}
	adminDo(t, p.url, creds, "GET", "/worlds/demo/events?type=rest.request&wait=10s", "", &events, http.StatusOK)
	if len(events.Events) == 0 {
		t.Error("the demo world's journal has no REST request")
	}

	// A reset: what was made by hand goes, bootstrap.json still works.
	adminDo(t, p.url, creds, "POST", "/worlds/demo/reset", "", nil, http.StatusOK)
	for _, id := range []string{newbie, cliUser} {
		if status, body := call(t, "GET", p.url+"/admin/v1/users/"+id, "Admin "+creds["admin_token"], ""); status != http.StatusNotFound {
			t.Errorf("user %s made by hand after the reset: %d %s, want 404", id, status, body)
		}
	}
	if status, _ := call(t, "GET", p.url+"/admin/v1/users/"+loner.ID, "Admin "+creds["admin_token"], ""); status != http.StatusOK {
		t.Errorf("the user of no world after the demo's reset: %d, want it kept", status)
	}
	checkDemoChannel(t, p.url, creds)
	demoFlows(t, p.url, creds)
	p.kill()

	// A restart: the same one demo world, bootstrap.json kept.
	p, _ = serveWith(t, dir, nil)
	again := readCredentials(t, filepath.Join(dir, bootstrap.FileName))
	for k, v := range creds {
		if k != "base_url" && again[k] != v {
			t.Errorf("a restart changed bootstrap.json's %s: %q, was %q", k, again[k], v)
		}
	}
	adminDo(t, p.url, creds, "GET", "/worlds", "", &ws, http.StatusOK)
	if len(ws) != 1 || ws[0].ID != w.ID || !ws[0].Default {
		t.Fatalf("worlds after a restart: %+v, want the one demo world", ws)
	}
	if status, body := call(t, "GET", p.url+"/api/v10/users/@me", "Bot "+creds["bot_token"], ""); status != http.StatusOK {
		t.Errorf("the demo bot after a restart: %d %s", status, body)
	}
}

// TestPreChangeDataDirKeepsWorldZero: a data directory whose first start
// predates the demo world (its demo in world 0, no world) is not moved:
// it has no world, no default world, and the flows on its bootstrap.json
// work as before, in world 0.
func TestPreChangeDataDirKeepsWorldZero(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	// What a first start made before: the demo app in no world, its
	// #general and the owner's client token, an admin token.
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, sqliteFile))
	if err != nil {
		t.Fatal(err)
	}
	env := bootstrap.Env{Store: st, IDs: snowflake.NewGenerator(0, nil), Rand: rand.Reader, Now: time.Now}
	old, err := bootstrap.CreateApp(t.Context(), env, bootstrap.AppOptions{Name: "demo", GuildName: "demo guild", BaseURL: "http://127.0.0.1:1"})
	if err == nil {
		_, err = bootstrap.Furnish(t.Context(), env, &old)
	}
	if err == nil {
		old.AdminToken, err = bootstrap.CreateAdminToken(t.Context(), env)
	}
	if err == nil {
		err = bootstrap.WriteFile(dir, old)
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, bootstrap.FileName))

	p, _ := serveWith(t, dir, nil)
	creds := readCredentials(t, filepath.Join(dir, bootstrap.FileName))
	if _, ok := creds["world_id"]; ok {
		t.Errorf("bootstrap.json of a data directory from before gained a world: %v", creds)
	}
	var ws []worldObject
	adminDo(t, p.url, creds, "GET", "/worlds", "", &ws, http.StatusOK)
	if len(ws) != 0 {
		t.Fatalf("worlds of a data directory from before: %+v, want none", ws)
	}
	demoFlows(t, p.url, creds)
	cliUser := strOf(runJSON(t, dir, "user", "create", "--name", "cliuser"), "id")
	runJSON(t, dir, "member", "add", "--guild", creds["guild_id"], "--user", cliUser)
	var after map[string]string
	raw, _ := os.ReadFile(filepath.Join(dir, bootstrap.FileName))
	var was map[string]string
	if json.Unmarshal(raw, &after) != nil || json.Unmarshal(before, &was) != nil {
		t.Fatal("bootstrap.json is not JSON")
	}
	after["base_url"] = was["base_url"]
	if len(after) != len(was) {
		t.Errorf("bootstrap.json changed:\n%s\nwas\n%s", raw, before)
	}
}

// TestWorldFileNamedDemo: on a first start with a --world file named
// "demo", that world is the file's; the demo is then made in no world,
// as before, and the default world is world 0.
func TestWorldFileNamedDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(spec, []byte(strings.Replace(worldJSON, `"ban-tests"`, `"demo"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := serveWith(t, dir, nil, "--world", spec)
	creds := readCredentials(t, filepath.Join(dir, bootstrap.FileName))
	if _, ok := creds["world_id"]; ok {
		t.Errorf("bootstrap.json names a world: %v", creds)
	}
	var ws []worldObject
	adminDo(t, p.url, creds, "GET", "/worlds", "", &ws, http.StatusOK)
	if len(ws) != 1 || ws[0].Name != "demo" || ws[0].Default || ws[0].Apps["modbot"].ID == "" {
		t.Fatalf("worlds: %+v, want the file's world demo alone, not the default", ws)
	}
	demoFlows(t, p.url, creds)
}
