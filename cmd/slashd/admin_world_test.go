package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
)

// runJSON runs a CLI verb with --data dir --json and decodes its output.
func runJSON(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--data", dir, "--json")
	if err := run(context.Background(), args, envMap(nil), &out, &errOut); err != nil {
		t.Fatalf("%v: %v (stderr %s)", args, err, errOut.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("%v output %q: %v", args, out.String(), err)
	}
	return m
}

func strOf(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func canonJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// TestWorldVerbs builds a world with the CLI while a server runs on the
// same data directory, and checks the server sees it: through the admin
// API (same objects as the CLI printed) and through the public API (a
// Bearer token minted by the CLI edits permissions).
func TestWorldVerbs(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	srv := startServe(t, dir)
	raw, err := os.ReadFile(filepath.Join(dir, "bootstrap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var creds map[string]string
	if err := json.Unmarshal(raw, &creds); err != nil {
		t.Fatal(err)
	}
	admin := "Admin " + creds["admin_token"]
	app, guild := creds["application_id"], creds["guild_id"]

	// user create
	alice := runJSON(t, dir, "user", "create", "--name", "alice", "--adult", "--locale", "fr", "--global-name", "Alice")
	aliceID := strOf(alice, "id")
	if want := fmt.Sprintf(`{"adult":true,"bot":false,"global_name":"Alice","id":%q,"locale":"fr","username":"alice"}`, aliceID); canonJSON(t, alice) != want {
		t.Fatalf("user create: %s, want %s", canonJSON(t, alice), want)
	}
	bob := runJSON(t, dir, "user", "create", "--name", "bob")
	if bob["global_name"] != nil || strOf(bob, "locale") != "en-US" || bob["adult"] != false {
		t.Fatalf("user create defaults: %v", bob)
	}

	// role create: MANAGE_GUILD | MANAGE_ROLES
	role := runJSON(t, dir, "role", "create", "--guild", guild, "--name", "mods", "--permissions", "268435488")
	roleID := strOf(role, "id")
	if want := fmt.Sprintf(`{"guild_id":%q,"id":%q,"managed":false,"name":"mods","permissions":"268435488","position":1}`, guild, roleID); canonJSON(t, role) != want {
		t.Fatalf("role create: %s, want %s", canonJSON(t, role), want)
	}

	// member add, then again (roles replaced, joined_at kept)
	m := runJSON(t, dir, "member", "add", "--guild", guild, "--user", aliceID, "--roles", roleID+","+roleID, "--nick", "Al")
	if fmt.Sprint(m["roles"]) != "["+roleID+"]" || strOf(m, "nick") != "Al" || strOf(m, "user_id") != aliceID || strOf(m, "joined_at") == "" {
		t.Fatalf("member add: %v", m)
	}
	m2 := runJSON(t, dir, "member", "add", "--guild", guild, "--user", aliceID, "--roles", roleID)
	if strOf(m2, "joined_at") != strOf(m, "joined_at") || m2["nick"] != nil {
		t.Fatalf("member add again: %v (was %v)", m2, m)
	}

	// channel create: a category, a channel in it, a thread, an nsfw one
	cat := runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "Cat", "--type", "4")
	general := runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "general", "--parent", strOf(cat, "id"))
	thread := runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "t", "--type", "11", "--parent", strOf(general, "id"))
	late := runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "late", "--nsfw", "--position", "3")
	if want := fmt.Sprintf(`{"guild_id":%q,"id":%q,"name":"general","nsfw":false,"parent_id":%q,"permission_overwrites":[],"position":0,"type":0}`,
		guild, strOf(general, "id"), strOf(cat, "id")); canonJSON(t, general) != want {
		t.Fatalf("channel create: %s, want %s", canonJSON(t, general), want)
	}
	if cat["parent_id"] != nil || strOf(thread, "parent_id") != strOf(general, "id") || late["nsfw"] != true {
		t.Fatalf("channels: %v %v %v", cat, thread, late)
	}

	// The running server sees every object as the CLI printed it.
	for path, want := range map[string]map[string]any{
		"/admin/v1/users/" + aliceID:                                      alice,
		"/admin/v1/guilds/" + guild + "/roles/" + roleID:                  role,
		"/admin/v1/guilds/" + guild + "/members/" + aliceID:               m2,
		"/admin/v1/guilds/" + guild + "/channels/" + strOf(cat, "id"):     cat,
		"/admin/v1/guilds/" + guild + "/channels/" + strOf(general, "id"): general,
		"/admin/v1/guilds/" + guild + "/channels/" + strOf(thread, "id"):  thread,
		"/admin/v1/guilds/" + guild + "/channels/" + strOf(late, "id"):    late,
	} {
		status, body := call(t, "GET", srv.base+path, admin, "")
		var got map[string]any
		if status != http.StatusOK || json.Unmarshal(body, &got) != nil || canonJSON(t, got) != canonJSON(t, want) {
			t.Errorf("GET %s: %d %s, want %s", path, status, body, canonJSON(t, want))
		}
	}

	// token mint: a client token, stored by hash.
	ct := runJSON(t, dir, "token", "mint", "--user", aliceID)
	tok := strOf(ct, "token")
	if len(ct) != 1 || len(tok) != 59 {
		t.Fatalf("client token: %v", ct)
	}
	st, err := openStore(context.Background(), "", dir, secrets.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	uid, err := st.ClientTokenUser(context.Background(), auth.Hash(tok))
	st.Close()
	if err != nil || uid.String() != aliceID {
		t.Fatalf("client token user: %v %v", uid, err)
	}

	// token mint --app: alice's Bearer token edits permissions in the
	// guild, as a member with MANAGE_GUILD and MANAGE_ROLES.
	bt := runJSON(t, dir, "token", "mint", "--user", aliceID, "--app", app, "--scopes", "identify applications.commands.permissions.update")
	if strOf(bt, "token_type") != "Bearer" || bt["expires_in"] != float64(604800) ||
		strOf(bt, "scope") != "identify applications.commands.permissions.update" || len(strOf(bt, "access_token")) != 30 {
		t.Fatalf("bearer token: %v", bt)
	}
	cmd := createGuildCommand(t, srv.base, app, guild, creds["bot_token"], "kick")
	status, body := call(t, "PUT", srv.base+"/api/v10/applications/"+app+"/guilds/"+guild+"/commands/"+cmd+"/permissions",
		"Bearer "+strOf(bt, "access_token"), `{"permissions":[{"id":"`+guild+`","type":1,"permission":false}]}`)
	if status != http.StatusOK {
		t.Fatalf("permissions with a CLI-minted token: %d %s", status, body)
	}
	// The default scopes are the bootstrap owner token's.
	def := runJSON(t, dir, "token", "mint", "--user", aliceID, "--app", app)
	if strOf(def, "scope") != "identify applications.commands.permissions.update" {
		t.Fatalf("default scopes: %v", def)
	}
}

func TestWorldVerbErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	creds := runJSON(t, dir, "app", "create", "--init", "--name", "cli")
	app, guild := strOf(creds, "application_id"), strOf(creds, "guild_id")
	user := strOf(runJSON(t, dir, "user", "create", "--name", "u"), "id")
	text := strOf(runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "text"), "id")
	cat := strOf(runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "cat", "--type", "4"), "id")
	other := runJSON(t, dir, "app", "create", "--name", "other")
	otherRole := strOf(runJSON(t, dir, "role", "create", "--guild", strOf(other, "guild_id"), "--name", "o"), "id")
	unknown := snowflake.ID(1234567890123456789).String()

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown verb", []string{"user", "delete"}, `user: unknown verb "delete"`},
		{"noun only", []string{"token"}, `token: missing verb (one of mint)`},
		{"bad flag", []string{"user", "create", "--nope"}, "nope"},
		{"extra argument", []string{"user", "create", "--name", "x", "extra"}, `unexpected argument "extra"`},
		{"user without name", []string{"user", "create"}, "--name: This field is required (BASE_TYPE_REQUIRED)"},
		{"user long name", []string{"user", "create", "--name", strings.Repeat("n", 33)}, "--name: Must be between 1 and 32 in length."},
		{"user bad locale", []string{"user", "create", "--name", "x", "--locale", "xx"}, "--locale: Value must be one of ("},
		{"role without guild", []string{"role", "create", "--name", "r"}, "--guild is required"},
		{"role bad guild", []string{"role", "create", "--guild", "g", "--name", "r"}, `--guild "g"`},
		{"role unknown guild", []string{"role", "create", "--guild", unknown, "--name", "r"}, "unknown guild"},
		{"role bad permissions", []string{"role", "create", "--guild", guild, "--name", "r", "--permissions", "9007199254740992"}, "--permissions: int value should be less than or equal to 9007199254740991. (NUMBER_TYPE_MAX)"},
		{"role position 0", []string{"role", "create", "--guild", guild, "--name", "r", "--position", "0"}, "--position: int value should be greater than or equal to 1. (NUMBER_TYPE_MIN)"},
		{"member without user", []string{"member", "add", "--guild", guild}, "--user is required"},
		{"member unknown user", []string{"member", "add", "--guild", guild, "--user", unknown}, "unknown user"},
		{"member bad role", []string{"member", "add", "--guild", guild, "--user", user, "--roles", "x"}, `--roles, item 1: Value "x" is not snowflake. (NUMBER_TYPE_COERCE)`},
		{"member role of another guild", []string{"member", "add", "--guild", guild, "--user", user, "--roles", text + "," + otherRole}, "--roles, item 2: Unknown Role (UNKNOWN_ROLE)"},
		{"channel bad type", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "1"}, "--type: Value must be one of ("},
		{"thread without parent", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "11"}, "--parent: This field is required"},
		{"thread under category", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "11", "--parent", cat}, "--parent: A thread's parent must be"},
		{"category with parent", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "4", "--parent", cat}, "--parent: A category cannot have a parent (CHANNEL_PARENT_INVALID)"},
		{"text under text", []string{"channel", "create", "--guild", guild, "--name", "c", "--parent", text}, "--parent: A channel's parent must be a category"},
		{"unknown parent", []string{"channel", "create", "--guild", guild, "--name", "c", "--parent", unknown}, "--parent: Unknown Channel (UNKNOWN_CHANNEL)"},
		{"token without user", []string{"token", "mint"}, "--user is required"},
		{"token scopes without app", []string{"token", "mint", "--user", user, "--scopes", "identify"}, "--scopes needs --app"},
		{"token bot scope", []string{"token", "mint", "--user", user, "--app", app, "--scopes", "identify bot"}, "--scopes: Value must be one of ("},
		{"token empty scopes", []string{"token", "mint", "--user", user, "--app", app, "--scopes", " "}, "--scopes: Must be 1 or more in length."},
		{"token unknown app", []string{"token", "mint", "--user", user, "--app", unknown}, "--app: Unknown Application (UNKNOWN_APPLICATION)"},
		{"token for a bot user", []string{"token", "mint", "--user", app}, "Bot users cannot be given client or Bearer tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append(tc.args, "--data", dir), envMap(nil), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run %q: %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}

	// Human-readable output, and SLASHD_DATA.
	var out bytes.Buffer
	getenv := envMap(map[string]string{"SLASHD_DATA": dir})
	if err := run(context.Background(), []string{"role", "create", "--guild", guild, "--name", "human"}, getenv, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "role ") || !strings.Contains(out.String(), "created in guild "+guild) {
		t.Errorf("human output %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "mint", "--user", user}, getenv, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "client token of user "+user+": ") {
		t.Errorf("human output %q", out.String())
	}
	// The usage lists the verbs.
	out.Reset()
	if err := run(context.Background(), []string{"help"}, getenv, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"user create", "role create", "member add", "channel create", "token mint"} {
		if !strings.Contains(out.String(), "\n  "+verb+" ") {
			t.Errorf("usage lacks %q", verb)
		}
	}
}
