package api_test

// HTTP tests of the admin API (/admin/v1): authentication, users, tokens
// and applications. The guild world (guilds, roles, members, channels,
// installations) is in admin_world_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
)

// ---- helpers ----

// adminDo sends an admin request with the admin token and checks the
// status (any when negative) and that the answer is JSON.
func adminDo(t testing.TB, e *testenv.Env, method, path string, body any, status int) testenv.Response {
	t.Helper()
	r := mustDo(t, e, method, "/admin/v1"+path, e.AdminAuth(), body, status)
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && r.Status != 204 {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	return r
}

// adminObj is adminDo decoding an object.
func adminObj(t testing.TB, e *testenv.Env, method, path string, body any, status int) jsonObj {
	t.Helper()
	return decodeObj(t, adminDo(t, e, method, path, body, status))
}

// adminList is a GET of a list.
func adminList(t testing.TB, e *testenv.Env, path string) []jsonObj {
	t.Helper()
	return decodeList(t, adminDo(t, e, "GET", path, nil, 200))
}

// adminNewUser creates a user through the admin API and returns its id.
func adminNewUser(t testing.TB, e *testenv.Env, name string) string {
	t.Helper()
	return str(adminObj(t, e, "POST", "/users", jsonObj{"username": name}, 201), "id")
}

// adminNewGuild creates a guild owned by owner and returns its id.
func adminNewGuild(t testing.TB, e *testenv.Env, name, owner string) string {
	t.Helper()
	return str(adminObj(t, e, "POST", "/guilds", jsonObj{"name": name, "owner_id": owner}, 201), "id")
}

func ids(l []jsonObj, key string) []string {
	out := make([]string, len(l))
	for i, o := range l {
		out[i] = str(o, key)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func mustMarshalString(v any) string { return string(mustMarshal(v)) }

// ---- authentication ----

// adminRoutes lists one request per admin route (ids need not exist:
// authentication comes first).
func adminRoutes() []endpoint {
	const id = "1234567890123456789"
	g := "/admin/v1/guilds/" + id
	return []endpoint{
		{"POST", "/admin/v1/users", jsonObj{"username": "x"}},
		{"GET", "/admin/v1/users", nil},
		{"GET", "/admin/v1/users/" + id, nil},
		{"PATCH", "/admin/v1/users/" + id, jsonObj{}},
		{"DELETE", "/admin/v1/users/" + id, nil},
		{"POST", "/admin/v1/users/" + id + "/tokens", jsonObj{"type": "client"}},
		{"PUT", "/admin/v1/users/" + id + "/login", jsonObj{"name": "x", "password": "password1"}},
		{"PUT", "/admin/v1/users/" + id + "/installations/" + id, nil},
		{"GET", "/admin/v1/users/" + id + "/installations", nil},
		{"GET", "/admin/v1/users/" + id + "/installations/" + id, nil},
		{"DELETE", "/admin/v1/users/" + id + "/installations/" + id, nil},
		{"GET", "/admin/v1/users/" + id + "/channels", nil},
		{"POST", "/admin/v1/users/" + id + "/channels", jsonObj{"recipient_id": id}},
		{"POST", "/admin/v1/group-dms", jsonObj{"owner_id": id}},
		{"GET", "/admin/v1/group-dms/" + id, nil},
		{"DELETE", "/admin/v1/group-dms/" + id, nil},
		{"POST", "/admin/v1/applications", jsonObj{"name": "xx"}},
		{"GET", "/admin/v1/applications", nil},
		{"GET", "/admin/v1/applications/" + id, nil},
		{"GET", "/admin/v1/applications/" + id + "/oauth", nil},
		{"PUT", "/admin/v1/applications/" + id + "/oauth", jsonObj{}},
		{"POST", "/admin/v1/guilds", jsonObj{"name": "xx", "owner_id": id}},
		{"GET", "/admin/v1/guilds", nil},
		{"GET", g, nil},
		{"PATCH", g, jsonObj{}},
		{"DELETE", g, nil},
		{"POST", g + "/roles", jsonObj{"name": "x"}},
		{"GET", g + "/roles", nil},
		{"GET", g + "/roles/" + id, nil},
		{"PATCH", g + "/roles/" + id, jsonObj{}},
		{"DELETE", g + "/roles/" + id, nil},
		{"PUT", g + "/members/" + id, jsonObj{}},
		{"GET", g + "/members", nil},
		{"GET", g + "/members/" + id, nil},
		{"DELETE", g + "/members/" + id, nil},
		{"POST", g + "/channels", jsonObj{"name": "x"}},
		{"GET", g + "/channels", nil},
		{"GET", g + "/channels/" + id, nil},
		{"PATCH", g + "/channels/" + id, jsonObj{}},
		{"DELETE", g + "/channels/" + id, nil},
		{"PUT", g + "/installations/" + id, jsonObj{"scopes": []string{"bot"}}},
		{"GET", g + "/installations", nil},
		{"DELETE", g + "/installations/" + id, nil},
	}
}

func TestAdminUnauthorized(t *testing.T) {
	t.Parallel()
	// Some 450 401s from one address: more than the authentication
	// failure budget (abuse_test.go tests it), which is off here.
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{} })
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	cases := map[string]string{
		"none":                 "",
		"scheme only":          "Admin",
		"scheme and spaces":    "Admin   ",
		"wrong token":          "Admin " + strings.Repeat("a", 43),
		"bare admin token":     e.Admin,
		"bot scheme":           "Bot " + e.Admin,
		"bearer scheme":        "Bearer " + e.Admin,
		"bot token":            e.Bot(),
		"owner bearer":         e.Owner(),
		"another app's bot":    "Bot " + other.BotToken,
		"bot token as admin":   "Admin " + e.App.BotToken,
		"bearer as admin":      "Admin " + e.App.OwnerBearerToken,
		"client secret":        "Admin " + e.App.ClientSecret,
		"basic":                "Basic " + e.Admin,
		"admin token suffixed": "Admin " + e.Admin + "x",
	}
	for name, authz := range cases {
		t.Run(name, func(t *testing.T) {
			for _, ep := range adminRoutes() {
				r := mustDo(t, e, ep.method, ep.path, authz, ep.body, -1)
				wantError(t, r, 401, bodyUnauthorized)
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Fatalf("%s: Content-Type %q", ep, ct)
				}
			}
		})
	}
	// The scheme is case-insensitive; the token works on every route.
	for _, scheme := range []string{"Admin", "admin", "ADMIN"} {
		adminUsers := mustDo(t, e, "GET", "/admin/v1/users", scheme+" "+e.Admin, nil, 200)
		wantStatus(t, adminUsers, 200)
	}
	for _, ep := range adminRoutes() {
		r := mustDo(t, e, ep.method, ep.path, e.AdminAuth(), ep.body, -1)
		if r.Status == 401 {
			t.Fatalf("%s with the admin token: %s", ep, describe(r))
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%s: Content-Type %q", ep, ct)
		}
	}
	// An admin token is not an API token.
	p := v10(e)
	for _, authz := range []string{e.AdminAuth(), "Bot " + e.Admin, "Bearer " + e.Admin} {
		wantError(t, mustDo(t, e, "GET", p.guildCmds(), authz, nil, 401), 401, bodyUnauthorized)
	}
	// Unknown admin paths and methods are the API's 404 and 405.
	wantError(t, mustDo(t, e, "GET", "/admin/v1/nothing", e.AdminAuth(), nil, 404), 404, bodyNotFound)
	r := mustDo(t, e, "PUT", "/admin/v1/users", e.AdminAuth(), jsonObj{}, 405)
	wantError(t, r, 405, bodyMethod)
	if allow := r.Header.Get("Allow"); allow != "GET, POST" {
		t.Fatalf("Allow: %q", allow)
	}
}

// TestAdminNotRateLimited: the admin API has no rate limit headers and
// no limit, even on a rate limited server.
func TestAdminNotRateLimited(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, testenv.WithRateLimit(nil))
	for i := 0; i < 80; i++ {
		r := adminDo(t, e, "GET", "/users", nil, 200)
		if h := r.Header.Get("X-RateLimit-Limit"); h != "" {
			t.Fatalf("rate limit header on admin: %q", h)
		}
	}
}

func TestAdminMalformedBodies(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	user := adminNewUser(t, e, "u")
	guild := adminNewGuild(t, e, "gg", user)
	writes := []endpoint{
		{"POST", "/admin/v1/users", nil},
		{"PATCH", "/admin/v1/users/" + user, nil},
		{"POST", "/admin/v1/users/" + user + "/tokens", nil},
		{"POST", "/admin/v1/applications", nil},
		{"POST", "/admin/v1/guilds", nil},
		{"PATCH", "/admin/v1/guilds/" + guild, nil},
		{"POST", "/admin/v1/guilds/" + guild + "/roles", nil},
		{"PATCH", "/admin/v1/guilds/" + guild + "/roles/" + guild, nil},
		{"PUT", "/admin/v1/guilds/" + guild + "/members/" + user, nil},
		{"POST", "/admin/v1/guilds/" + guild + "/channels", nil},
		{"PUT", "/admin/v1/guilds/" + guild + "/installations/" + e.App.ApplicationID, nil},
	}
	hdr := map[string]string{"Authorization": e.AdminAuth(), "Content-Type": "application/json"}
	for _, ep := range writes {
		t.Run(ep.String(), func(t *testing.T) {
			for _, b := range []string{"{", `{"a":1,}`, "nul", `{} {}`} {
				wantError(t, send(t, e, ep.method, ep.path, hdr, []byte(b)), 400, bodyInvalidJSON)
			}
			for _, b := range []string{"[]", `"x"`, "1", "null"} {
				wantError(t, send(t, e, ep.method, ep.path, hdr, []byte(b)), 400,
					formError(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."}))
			}
			r := send(t, e, ep.method, ep.path, map[string]string{"Authorization": e.AdminAuth(), "Content-Type": "text/plain"}, []byte("{}"))
			wantError(t, r, 400, formError(leaf{"", "CONTENT_TYPE_INVALID",
				`Expected "Content-Type" header to be one of {'application/json'}.`}))
		})
	}
}

// ---- users ----

func TestAdminUsers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)

	u := adminObj(t, e, "POST", "/users", jsonObj{"username": "alice", "global_name": "Alice", "locale": "fr", "adult": true}, 201)
	id := str(u, "id")
	want := fmt.Sprintf(`{"id":%q,"username":"alice","global_name":"Alice","bot":false,"locale":"fr","adult":true}`, id)
	wantJSON(t, mustMarshal(u), want)
	wantJSON(t, adminDo(t, e, "GET", "/users/"+id, nil, 200).Body, want)

	// Defaults: no global name, en-US, not adult.
	bob := adminObj(t, e, "POST", "/users", jsonObj{"username": "bob", "bot": false}, 201)
	wantJSON(t, mustMarshal(bob), fmt.Sprintf(`{"id":%q,"username":"bob","global_name":null,"bot":false,"locale":"en-US","adult":false}`, str(bob, "id")))

	// The list holds them, and the bootstrapped owner and bot user.
	all := ids(adminList(t, e, "/users"), "id")
	for _, want := range []string{id, str(bob, "id"), e.App.OwnerUserID, e.App.ApplicationID} {
		if !contains(all, want) {
			t.Fatalf("user %s missing from %v", want, all)
		}
	}

	// PATCH changes only what it names; null clears global_name and locale.
	got := adminObj(t, e, "PATCH", "/users/"+id, jsonObj{"username": "alice2", "adult": false}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"username":"alice2","global_name":"Alice","bot":false,"locale":"fr","adult":false}`, id))
	got = adminObj(t, e, "PATCH", "/users/"+id, jsonObj{"global_name": nil, "locale": nil}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"username":"alice2","global_name":null,"bot":false,"locale":null,"adult":false}`, id))
	wantJSON(t, adminDo(t, e, "GET", "/users/"+id, nil, 200).Body, mustMarshalString(got))

	// DELETE, then it is unknown.
	adminDo(t, e, "DELETE", "/users/"+id, nil, 204)
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		wantError(t, adminDo(t, e, m, "/users/"+id, jsonObj{}, 404), 404, apiError(10013, "Unknown User"))
	}
	wantError(t, adminDo(t, e, "POST", "/users/"+id+"/tokens", jsonObj{"type": "client"}, 404), 404, apiError(10013, "Unknown User"))
	wantError(t, adminDo(t, e, "GET", "/users/12x", nil, 400), 400,
		formError(leaf{"user_id", "NUMBER_TYPE_COERCE", notSnowflake("12x")}))

	// Owners and bot users cannot be deleted.
	wantError(t, adminDo(t, e, "DELETE", "/users/"+e.App.OwnerUserID, nil, 400), 400,
		apiError(0, "A user who owns a guild or an application cannot be deleted: transfer or delete those first"))
	wantError(t, adminDo(t, e, "DELETE", "/users/"+e.App.ApplicationID, nil, 400), 400,
		apiError(0, "A bot user belongs to its application and cannot be deleted"))

	// A deleted user's memberships go with them.
	carol := adminNewUser(t, e, "carol")
	adminDo(t, e, "PUT", "/guilds/"+e.App.GuildID+"/members/"+carol, nil, 201)
	adminDo(t, e, "DELETE", "/users/"+carol, nil, 204)
	wantError(t, adminDo(t, e, "GET", "/guilds/"+e.App.GuildID+"/members/"+carol, nil, 404), 404, apiError(10007, "Unknown Member"))
}

func TestAdminUserValidation(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	id := adminNewUser(t, e, "dave")
	long := strings.Repeat("é", 33)
	locales := "Value must be one of ('id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR', 'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko', 'ar', 'he')."
	cases := []struct {
		name   string
		method string
		body   any
		leaves []leaf
	}{
		{"missing username", "POST", jsonObj{}, []leaf{{"username", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"null username", "POST", jsonObj{"username": nil}, []leaf{{"username", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"empty username", "POST", jsonObj{"username": ""}, []leaf{{"username", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."}}},
		{"long username", "POST", jsonObj{"username": long}, []leaf{{"username", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."}}},
		{"username not a string", "POST", jsonObj{"username": 5}, []leaf{{"username", "STRING_TYPE_CONVERT", `Could not interpret "5" as string.`}}},
		{"every field bad", "POST", jsonObj{"username": true, "global_name": "", "locale": "xx", "adult": "yes", "bot": true}, []leaf{
			{"username", "STRING_TYPE_CONVERT", `Could not interpret "True" as string.`},
			{"global_name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."},
			{"locale", "BASE_TYPE_CHOICES", locales},
			{"adult", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."},
			{"bot", "USER_BOT_INVALID", "Bot users are created with their application (POST /admin/v1/applications)"},
		}},
		{"patch null username", "PATCH", jsonObj{"username": nil}, []leaf{{"username", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"patch bot", "PATCH", jsonObj{"bot": true}, []leaf{{"bot", "USER_BOT_INVALID", "Whether a user is a bot cannot be changed"}}},
		{"patch locale", "PATCH", jsonObj{"locale": "en"}, []leaf{{"locale", "BASE_TYPE_CHOICES", locales}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := "/users"
			if tc.method == "PATCH" {
				path += "/" + id
			}
			wantError(t, adminDo(t, e, tc.method, path, tc.body, 400), 400, formError(tc.leaves...))
		})
	}
	// Nothing changed.
	wantJSON(t, adminDo(t, e, "GET", "/users/"+id, nil, 200).Body,
		fmt.Sprintf(`{"id":%q,"username":"dave","global_name":null,"bot":false,"locale":"en-US","adult":false}`, id))
}

// ---- tokens ----

func TestAdminClientToken(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	id := adminNewUser(t, e, "erin")
	tok := str(adminObj(t, e, "POST", "/users/"+id+"/tokens", jsonObj{"type": "client"}, 201), "token")
	if len(tok) != 59 {
		t.Fatalf("client token %q: want 59 characters", tok)
	}
	// Stored by hash only.
	owner, err := e.Store.ClientTokenUser(context.Background(), auth.Hash(tok))
	if err != nil || owner.String() != id {
		t.Fatalf("ClientTokenUser: %v, %v; want %s", owner, err, id)
	}
	rows, err := e.Store.DB().Query(`SELECT hash, user_id FROM client_tokens`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var (
			hash []byte
			uid  int64
		)
		if err := rows.Scan(&hash, &uid); err != nil {
			t.Fatal(err)
		}
		n++
		if bytes.Contains(hash, []byte(tok)) || !bytes.Equal(hash, auth.Hash(tok)) {
			t.Fatalf("stored %x for token %q", hash, tok)
		}
	}
	if n != 1 {
		t.Fatalf("%d client tokens stored, want 1", n)
	}
	// A second token is another one.
	tok2 := str(adminObj(t, e, "POST", "/users/"+id+"/tokens", jsonObj{"type": "client"}, 201), "token")
	if tok2 == tok {
		t.Fatal("same client token twice")
	}
	// A client token is not an API or admin token.
	for _, authz := range []string{tok, "Bearer " + tok, "Bot " + tok, "Admin " + tok} {
		wantError(t, mustDo(t, e, "GET", v10(e).guildCmds(), authz, nil, 401), 401, bodyUnauthorized)
	}
	wantError(t, mustDo(t, e, "GET", "/admin/v1/users", "Admin "+tok, nil, 401), 401, bodyUnauthorized)
}

func TestAdminBearerToken(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	cmd := str(create(t, e, p.guildCmds(), e.Bot(), chat("mod")), "id")

	// The guild owner's token, minted by admin, edits permissions.
	r := adminObj(t, e, "POST", "/users/"+e.App.OwnerUserID+"/tokens", jsonObj{"type": "bearer",
		"application_id": e.App.ApplicationID, "scopes": "identify applications.commands.permissions.update identify"}, 201)
	access := str(r, "access_token")
	wantJSON(t, mustMarshal(r), mustMarshalString(jsonObj{"access_token": access, "token_type": "Bearer",
		"expires_in": 604800, "scope": "identify applications.commands.permissions.update"}))
	if len(access) != 30 {
		t.Fatalf("access token %q", access)
	}
	mustDo(t, e, "PUT", p.cmdPerms(cmd), "Bearer "+access, permsBody(entry(e.App.GuildID, 1, true)), 200)
	tok, err := e.Store.TokenByHash(context.Background(), auth.Hash(access))
	if err != nil || tok.Kind != "bearer" || tok.UserID.String() != e.App.OwnerUserID || tok.ApplicationID.String() != e.App.ApplicationID {
		t.Fatalf("stored token %+v, %v", tok, err)
	}

	// A member with MANAGE_GUILD and MANAGE_ROLES through a role made by
	// admin may too.
	mod := adminNewUser(t, e, "mod")
	role := str(adminObj(t, e, "POST", "/guilds/"+e.App.GuildID+"/roles",
		jsonObj{"name": "mods", "permissions": fmt.Sprint(1<<5 | 1<<28)}, 201), "id")
	adminDo(t, e, "PUT", "/guilds/"+e.App.GuildID+"/members/"+mod, jsonObj{"roles": []string{role}}, 201)
	modTok := str(adminObj(t, e, "POST", "/users/"+mod+"/tokens", jsonObj{"type": "bearer",
		"application_id": e.App.ApplicationID, "scopes": []string{"applications.commands.permissions.update"}}, 201), "access_token")
	mustDo(t, e, "PUT", p.cmdPerms(cmd), "Bearer "+modTok, permsBody(entry(e.App.GuildID, 1, false)), 200)

	// Without that scope the token cannot.
	idOnly := str(adminObj(t, e, "POST", "/users/"+e.App.OwnerUserID+"/tokens", jsonObj{"type": "bearer",
		"application_id": e.App.ApplicationID, "scopes": "identify"}, 201), "access_token")
	wantError(t, mustDo(t, e, "PUT", p.cmdPerms(cmd), "Bearer "+idOnly, permsBody(), 401), 401, bodyMissingScope)
	// applications.commands.update lets a Bearer token write commands.
	upd := str(adminObj(t, e, "POST", "/users/"+e.App.OwnerUserID+"/tokens", jsonObj{"type": "bearer",
		"application_id": e.App.ApplicationID, "scopes": "applications.commands.update"}, 201), "access_token")
	create(t, e, p.guildCmds(), "Bearer "+upd, chat("viabearer"))
}

func TestAdminTokenValidation(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	id := adminNewUser(t, e, "frank")
	app := e.App.ApplicationID
	scopes := "Value must be one of ('identify', 'applications.commands', 'applications.commands.update', 'applications.commands.permissions.update', 'guilds', 'email')."
	cases := []struct {
		name   string
		body   any
		leaves []leaf
	}{
		{"no type", jsonObj{}, []leaf{{"type", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"bad type", jsonObj{"type": "bot"}, []leaf{{"type", "BASE_TYPE_CHOICES", "Value must be one of ('client', 'bearer')."}}},
		{"type not a string", jsonObj{"type": 1}, []leaf{{"type", "STRING_TYPE_CONVERT", `Could not interpret "1" as string.`}}},
		{"bearer without app and scopes", jsonObj{"type": "bearer"}, []leaf{
			{"application_id", "BASE_TYPE_REQUIRED", msgRequired}, {"scopes", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"bearer bad app id", jsonObj{"type": "bearer", "application_id": "abc", "scopes": "identify"}, []leaf{
			{"application_id", "NUMBER_TYPE_COERCE", notSnowflake("abc")}}},
		{"bearer bot scope", jsonObj{"type": "bearer", "application_id": app, "scopes": "identify bot"}, []leaf{
			{"scopes", "BASE_TYPE_CHOICES", scopes}}},
		{"bearer unknown scope", jsonObj{"type": "bearer", "application_id": app, "scopes": []string{"identify", "admin"}}, []leaf{
			{"scopes", "BASE_TYPE_CHOICES", scopes}}},
		{"bearer empty scopes", jsonObj{"type": "bearer", "application_id": app, "scopes": "  "}, []leaf{
			{"scopes", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."}}},
		{"bearer scopes not strings", jsonObj{"type": "bearer", "application_id": app, "scopes": []any{1}}, []leaf{
			{"scopes.0", "STRING_TYPE_CONVERT", `Could not interpret "1" as string.`}}},
		{"bearer unknown app", jsonObj{"type": "bearer", "application_id": "1234567890123456789", "scopes": "identify"}, []leaf{
			{"application_id", "UNKNOWN_APPLICATION", "Unknown Application"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "POST", "/users/"+id+"/tokens", tc.body, 400), 400, formError(tc.leaves...))
		})
	}
	// Bot users get no client or Bearer tokens.
	for _, body := range []jsonObj{{"type": "client"}, {"type": "bearer", "application_id": app, "scopes": "identify"}} {
		wantError(t, adminDo(t, e, "POST", "/users/"+app+"/tokens", body, 400), 400,
			apiError(0, "Bot users cannot be given client or Bearer tokens: use the application's bot token"))
	}
}

// ---- applications ----

func TestAdminApplications(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	creds := adminObj(t, e, "POST", "/applications", jsonObj{"name": "helper", "embedded": true}, 201)
	for _, k := range []string{"application_id", "bot_token", "client_id", "client_secret", "public_key", "guild_id",
		"owner_user_id", "owner_bearer_token"} {
		if str(creds, k) == "" {
			t.Fatalf("credentials lack %s: %v", k, creds)
		}
	}
	if _, ok := creds["admin_token"]; ok {
		t.Fatalf("credentials carry an admin token: %v", creds)
	}
	if got := str(creds, "base_url"); got != e.URL {
		t.Fatalf("base_url %q, want %q", got, e.URL)
	}
	app, guild := str(creds, "application_id"), str(creds, "guild_id")

	// The credentials work on the API: the embedded app has its Launch
	// command, and its guild takes commands.
	p := apiPaths{"/api/v10", app, guild}
	if l := decodeList(t, mustDo(t, e, "GET", p.global(), "Bot "+str(creds, "bot_token"), nil, 200)); len(l) != 1 || str(l[0], "name") != "Launch" {
		t.Fatalf("global commands of an embedded app: %v", l)
	}
	create(t, e, p.guildCmds(), "Bot "+str(creds, "bot_token"), chat("hi"))

	// Its bot is a member of its guild, with a managed role.
	insts := adminList(t, e, "/guilds/"+guild+"/installations")
	if len(insts) != 1 || str(insts[0], "application_id") != app || str(insts[0], "permissions") != "0" || str(insts[0], "role_id") == "" {
		t.Fatalf("installations: %v", insts)
	}
	role := adminObj(t, e, "GET", "/guilds/"+guild+"/roles/"+str(insts[0], "role_id"), nil, 200)
	wantJSON(t, mustMarshal(role), fmt.Sprintf(`{"id":%q,"guild_id":%q,"name":"helper","permissions":"0","position":1,"managed":true}`,
		str(insts[0], "role_id"), guild))
	bot := adminObj(t, e, "GET", "/guilds/"+guild+"/members/"+app, nil, 200)
	if fmt.Sprint(bot["roles"]) != fmt.Sprintf("[%s]", str(insts[0], "role_id")) {
		t.Fatalf("bot member: %v", bot)
	}

	// Reading: no secrets, ever.
	want := fmt.Sprintf(`{"id":%q,"name":"helper","owner_id":%q,"flags":131072,"integration_types":[0,1],"integration_types_config":{"0":{},"1":{}},"discoverable":false,"public_key":%q,"interactions_endpoint_url":"","gateway_sessions":{"connected":0,"resumable":0}}`,
		app, str(creds, "owner_user_id"), str(creds, "public_key"))
	got := adminDo(t, e, "GET", "/applications/"+app, nil, 200)
	wantJSON(t, got.Body, want)
	list := adminDo(t, e, "GET", "/applications", nil, 200)
	for _, secret := range []string{str(creds, "client_secret"), str(creds, "bot_token"), e.App.ClientSecret, "secret", "private"} {
		if bytes.Contains(list.Body, []byte(secret)) {
			t.Fatalf("application list reveals %q: %s", secret, list.Body)
		}
	}
	if l := decodeList(t, list); len(l) != 2 || str(l[0], "id") != e.App.ApplicationID || str(l[1], "id") != app {
		t.Fatalf("applications: %s", list.Body)
	}

	wantError(t, adminDo(t, e, "GET", "/applications/1234567890123456789", nil, 404), 404, bodyUnknownApp)
	wantError(t, adminDo(t, e, "GET", "/applications/x", nil, 400), 400,
		formError(leaf{"application_id", "NUMBER_TYPE_COERCE", notSnowflake("x")}))
	wantError(t, adminDo(t, e, "POST", "/applications", jsonObj{}, 400), 400,
		formError(leaf{"name", "BASE_TYPE_REQUIRED", msgRequired}))
	wantError(t, adminDo(t, e, "POST", "/applications", jsonObj{"name": "x", "embedded": "no"}, 400), 400,
		formError(leaf{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length."},
			leaf{"embedded", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."}))
	if n := len(adminList(t, e, "/applications")); n != 2 {
		t.Fatalf("%d applications after failed creates", n)
	}
}
