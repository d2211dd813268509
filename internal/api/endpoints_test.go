package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// TestAllEndpointsAcrossPrefixes drives the 16 endpoints of spec §4 in one
// scenario under /api/v10, /api/v9 and /api, and checks every step's
// status and body, then that the three transcripts are identical once
// snowflakes are replaced by their order of appearance.
func TestAllEndpointsAcrossPrefixes(t *testing.T) {
	t.Parallel()
	prefixes := []string{"/api/v10", "/api/v9", "/api"}
	transcripts := make([][]string, len(prefixes))
	for i, prefix := range prefixes {
		t.Run(strings.TrimPrefix(prefix, "/"), func(t *testing.T) {
			transcripts[i] = endpointScenario(t, prefix)
		})
	}
	if t.Failed() {
		return
	}
	for i := 1; i < len(prefixes); i++ {
		a, b := transcripts[0], transcripts[i]
		if len(a) != len(b) {
			t.Fatalf("%s: %d steps, %s: %d steps", prefixes[0], len(a), prefixes[i], len(b))
		}
		for j := range a {
			if a[j] != b[j] {
				t.Errorf("step %d differs:\n %s: %s\n %s: %s", j, prefixes[0], a[j], prefixes[i], b[j])
			}
		}
	}
}

func endpointScenario(t *testing.T, prefix string) []string {
	e := testenv.New(t)
	p := pathsFor(prefix, e.App)
	var n normalizer
	var out []string
	step := func(method, path, auth string, body any, status int) testenv.Response {
		t.Helper()
		r := mustDo(t, e, method, path, auth, body, status)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" && r.Status != 204 {
			t.Fatalf("%s %s: Content-Type %q", method, path, ct)
		}
		if r.Header.Get("Date") == "" {
			t.Fatalf("%s %s: no Date header", method, path)
		}
		out = append(out, fmt.Sprintf("%s %d %s", method, r.Status, n.body(t, r.Body)))
		return r
	}
	bot, owner := e.Bot(), e.Owner()

	// Global commands: list, create, upsert, get, edit, bulk, delete.
	r := step("GET", p.global(), bot, nil, 200)
	if string(r.Body) != "[]" {
		t.Fatalf("empty list: %s", r.Body)
	}
	ping := decodeObj(t, step("POST", p.global(), bot, chat("ping"), 201))
	again := decodeObj(t, step("POST", p.global(), bot, chat("ping"), 200))
	if again["id"] != ping["id"] || again["version"] != ping["version"] {
		t.Fatalf("upsert changed id/version: %v -> %v", ping, again)
	}
	id := str(ping, "id")
	got := decodeObj(t, step("GET", p.globalCmd(id), bot, nil, 200))
	if got["name"] != "ping" || got["application_id"] != e.App.ApplicationID {
		t.Fatalf("GET one: %v", got)
	}
	if _, ok := got["guild_id"]; ok {
		t.Fatalf("global command has guild_id: %v", got)
	}
	edited := decodeObj(t, step("PATCH", p.globalCmd(id), bot, jsonObj{"description": "Pong!"}, 200))
	if edited["description"] != "Pong!" || edited["id"] != id || edited["version"] == ping["version"] {
		t.Fatalf("PATCH: %v", edited)
	}
	bulk := decodeList(t, step("PUT", p.global(), bot, []jsonObj{with(chat("ping"), "description", "Pong!"), userCmd("Inspect")}, 200))
	if len(bulk) != 2 || bulk[0]["id"] != id || bulk[0]["version"] != edited["version"] {
		t.Fatalf("bulk: %v", bulk)
	}
	list := decodeList(t, step("GET", p.global(), bot, nil, 200))
	if fmt.Sprint(names(list)) != "[ping Inspect]" {
		t.Fatalf("list: %v", names(list))
	}
	step("DELETE", p.globalCmd(str(bulk[1], "id")), bot, nil, 204)
	step("GET", p.globalCmd(str(bulk[1], "id")), bot, nil, 404)

	// Guild commands.
	r = step("GET", p.guildCmds(), bot, nil, 200)
	if string(r.Body) != "[]" {
		t.Fatalf("empty guild list: %s", r.Body)
	}
	hello := decodeObj(t, step("POST", p.guildCmds(), bot, chat("hello"), 201))
	if hello["guild_id"] != e.App.GuildID {
		t.Fatalf("guild command: %v", hello)
	}
	hid := str(hello, "id")
	step("POST", p.guildCmds(), bot, chat("hello"), 200)
	step("GET", p.guildCmd(hid), bot, nil, 200)
	step("PATCH", p.guildCmd(hid), bot, jsonObj{"nsfw": true}, 200)
	gbulk := decodeList(t, step("PUT", p.guildCmds(), bot, []jsonObj{with(chat("hello"), "nsfw", true), msgCmd("Quote")}, 200))
	if len(gbulk) != 2 || gbulk[0]["id"] != hid {
		t.Fatalf("guild bulk: %v", gbulk)
	}
	step("GET", p.guildCmds(), bot, nil, 200)

	// Permissions.
	r = step("GET", p.allPerms(), bot, nil, 200)
	if string(r.Body) != "[]" {
		t.Fatalf("empty permissions: %s", r.Body)
	}
	step("GET", p.cmdPerms(hid), bot, nil, 404)
	perms := jsonObj{"permissions": []jsonObj{{"id": e.App.GuildID, "type": 1, "permission": false}}}
	set := step("PUT", p.cmdPerms(hid), owner, perms, 200)
	wantJSON(t, set.Body, fmt.Sprintf(`{"id":%q,"application_id":%q,"guild_id":%q,"permissions":[{"id":%q,"type":1,"permission":false}]}`,
		hid, e.App.ApplicationID, e.App.GuildID, e.App.GuildID))
	wantJSON(t, step("GET", p.cmdPerms(hid), bot, nil, 200).Body, string(set.Body))
	wantJSON(t, step("GET", p.allPerms(), owner, nil, 200).Body, "["+string(set.Body)+"]")
	wantError(t, step("PUT", p.allPerms(), owner, jsonObj{"permissions": []jsonObj{}}, 405), 405, bodyMethod)

	// Delete the guild command: gone, and so are its permissions.
	step("DELETE", p.guildCmd(hid), bot, nil, 204)
	wantError(t, step("GET", p.guildCmd(hid), bot, nil, 404), 404, bodyUnknownCommand)
	wantError(t, step("DELETE", p.guildCmd(hid), bot, nil, 404), 404, bodyUnknownCommand)
	r = step("GET", p.allPerms(), bot, nil, 200)
	if string(r.Body) != "[]" {
		t.Fatalf("permissions after delete: %s", r.Body)
	}
	list = decodeList(t, step("GET", p.guildCmds(), bot, nil, 200))
	if fmt.Sprint(names(list)) != "[Quote]" {
		t.Fatalf("guild list after delete: %v", names(list))
	}
	return out
}

// TestStatusesPerEndpoint: each endpoint's success status, with an empty
// body where the spec says so (204).
func TestStatusesPerEndpoint(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g := create(t, e, p.global(), e.Bot(), chat("g"))
	l := create(t, e, p.guildCmds(), e.Bot(), chat("l"))
	perms := jsonObj{"permissions": []jsonObj{{"id": e.App.OwnerUserID, "type": 2, "permission": true}}}
	cases := []struct {
		method, path, auth string
		body               any
		status             int
	}{
		{"GET", p.global(), e.Bot(), nil, 200},
		{"GET", p.global() + "?with_localizations=true", e.Bot(), nil, 200},
		{"POST", p.global(), e.Bot(), chat("new-global"), 201},
		{"GET", p.globalCmd(str(g, "id")), e.Bot(), nil, 200},
		{"PATCH", p.globalCmd(str(g, "id")), e.Bot(), jsonObj{}, 200},
		{"PUT", p.global(), e.Bot(), []jsonObj{chat("g"), chat("new-global")}, 200},
		{"GET", p.guildCmds(), e.Bot(), nil, 200},
		{"GET", p.guildCmds() + "?with_localizations=false", e.Bot(), nil, 200},
		{"POST", p.guildCmds(), e.Bot(), chat("new-guild"), 201},
		{"GET", p.guildCmd(str(l, "id")), e.Bot(), nil, 200},
		{"PATCH", p.guildCmd(str(l, "id")), e.Bot(), jsonObj{"name": "l2"}, 200},
		{"PUT", p.guildCmds(), e.Bot(), []jsonObj{chat("l2"), chat("new-guild")}, 200},
		{"PUT", p.cmdPerms(str(l, "id")), e.Owner(), perms, 200},
		{"GET", p.cmdPerms(str(l, "id")), e.Bot(), nil, 200},
		{"GET", p.allPerms(), e.Bot(), nil, 200},
		{"PUT", p.allPerms(), e.Owner(), perms, 405},
		{"DELETE", p.guildCmd(str(l, "id")), e.Bot(), nil, 204},
		{"DELETE", p.globalCmd(str(g, "id")), e.Bot(), nil, 204},
	}
	for _, c := range cases {
		r := mustDo(t, e, c.method, c.path, c.auth, c.body, c.status)
		if c.status == 204 && len(r.Body) != 0 {
			t.Errorf("%s %s: 204 with body %q", c.method, c.path, r.Body)
		}
	}
}
