package api_test

// HTTP tests of the identity routes a bot reads at start: GET /users/@me,
// /applications/@me and /oauth2/applications/@me, under every API prefix,
// with their success and error answers.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

var apiPrefixes = []string{"/api/v10", "/api/v9", "/api"}

// userJSON is the whole user object slashd renders for an account:
// UserResponse's required fields and the real service's nulls.
func userJSON(id, username string, globalName any, bot bool) jsonObj {
	u := jsonObj{"id": id, "username": username, "avatar": nil, "discriminator": "0", "public_flags": 0,
		"flags": 0, "banner": nil, "accent_color": nil, "global_name": globalName, "avatar_decoration_data": nil,
		"collectibles": nil, "display_name_styles": nil, "clan": nil, "primary_guild": nil}
	if bot {
		u["bot"] = true
	}
	return u
}

func mustMarshalJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCurrentUser(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	alice := w.user("alice", "global_name", "Alice", "locale", "fr")
	bot := with(userJSON(e.App.ApplicationID, "testapp", nil, true),
		"mfa_enabled", false, "locale", "en-US", "premium_type", 0, "email", nil, "verified", true)
	person := with(userJSON(alice, "alice", "Alice", false), "mfa_enabled", false, "locale", "fr", "premium_type", 0)
	owner := with(userJSON(e.App.OwnerUserID, "owner", "testapp owner", false),
		"mfa_enabled", false, "locale", "en-US", "premium_type", 0)
	cases := []struct {
		name string
		auth string
		want jsonObj
	}{
		{"bot token: the bot user", e.Bot(), bot},
		{"Bearer with identify", w.bearer(alice, e.App.ApplicationID, "identify"), person},
		{"Bearer with identify and email", w.bearer(alice, e.App.ApplicationID, "identify email"),
			with(person, "email", nil, "verified", false)},
		{"client credentials with identify: the owner", clientCredentials(t, e, e.App, "identify"), owner},
	}
	for _, prefix := range apiPrefixes {
		for _, c := range cases {
			r := mustDo(t, e, "GET", prefix+"/users/@me", c.auth, nil, http.StatusOK)
			t.Run(prefix+" "+c.name, func(t *testing.T) { wantJSON(t, r.Body, mustMarshalJSON(t, c.want)) })
		}
	}

	refusals := []struct{ name, auth string }{
		{"no token", ""},
		{"unknown bot token", "Bot " + e.App.BotToken + "x"},
		{"unknown Bearer token", "Bearer nope"},
		{"Bearer without identify", w.bearer(alice, e.App.ApplicationID, "applications.commands.permissions.update")},
		{"Bearer with email only", w.bearer(alice, e.App.ApplicationID, "email")},
	}
	for _, c := range refusals {
		wantError(t, mustDo(t, e, "GET", "/api/v10/users/@me", c.auth, nil, -1), http.StatusUnauthorized, bodyUnauthorized)
	}
	// The user deleted under a live token: its token answers 401.
	gone := w.bearer(w.user("gone"), e.App.ApplicationID, "identify")
	r := mustDo(t, e, "GET", "/api/v10/users/@me", gone, nil, http.StatusOK)
	adminDo(t, e, "DELETE", "/users/"+str(decodeObj(t, r), "id"), nil, http.StatusNoContent)
	wantError(t, mustDo(t, e, "GET", "/api/v10/users/@me", gone, nil, -1), http.StatusUnauthorized, bodyUnauthorized)
}

func TestCurrentApplication(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx := context.Background()
	appID := mustID(t, e.App.ApplicationID)
	e.SetOAuth(appID, false, "https://app.example/callback", "http://127.0.0.1/cb")
	if err := e.API.Store().SetInteractionsEndpoint(ctx, appID, "https://app.example/interactions"); err != nil {
		t.Fatal(err)
	}
	// EMBEDDED (1<<17) and a bit above 31, which only flags_new carries.
	if err := e.API.Store().SetApplicationFlags(ctx, appID, 1<<17|1<<33); err != nil {
		t.Fatal(err)
	}
	// One user installs the app to their account (a grant, and the
	// installation it made); the bootstrap installed it in one guild.
	alice := e.NewUser("alice", "")
	grant := store.Grant{ID: 777, ApplicationID: appID, UserID: alice.ID, Scopes: []string{"applications.commands", "identify"}}
	if _, err := e.OAuth.IssueCode(ctx, grant, "", "", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.InstallForUser(ctx, store.UserInstallation{UserID: alice.ID, ApplicationID: appID,
		Scopes: []string{"applications.commands"}, GrantID: grant.ID}); err != nil {
		t.Fatal(err)
	}
	want := jsonObj{
		"id": e.App.ApplicationID, "name": "testapp", "icon": nil, "description": "", "type": nil,
		"bot": userJSON(e.App.ApplicationID, "testapp", nil, true), "hook": true, "bot_public": true,
		"bot_require_code_grant": false, "verify_key": e.App.PublicKey,
		"flags": 1 << 17, "flags_new": fmt.Sprint(uint64(1<<17 | 1<<33)),
		"redirect_uris":             []string{"https://app.example/callback", "http://127.0.0.1/cb"},
		"interactions_endpoint_url": "https://app.example/interactions", "role_connections_verification_url": nil,
		"event_webhooks_url": nil, "event_webhooks_status": 1,
		"owner": userJSON(e.App.OwnerUserID, "owner", "testapp owner", false), "team": nil,
		"approximate_guild_count": 1, "approximate_user_install_count": 1, "approximate_user_authorization_count": 1,
		"explicit_content_filter": 0, "eligible_oauth2_scopes": []string{},
		"integration_types_config": jsonObj{"0": jsonObj{}, "1": jsonObj{}},
	}
	for _, prefix := range apiPrefixes {
		for _, path := range []string{"/applications/@me", "/oauth2/applications/@me"} {
			r := mustDo(t, e, "GET", prefix+path, e.Bot(), nil, http.StatusOK)
			t.Run(prefix+path, func(t *testing.T) { wantJSON(t, r.Body, mustMarshalJSON(t, want)) })
		}
	}

	// Without an interactions endpoint it is null.
	if err := e.API.Store().SetInteractionsEndpoint(ctx, appID, ""); err != nil {
		t.Fatal(err)
	}
	got := decodeObj(t, mustDo(t, e, "GET", "/api/v10/applications/@me", e.Bot(), nil, http.StatusOK))
	if v, ok := got["interactions_endpoint_url"]; !ok || v != nil {
		t.Errorf("interactions_endpoint_url without an endpoint: %v (present %v), want null", v, ok)
	}

	// Bot tokens only: Bearer tokens (even the owner's) and no token get
	// the real service's 401.
	for _, path := range []string{"/applications/@me", "/oauth2/applications/@me"} {
		for _, auth := range []string{"", e.Owner(), clientCredentials(t, e, e.App, "identify"), "Bot nope"} {
			wantError(t, mustDo(t, e, "GET", "/api/v10"+path, auth, nil, -1), http.StatusUnauthorized, bodyUnauthorized)
		}
	}
}

// TestGatewayUserObjects: READY's user is the bot's own account, exactly
// as GET /users/@me renders it, and GUILD_CREATE's member carries the
// whole user object.
func TestGatewayUserObjects(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	type frame struct {
		Op int             `json:"op"`
		T  string          `json:"t"`
		D  json.RawMessage `json:"d"`
	}
	read := func(want string) json.RawMessage {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", want, err)
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil || (want != "HELLO" && f.T != want) {
			t.Fatalf("got %s, want %s (%v)", b, want, err)
		}
		return f.D
	}
	read("HELLO")
	identify, _ := json.Marshal(jsonObj{"op": 2, "d": jsonObj{"token": e.App.BotToken, "intents": 1,
		"properties": jsonObj{"os": "linux", "browser": "test", "device": "test"}}})
	if err := ws.Write(ctx, websocket.MessageText, identify); err != nil {
		t.Fatal(err)
	}
	var ready struct{ User json.RawMessage }
	if err := json.Unmarshal(read("READY"), &ready); err != nil {
		t.Fatal(err)
	}
	me := mustDo(t, e, "GET", "/api/v10/users/@me", e.Bot(), nil, http.StatusOK)
	wantJSON(t, ready.User, string(me.Body))

	var create struct {
		Members []json.RawMessage
	}
	if err := json.Unmarshal(read("GUILD_CREATE"), &create); err != nil || len(create.Members) != 1 {
		t.Fatalf("GUILD_CREATE members: %s (%v)", create.Members, err)
	}
	// The member is GuildMemberResponse, without the permissions only an
	// interaction's member carries.
	if errs := conform(sGuildMember, create.Members[0]); len(errs) > 0 {
		t.Fatalf("GUILD_CREATE member %s: %v", create.Members[0], errs)
	}
	var member map[string]json.RawMessage
	if err := json.Unmarshal(create.Members[0], &member); err != nil {
		t.Fatal(err)
	}
	if p, ok := member["permissions"]; ok {
		t.Fatalf("GUILD_CREATE member carries permissions %s", p)
	}
	wantJSON(t, member["user"], mustMarshalJSON(t, userJSON(e.App.ApplicationID, "testapp", nil, true)))
}

// TestGetUser: GET /users/{user_id} serves any user's public object to a
// bot or a user's client token, and refuses what the real service refuses.
func TestGetUser(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	alice := w.user("alice", "global_name", "Alice", "locale", "fr")
	bob := w.user("bob")
	for _, prefix := range apiPrefixes {
		cases := []struct{ name, auth, id, want string }{
			{"bot reads a user", e.Bot(), alice, mustMarshalJSON(t, userJSON(alice, "alice", "Alice", false))},
			{"bot reads itself", e.Bot(), e.App.ApplicationID, mustMarshalJSON(t, userJSON(e.App.ApplicationID, "testapp", nil, true))},
			{"user reads another user", w.client(bob), alice, mustMarshalJSON(t, userJSON(alice, "alice", "Alice", false))},
		}
		for _, c := range cases {
			r := mustDo(t, e, "GET", prefix+"/users/"+c.id, c.auth, nil, http.StatusOK)
			t.Run(prefix+" "+c.name, func(t *testing.T) { wantJSON(t, r.Body, c.want) })
		}
	}
	wantError(t, mustDo(t, e, "GET", "/api/v10/users/123456789012345678", e.Bot(), nil, -1),
		http.StatusNotFound, `{"message":"Unknown User","code":10013}`)
	wantError(t, mustDo(t, e, "GET", "/api/v10/users/nope", e.Bot(), nil, -1), http.StatusBadRequest,
		`{"code":50035,"message":"Invalid Form Body","errors":{"user_id":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"nope\" is not snowflake."}]}}}`)
	for _, auth := range []string{"", "Bot nope", w.bearer(alice, e.App.ApplicationID, "identify")} {
		wantError(t, mustDo(t, e, "GET", "/api/v10/users/"+alice, auth, nil, -1), http.StatusUnauthorized, bodyUnauthorized)
	}
}
