package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
)

// TestCLIRefusesAsTheAdminAPI: for each request the admin API refuses,
// the CLI verb that makes the same thing refuses it with the very same
// error (status, code, message and field errors), and its message names
// the flags.
func TestCLIRefusesAsTheAdminAPI(t *testing.T) {
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
	app, guild, owner := creds["application_id"], creds["guild_id"], creds["owner_user_id"]
	user := strOf(runJSON(t, dir, "user", "create", "--name", "taken", "--password", "correct horse"), "id")
	cat := strOf(runJSON(t, dir, "channel", "create", "--guild", guild, "--name", "cat", "--type", "4"), "id")
	other := runJSON(t, dir, "app", "create", "--name", "other")
	otherRole := strOf(runJSON(t, dir, "role", "create", "--guild", strOf(other, "guild_id"), "--name", "o"), "id")
	const unknown = "1234567890123456789"

	cases := []struct {
		name      string
		cli       []string
		method    string
		path      string
		body      string
		wantInCLI string // how the CLI names the field
	}{
		{"app name too short", []string{"app", "create", "--name", "x"},
			"POST", "/applications", `{"name":"x"}`, "--name: Must be between 2 and 32 in length."},
		{"app without name", []string{"app", "create"}, "POST", "/applications", `{}`, "--name: This field is required"},
		{"guild name too short", []string{"guild", "create", "--name", "g"},
			"POST", "/guilds", `{"name":"g","owner_id":"` + owner + `"}`, "--name:"},
		{"user name and locale", []string{"user", "create", "--name", strings.Repeat("n", 33), "--locale", "xx"},
			"POST", "/users", `{"username":"` + strings.Repeat("n", 33) + `","locale":"xx"}`, "--locale: Value must be one of"},
		{"user empty display name", []string{"user", "create", "--name", "u", "--global-name", ""},
			"POST", "/users", `{"username":"u","global_name":""}`, "--global-name:"},
		{"login password too short", []string{"user", "create", "--name", "u", "--password", "short"},
			"PUT", "/users/" + owner + "/login", `{"name":"u","password":"short"}`, "--password: Must be between 8 and 128"},
		{"login name taken", []string{"user", "create", "--name", "taken", "--password", "another one"},
			"PUT", "/users/" + owner + "/login", `{"name":"taken","password":"another one"}`, "--name: This login name belongs to another user (LOGIN_NAME_TAKEN)"},
		{"role permissions and position", []string{"role", "create", "--guild", guild, "--name", "r", "--permissions", "9007199254740992", "--position", "0"},
			"POST", "/guilds/" + guild + "/roles", `{"name":"r","permissions":"9007199254740992","position":0}`, "--position: int value should be"},
		{"role number in words", []string{"role", "create", "--guild", guild, "--name", "r", "--position", "first"},
			"POST", "/guilds/" + guild + "/roles", `{"name":"r","position":"first"}`, "--position: "},
		{"member ids and nick", []string{"member", "add", "--guild", guild, "--user", user, "--roles", "x", "--nick", strings.Repeat("n", 33)},
			"PUT", "/guilds/" + guild + "/members/" + user, `{"roles":["x"],"nick":"` + strings.Repeat("n", 33) + `"}`, "--roles, item 1: "},
		{"member role of another guild", []string{"member", "add", "--guild", guild, "--user", user, "--roles", guild + "," + otherRole},
			"PUT", "/guilds/" + guild + "/members/" + user, `{"roles":["` + guild + `","` + otherRole + `"]}`, "--roles, item 2: Unknown Role (UNKNOWN_ROLE)"},
		{"thread without parent", []string{"channel", "create", "--guild", guild, "--name", "t", "--type", "11"},
			"POST", "/guilds/" + guild + "/channels", `{"name":"t","type":11}`, "--parent: This field is required"},
		{"category with a parent", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "4", "--parent", cat},
			"POST", "/guilds/" + guild + "/channels", `{"name":"c","type":4,"parent_id":"` + cat + `"}`, "--parent: A category cannot have a parent"},
		{"channel type and position", []string{"channel", "create", "--guild", guild, "--name", "c", "--type", "1", "--position", "-1"},
			"POST", "/guilds/" + guild + "/channels", `{"name":"c","type":1,"position":-1}`, "--type: Value must be one of"},
		{"bearer scope", []string{"token", "mint", "--user", user, "--app", app, "--scopes", "identify bot"},
			"POST", "/users/" + user + "/tokens", `{"type":"bearer","application_id":"` + app + `","scopes":"identify bot"}`, "--scopes: Value must be one of"},
		{"bearer unknown app", []string{"token", "mint", "--user", user, "--app", unknown},
			"POST", "/users/" + user + "/tokens", `{"type":"bearer","application_id":"` + unknown + `","scopes":"identify"}`, "--app: Unknown Application"},
		{"token for a bot", []string{"token", "mint", "--user", app},
			"POST", "/users/" + app + "/tokens", `{"type":"client"}`, "token mint: Bot users cannot be given client or Bearer tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tc.method, srv.base+"/admin/v1"+tc.path, admin, tc.body)
			if status != 400 {
				t.Fatalf("admin API: %d %s, want a refusal", status, body)
			}
			_, _, code, err := runCLI(t, nil, append(tc.cli, "--data", dir)...)
			var ae *apierr.Error
			if code != 1 || !errors.As(err, &ae) {
				t.Fatalf("CLI: exit %d, %v; want exit 1 with the admin API's error", code, err)
			}
			cliBody, _ := json.Marshal(ae)
			if ae.Status != status || canonJSON(t, json.RawMessage(cliBody)) != canonJSON(t, json.RawMessage(body)) {
				t.Errorf("CLI refused with %d %s\nthe admin API with %d %s", ae.Status, cliBody, status, body)
			}
			if !strings.Contains(err.Error(), tc.wantInCLI) {
				t.Errorf("CLI message %q does not contain %q", err, tc.wantInCLI)
			}
		})
	}
}
