package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/testenv"
)

// issueExample is issue 24's example spec, as users will copy it.
const issueExample = `{"name": "ban-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"commands": [{"name": "ban", "description": "Ban someone",
           "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
                       {"type": 3, "name": "reason", "description": "Why"}]}]}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}, "staff": {"overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]},
                                                        "mods": {"allow": ["VIEW_CHANNEL"]}}}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// worldAnswer is the part of the world object the tests read.
type worldAnswer = testenv.World

func createWorld(t *testing.T, e *testenv.Env, spec string) worldAnswer {
	t.Helper()
	res := e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), spec)
	if res.Status != http.StatusCreated {
		t.Fatalf("create world: %d %s", res.Status, res.Body)
	}
	var w worldAnswer
	res.JSON(t, &w)
	return w
}

func TestWorldIssueExample(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	if w.Name != "ban-tests" || w.ID == "" {
		t.Fatalf("world = %+v", w)
	}
	alice, bob := w.Users["alice"], w.Users["bob"]
	bot := w.Apps["modbot"]
	club := w.Guilds["club"]
	for what, v := range map[string]string{"alice": alice.ID, "alice's token": alice.ClientToken, "bob": bob.ID,
		"modbot": bot.ID, "bot token": bot.BotToken, "public key": bot.PublicKey, "ban": bot.Commands["ban"],
		"club": club.ID, "mods": club.Roles["mods"], "general": club.Channels["general"], "staff": club.Channels["staff"]} {
		if v == "" {
			t.Errorf("%s missing from %+v", what, w)
		}
	}

	// The bot's token works and sees its command, its guild and its roles.
	res := e.Do("GET", "/api/v10/applications/"+bot.ID+"/commands", "Bot "+bot.BotToken, nil)
	if res.Status != 200 || !strings.Contains(string(res.Body), `"name":"ban"`) || !strings.Contains(string(res.Body), bot.Commands["ban"]) {
		t.Fatalf("commands: %d %s", res.Status, res.Body)
	}
	res = e.Do("GET", "/api/v10/guilds/"+club.ID+"/roles", "Bot "+bot.BotToken, nil)
	if res.Status != 200 || !strings.Contains(string(res.Body), `"name":"mods"`) ||
		!strings.Contains(string(res.Body), `"position":1,"permissions":"4"`) {
		t.Fatalf("roles: %d %s", res.Status, res.Body)
	}
	// Alice's client token is alice's (a chat client's credential).
	if id, err := e.Store.ClientTokenUser(context.Background(), auth.Hash(alice.ClientToken)); err != nil || id.String() != alice.ID {
		t.Fatalf("alice's client token: %v, %v; want %s", id, err, alice.ID)
	}

	// By id and by name; listed.
	for _, ref := range []string{w.ID, "ban-tests"} {
		res := e.Do("GET", "/admin/v1/worlds/"+ref, e.AdminAuth(), nil)
		var got worldAnswer
		if res.Status != 200 {
			t.Fatalf("GET %s: %d %s", ref, res.Status, res.Body)
		}
		res.JSON(t, &got)
		if got.ID != w.ID || got.Apps["modbot"].BotToken != bot.BotToken || got.Users["alice"].ClientToken != alice.ClientToken {
			t.Fatalf("GET %s = %+v, want %+v", ref, got, w)
		}
	}
	res = e.Do("GET", "/admin/v1/worlds", e.AdminAuth(), nil)
	var all []worldAnswer
	res.JSON(t, &all)
	if len(all) != 1 || all[0].ID != w.ID {
		t.Fatalf("list = %s", res.Body)
	}

	// A name is taken once.
	res = e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), issueExample)
	wantFormError(t, res, "name", "WORLD_NAME_TAKEN")
}

// wantFormError checks a 400 50035 with code at the dotted path.
func wantFormError(t *testing.T, res testenv.Response, path, code string) {
	t.Helper()
	if res.Status != 400 {
		t.Fatalf("status %d, want 400: %s", res.Status, res.Body)
	}
	var body struct {
		Code   int            `json:"code"`
		Errors map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Code != 50035 {
		t.Fatalf("body %s, want 50035", res.Body)
	}
	var node any = body.Errors
	for _, k := range strings.Split(path, ".") {
		m, _ := node.(map[string]any)
		node = m[k]
	}
	m, _ := node.(map[string]any)
	errs, _ := m["_errors"].([]any)
	for _, e := range errs {
		if leaf, _ := e.(map[string]any); leaf["code"] == code {
			return
		}
	}
	t.Fatalf("no %s at %s in %s", code, path, res.Body)
}

func TestWorldResetAndDelete(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	bot := "Bot " + w.Apps["modbot"].BotToken
	club := w.Guilds["club"]

	// The world gains a role and a channel.
	res := e.Do("POST", "/admin/v1/guilds/"+club.ID+"/roles", e.AdminAuth(), `{"name": "later"}`)
	if res.Status != 201 {
		t.Fatalf("add role: %d %s", res.Status, res.Body)
	}
	var role struct{ ID string }
	res.JSON(t, &role)

	res = e.Do("POST", "/admin/v1/worlds/ban-tests/reset", e.AdminAuth(), nil)
	if res.Status != 200 {
		t.Fatalf("reset: %d %s", res.Status, res.Body)
	}
	var after worldAnswer
	res.JSON(t, &after)
	if after.ID != w.ID || after.Apps["modbot"].BotToken != w.Apps["modbot"].BotToken ||
		after.Guilds["club"].Roles["mods"] != club.Roles["mods"] || after.Apps["modbot"].Commands["ban"] != w.Apps["modbot"].Commands["ban"] {
		t.Fatalf("reset changed ids or credentials:\n%+v\n%+v", after, w)
	}
	res = e.Do("GET", "/admin/v1/guilds/"+club.ID+"/roles/"+role.ID, e.AdminAuth(), nil)
	if res.Status != 404 {
		t.Fatalf("a role added after creation survived the reset: %d %s", res.Status, res.Body)
	}
	// The same bot token still works.
	if res := e.Do("GET", "/api/v10/guilds/"+club.ID+"/roles", bot, nil); res.Status != 200 {
		t.Fatalf("bot after reset: %d %s", res.Status, res.Body)
	}

	res = e.Do("DELETE", "/admin/v1/worlds/"+w.ID, e.AdminAuth(), nil)
	if res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	for _, ref := range []string{w.ID, "ban-tests", "Not-A-Name", "0"} {
		res := e.Do("GET", "/admin/v1/worlds/"+ref, e.AdminAuth(), nil)
		if res.Status != 404 || !strings.Contains(string(res.Body), `"code":10000`) {
			t.Fatalf("GET %s after delete: %d %s", ref, res.Status, res.Body)
		}
	}
	if res := e.Do("GET", "/api/v10/guilds/"+club.ID+"/roles", bot, nil); res.Status != 401 {
		t.Fatalf("bot token after delete: %d %s", res.Status, res.Body)
	}
	if res := e.Do("GET", "/admin/v1/guilds/"+club.ID, e.AdminAuth(), nil); res.Status != 404 {
		t.Fatalf("guild after delete: %d %s", res.Status, res.Body)
	}
	// The name is free again.
	createWorld(t, e, issueExample)
}

func TestWorldYAMLAndErrors(t *testing.T) {
	e := testenv.New(t)
	yaml := "name: from-yaml\nusers: {alice: {}}\nguilds:\n  club: {owner: alice, roles: {mods: {permissions: [BAN_MEMBERS]}}}\n"
	req, _ := http.NewRequest("POST", e.URL+"/admin/v1/worlds", strings.NewReader(yaml))
	req.Header.Set("Authorization", e.AdminAuth())
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("YAML create: %d", resp.StatusCode)
	}
	res := e.Do("POST", "/admin/v1/worlds", e.AdminAuth(),
		strings.Replace(issueExample, `"allow": ["VIEW_CHANNEL"]`, `"allow": ["VIEW_CHANNELS"]`, 1))
	wantFormError(t, res, "guilds.club.channels.staff.overwrites.mods.allow.0", "PERMISSION_INVALID")
	res = e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), `[]`)
	if res.Status != 400 || !strings.Contains(string(res.Body), "MODEL_TYPE_CONVERT") {
		t.Fatalf("a list: %d %s", res.Status, res.Body)
	}
	if res := e.Do("GET", "/admin/v1/worlds", "", nil); res.Status != 401 {
		t.Fatalf("no admin token: %d", res.Status)
	}
	// Nothing of the refused specs was written.
	res = e.Do("GET", "/admin/v1/worlds", e.AdminAuth(), nil)
	var all []worldAnswer
	res.JSON(t, &all)
	if len(all) != 1 || all[0].Name != "from-yaml" {
		t.Fatalf("worlds = %s", res.Body)
	}
}

// A bot connected to the gateway stays connected through its world's
// reset (same token, same ids) and is told of the guild made again.
func TestWorldResetKeepsTheBotConnected(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	identify := fmt.Sprintf(`{"op":2,"d":{"token":"Bot %s","intents":1,"properties":{"os":"linux","browser":"t","device":"t"}}}`,
		w.Apps["modbot"].BotToken)
	if err := ws.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		t.Fatal(err)
	}
	waitDispatch(t, ws, "READY")
	club := w.Guilds["club"].ID
	if g := waitDispatch(t, ws, "GUILD_CREATE"); !strings.Contains(string(g), `"id":"`+club+`"`) {
		t.Fatalf("GUILD_CREATE of another guild: %s", g)
	}

	if res := e.Do("POST", "/admin/v1/worlds/ban-tests/reset", e.AdminAuth(), nil); res.Status != 200 {
		t.Fatalf("reset: %d %s", res.Status, res.Body)
	}
	// Told of the guild made again, on the same connection.
	if g := waitDispatch(t, ws, "GUILD_CREATE"); !strings.Contains(string(g), `"id":"`+club+`"`) {
		t.Fatalf("GUILD_CREATE after the reset: %s", g)
	}
	// And still served: a heartbeat is acknowledged.
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"op":1,"d":null}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("the connection after the reset: %v", err)
		}
		if strings.Contains(string(data), `"op":11`) {
			break
		}
	}
}

// TestWorldDeleteClosesItsBotsSessions: deleting a world revokes its
// bot's token on the gateway too: the connected bot is closed with 4004
// Authentication failed, and its session cannot be resumed.
func TestWorldDeleteClosesItsBotsSessions(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gatewayURL := strings.Replace(e.URL, "http", "ws", 1) + "/gateway?v=10&encoding=json"
	ws, _, err := websocket.Dial(ctx, gatewayURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	token := "Bot " + w.Apps["modbot"].BotToken
	identify := fmt.Sprintf(`{"op":2,"d":{"token":%q,"intents":1,"properties":{"os":"linux","browser":"t","device":"t"}}}`, token)
	if err := ws.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		t.Fatal(err)
	}
	var ready struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(waitDispatch(t, ws, "READY"), &ready); err != nil || ready.SessionID == "" {
		t.Fatalf("READY: %v", err)
	}

	if res := e.Do("DELETE", "/admin/v1/worlds/ban-tests", e.AdminAuth(), nil); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	for {
		_, _, err := ws.Read(ctx)
		if err == nil {
			continue
		}
		if code := websocket.CloseStatus(err); code != 4004 {
			t.Fatalf("the connection ended with %v (%d), want 4004", err, code)
		}
		break
	}
	// The session is gone with the token: a RESUME is refused.
	again, _, err := websocket.Dial(ctx, gatewayURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.CloseNow()
	resume := fmt.Sprintf(`{"op":6,"d":{"token":%q,"session_id":%q,"seq":1}}`, token, ready.SessionID)
	if err := again.Write(ctx, websocket.MessageText, []byte(resume)); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := again.Read(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code != 4004 {
				t.Fatalf("RESUME of the deleted world's session: %v, want a 4004 close", err)
			}
			break
		}
		if strings.Contains(string(data), `"RESUMED"`) {
			t.Fatalf("the deleted world's session resumed: %s", data)
		}
	}
}
