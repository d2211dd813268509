package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

// ---- create = upsert ----

func TestCreateIsUpsert(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list, one := p.global(), p.globalCmd
			if scope == "guild" {
				list, one = p.guildCmds(), p.guildCmd
			}
			body := with(chat("echo"), "options", []jsonObj{{"type": 3, "name": "text", "description": "What", "required": true}})
			first := create(t, e, list, e.Bot(), body)
			id, v1 := str(first, "id"), str(first, "version")
			if id == "" || v1 == "" || mustID(t, v1) < mustID(t, id) {
				t.Fatalf("id %q version %q", id, v1)
			}

			// Identical re-POST: 200, same id, same version, same body.
			r := mustDo(t, e, "POST", list, e.Bot(), body, http.StatusOK)
			wantJSON(t, r.Body, canon(t, mustDo(t, e, "GET", one(id), e.Bot(), nil, 200).Body))
			same := decodeObj(t, r)
			if str(same, "id") != id || str(same, "version") != v1 {
				t.Fatalf("identical re-POST: id %s→%s version %s→%s", id, str(same, "id"), v1, str(same, "version"))
			}

			// A real change: 200, same id, new version; the whole
			// definition is replaced (the options are gone).
			changed := decodeObj(t, mustDo(t, e, "POST", list, e.Bot(), with(chat("echo"), "description", "Echo v2"), http.StatusOK))
			if str(changed, "id") != id || str(changed, "version") == v1 {
				t.Fatalf("changed re-POST: %v", changed)
			}
			if mustID(t, str(changed, "version")) <= mustID(t, v1) {
				t.Fatalf("version did not increase: %s -> %s", v1, str(changed, "version"))
			}
			got := decodeObj(t, mustDo(t, e, "GET", one(id), e.Bot(), nil, 200))
			if got["description"] != "Echo v2" || got["options"] != nil || got["version"] != changed["version"] {
				t.Fatalf("stored after upsert: %v", got)
			}
			if l := decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200)); len(l) != 1 {
				t.Fatalf("upsert created a second command: %v", l)
			}
		})
	}
}

// TestUniqueness covers examples 1–7 of spec §1: a name is unique per
// application, per type, per scope.
func TestUniqueness(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	op := pathsFor("/api/v10", other)
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))

	globalChat := create(t, e, p.global(), e.Bot(), chat("dup"))
	cases := []struct {
		name       string
		path, auth string
		body       jsonObj
		status     int
		sameAs     jsonObj // when set, the response must carry this id
	}{
		{"1 global CHAT_INPUT twice is one command", p.global(), e.Bot(), chat("dup"), 200, globalChat},
		{"4 guild CHAT_INPUT may reuse a global name", p.guildCmds(), e.Bot(), chat("dup"), 201, nil},
		{"2 guild CHAT_INPUT twice in one guild is one command", p.guildCmds(), e.Bot(), chat("dup"), 200, nil},
		{"another guild is another scope", p.withGuild(g2).guildCmds(), e.Bot(), chat("dup"), 201, nil},
		{"5 global USER may reuse a CHAT_INPUT name", p.global(), e.Bot(), userCmd("dup"), 201, nil},
		{"3 global USER twice is one command", p.global(), e.Bot(), userCmd("dup"), 200, nil},
		{"global MESSAGE may reuse the name too", p.global(), e.Bot(), msgCmd("dup"), 201, nil},
		{"7 another app may use the same name", op.global(), "Bot " + other.BotToken, chat("dup"), 201, nil},
		{"7 another app, guild scope", op.guildCmds(), "Bot " + other.BotToken, chat("dup"), 201, nil},
	}
	ids := map[string]bool{}
	for _, c := range cases {
		r := mustDo(t, e, "POST", c.path, c.auth, c.body, c.status)
		got := decodeObj(t, r)
		if c.sameAs != nil && got["id"] != c.sameAs["id"] {
			t.Errorf("%s: id %v, want %v", c.name, got["id"], c.sameAs["id"])
		}
		if c.status == 201 {
			if ids[str(got, "id")] {
				t.Errorf("%s: id %v reused", c.name, got["id"])
			}
			ids[str(got, "id")] = true
		}
	}

	// 6: no PRIMARY_ENTRY_POINT guild command, by create or bulk.
	entry := jsonObj{"type": 4, "name": "Launch"}
	entryErr := "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_GUILD_INVALID"
	entryMsg := "Primary entry point commands cannot be guild commands"
	wantError(t, mustDo(t, e, "POST", p.guildCmds(), e.Bot(), entry, 400), 400, formError(leaf{"type", entryErr, entryMsg}))
	wantError(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), []jsonObj{chat("dup"), entry}, 400), 400,
		formError(leaf{"1.type", entryErr, entryMsg}))

	// Final state of each scope.
	wantNames := func(path, auth string, want ...string) {
		t.Helper()
		got := names(decodeList(t, mustDo(t, e, "GET", path, auth, nil, 200)))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: names %v, want %v", path, got, want)
		}
	}
	wantNames(p.global(), e.Bot(), "dup", "dup", "dup")
	wantNames(p.guildCmds(), e.Bot(), "dup")
	wantNames(p.withGuild(g2).guildCmds(), e.Bot(), "dup")
	wantNames(op.global(), "Bot "+other.BotToken, "dup")
	wantNames(op.guildCmds(), "Bot "+other.BotToken, "dup")
}

// ---- get, list, edit, delete ----

func TestGetAndListScopes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))
	global := create(t, e, p.global(), e.Bot(), chat("a"))
	local := create(t, e, p.guildCmds(), e.Bot(), chat("b"))
	user := create(t, e, p.global(), e.Bot(), userCmd("Show Profile"))

	if user["description"] != "" {
		t.Errorf("USER command description %v, want \"\"", user["description"])
	}
	if user["guild_id"] != nil || local["guild_id"] != e.App.GuildID {
		t.Errorf("guild_id: user %v local %v", user["guild_id"], local["guild_id"])
	}
	// dm_permission is a global-only field; guild commands default their
	// install fields as the guild bulk overwrite documents.
	if _, ok := local["dm_permission"]; ok || global["dm_permission"] != true {
		t.Errorf("dm_permission: global %v local %v", global["dm_permission"], local["dm_permission"])
	}
	wantJSON(t, mustMarshal([]any{local["integration_types"], local["contexts"]}), `[[0],[0,1,2]]`)
	wantJSON(t, mustMarshal([]any{global["integration_types"], global["contexts"]}), `[[0,1],null]`)
	// Ids only resolve in their own scope.
	cases := []struct {
		path   string
		status int
	}{
		{p.globalCmd(str(global, "id")), 200},
		{p.globalCmd(str(user, "id")), 200},
		{p.guildCmd(str(local, "id")), 200},
		{p.globalCmd(str(local, "id")), 404},
		{p.guildCmd(str(global, "id")), 404},
		{p.withGuild(g2).guildCmd(str(local, "id")), 404},
		{p.globalCmd("1234567890123456789"), 404},
		{p.globalCmd("0"), 404},
	}
	for _, c := range cases {
		r := mustDo(t, e, "GET", c.path, e.Bot(), nil, c.status)
		if c.status == 404 {
			wantError(t, r, 404, bodyUnknownCommand)
		}
	}
	// Lists are ordered by id and hold exactly the scope's commands.
	if got := names(decodeList(t, mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200))); !reflect.DeepEqual(got, []string{"a", "Show Profile"}) {
		t.Errorf("global list %v", got)
	}
	if got := names(decodeList(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200))); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("guild list %v", got)
	}
	if r := mustDo(t, e, "GET", p.withGuild(g2).guildCmds(), e.Bot(), nil, 200); string(r.Body) != "[]" {
		t.Errorf("empty guild list %s", r.Body)
	}
	if r := mustDo(t, e, "GET", p.withGuild(g2).guildCmds()+"?with_localizations=true", e.Bot(), nil, 200); string(r.Body) != "[]" {
		t.Errorf("empty guild list with localizations %s", r.Body)
	}
	wantError(t, mustDo(t, e, "GET", p.global()+"?with_localizations=maybe", e.Bot(), nil, 400), 400,
		formError(leaf{"with_localizations", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."}))
}

func TestPatch(t *testing.T) {
	t.Parallel()
	type step struct {
		patch   any
		status  int
		check   func(t *testing.T, before, after jsonObj)
		errBody string
	}
	unchangedVersion := func(t *testing.T, before, after jsonObj) {
		if after["version"] != before["version"] {
			t.Errorf("version changed on a no-op: %v -> %v", before["version"], after["version"])
		}
	}
	opts := []jsonObj{{"type": 3, "name": "q", "description": "Query"}}
	cases := []struct {
		name  string
		guild bool
		steps []step
	}{
		{"empty body is a no-op", false, []step{{jsonObj{}, 200, unchangedVersion, ""}}},
		{"same values are a no-op", false, []step{{jsonObj{"name": "cmd", "description": "Does cmd"}, 200, unchangedVersion, ""}}},
		{"description replaced, rest kept", false, []step{{jsonObj{"description": "New"}, 200, func(t *testing.T, b, a jsonObj) {
			if a["description"] != "New" || a["name"] != "cmd" || a["version"] == b["version"] || a["id"] != b["id"] {
				t.Errorf("after: %v", a)
			}
			if !reflect.DeepEqual(a["options"], b["options"]) {
				t.Errorf("options changed: %v -> %v", b["options"], a["options"])
			}
		}, ""}}},
		{"options replaced entirely", true, []step{{jsonObj{"options": opts}, 200, func(t *testing.T, b, a jsonObj) {
			wantJSON(t, mustMarshal(a["options"]), `[{"type":3,"name":"q","description":"Query"}]`)
		}, ""}}},
		{"options emptied", false, []step{{jsonObj{"options": []any{}}, 200, func(t *testing.T, b, a jsonObj) {
			if _, ok := a["options"]; ok {
				t.Errorf("options still there: %v", a["options"])
			}
		}, ""}}},
		{"default_member_permissions set then cleared", false, []step{
			{jsonObj{"default_member_permissions": "32"}, 200, func(t *testing.T, b, a jsonObj) {
				if a["default_member_permissions"] != "32" {
					t.Errorf("dmp %v", a["default_member_permissions"])
				}
			}, ""},
			{jsonObj{"default_member_permissions": nil}, 200, func(t *testing.T, b, a jsonObj) {
				if v, ok := a["default_member_permissions"]; !ok || v != nil {
					t.Errorf("dmp %v (present %v)", v, ok)
				}
			}, ""},
		}},
		{"localizations replaced and removed", false, []step{
			{jsonObj{"name_localizations": jsonObj{"de": "befehl"}}, 200, func(t *testing.T, b, a jsonObj) {
				wantJSON(t, mustMarshal(a["name_localizations"]), `{"de":"befehl"}`)
			}, ""},
			{jsonObj{"name_localizations": nil}, 200, func(t *testing.T, b, a jsonObj) {
				if a["name_localizations"] != nil {
					t.Errorf("name_localizations %v", a["name_localizations"])
				}
			}, ""},
		}},
		{"global-only fields on a global command", false, []step{{jsonObj{"contexts": []int{0}, "integration_types": []int{0}, "dm_permission": false, "nsfw": true}, 200,
			func(t *testing.T, b, a jsonObj) {
				wantJSON(t, mustMarshal([]any{a["contexts"], a["integration_types"], a["dm_permission"], a["nsfw"]}), `[[0],[0],false,true]`)
			}, ""}}},
		{"invalid name is a field error", false, []step{{jsonObj{"name": "Bad Name"}, 400, nil,
			formError(leaf{"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"})}}},
		{"too long description is a field error", true, []step{{jsonObj{"description": string(make([]byte, 101))}, 400, nil,
			formError(leaf{"description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."})}}},
		{"body must be an object", false, []step{{[]any{}, 400, nil,
			formError(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})}}},
		{"malformed JSON", false, []step{{"{", 400, nil, bodyInvalidJSON}}},
		{"a guild command cannot become an entry point", true, []step{{jsonObj{"type": 4}, 400, nil, formError(
			leaf{"type", "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_GUILD_INVALID", "Primary entry point commands cannot be guild commands"},
			leaf{"options", "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_OPTIONS_INVALID", "Primary entry point commands cannot have options"})}}},
		{"null name is a missing name", false, []step{{jsonObj{"name": nil}, 400, nil,
			formError(leaf{"name", "BASE_TYPE_REQUIRED", msgRequired})}}},
		{"global-only fields are ignored on a guild command", true, []step{{jsonObj{"contexts": []int{1}, "dm_permission": false}, 200, unchangedVersion, ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list, one := p.global(), p.globalCmd
			if c.guild {
				list, one = p.guildCmds(), p.guildCmd
			}
			before := create(t, e, list, e.Bot(), with(chat("cmd"), "options", []jsonObj{{"type": 5, "name": "flag", "description": "A flag"}}))
			id := str(before, "id")
			for _, s := range c.steps {
				snap := snapshot(t, e, list)
				r := mustDo(t, e, "PATCH", one(id), e.Bot(), s.patch, s.status)
				if s.errBody != "" {
					wantError(t, r, s.status, s.errBody)
					wantUnchanged(t, e, list, snap)
					continue
				}
				after := decodeObj(t, r)
				// The stored command is what PATCH returned.
				wantJSON(t, mustDo(t, e, "GET", one(id), e.Bot(), nil, 200).Body, string(r.Body))
				s.check(t, before, after)
				before = after
			}
		})
	}
}

func TestPatchRename(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	a := create(t, e, p.guildCmds(), e.Bot(), chat("alpha"))
	b := create(t, e, p.guildCmds(), e.Bot(), chat("beta"))
	u := create(t, e, p.guildCmds(), e.Bot(), userCmd("beta"))
	perms := jsonObj{"permissions": []jsonObj{{"id": e.App.OwnerUserID, "type": 2, "permission": true}}}
	for _, c := range []jsonObj{a, b} {
		mustDo(t, e, "PUT", p.cmdPerms(str(c, "id")), e.Owner(), perms, 200)
	}

	// Onto an existing name of the same type: 40041, nothing changes.
	snap := snapshot(t, e, p.guildCmds())
	wantError(t, mustDo(t, e, "PATCH", p.guildCmd(str(a, "id")), e.Bot(), jsonObj{"name": "beta"}, 400), 400, bodyNameExists)
	// A USER command keeps its own name, shared with a CHAT_INPUT one.
	mustDo(t, e, "PATCH", p.guildCmd(str(u, "id")), e.Bot(), jsonObj{"name": "beta"}, 200)
	wantUnchanged(t, e, p.guildCmds(), snap)
	mustDo(t, e, "GET", p.cmdPerms(str(a, "id")), e.Bot(), nil, 200)

	// A rename keeps the id, bumps the version and drops the permissions.
	r := decodeObj(t, mustDo(t, e, "PATCH", p.guildCmd(str(a, "id")), e.Bot(), jsonObj{"name": "gamma"}, 200))
	if r["id"] != a["id"] || r["version"] == a["version"] || r["name"] != "gamma" {
		t.Fatalf("rename: %v", r)
	}
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(str(a, "id")), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	// A non-rename edit keeps them.
	mustDo(t, e, "PATCH", p.guildCmd(str(b, "id")), e.Bot(), jsonObj{"description": "Other"}, 200)
	mustDo(t, e, "GET", p.cmdPerms(str(b, "id")), e.Bot(), nil, 200)
	// A USER command may take a CHAT_INPUT command's freed name.
	mustDo(t, e, "PATCH", p.guildCmd(str(u, "id")), e.Bot(), jsonObj{"name": "alpha"}, 200)
}

func TestPatchDeleteUnknown(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g := create(t, e, p.global(), e.Bot(), chat("g"))
	l := create(t, e, p.guildCmds(), e.Bot(), chat("l"))
	cases := []struct{ method, path string }{
		{"PATCH", p.globalCmd("1234567890123456789")},
		{"DELETE", p.globalCmd("1234567890123456789")},
		{"PATCH", p.guildCmd("1234567890123456789")},
		{"DELETE", p.guildCmd("1234567890123456789")},
		{"PATCH", p.globalCmd(str(l, "id"))},
		{"DELETE", p.globalCmd(str(l, "id"))},
		{"PATCH", p.guildCmd(str(g, "id"))},
		{"DELETE", p.guildCmd(str(g, "id"))},
	}
	for _, c := range cases {
		var body any
		if c.method == "PATCH" {
			body = jsonObj{"description": "x"}
		}
		wantError(t, mustDo(t, e, c.method, c.path, e.Bot(), body, 404), 404, bodyUnknownCommand)
	}
	// Nothing was touched.
	wantJSON(t, mustDo(t, e, "GET", p.globalCmd(str(g, "id")), e.Bot(), nil, 200).Body, string(mustMarshal(g)))
	wantJSON(t, mustDo(t, e, "GET", p.guildCmd(str(l, "id")), e.Bot(), nil, 200).Body, string(mustMarshal(l)))
}

func TestDeleteDropsPermissions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))
	g := create(t, e, p.global(), e.Bot(), chat("g"))
	l := create(t, e, p.guildCmds(), e.Bot(), chat("l"))
	perms := jsonObj{"permissions": []jsonObj{{"id": e.App.OwnerUserID, "type": 2, "permission": true}}}
	for _, path := range []string{p.cmdPerms(str(g, "id")), p.withGuild(g2).cmdPerms(str(g, "id")), p.cmdPerms(str(l, "id"))} {
		mustDo(t, e, "PUT", path, e.Owner(), perms, 200)
	}
	mustDo(t, e, "DELETE", p.globalCmd(str(g, "id")), e.Bot(), nil, 204)
	mustDo(t, e, "DELETE", p.guildCmd(str(l, "id")), e.Bot(), nil, 204)
	for _, path := range []string{p.cmdPerms(str(g, "id")), p.withGuild(g2).cmdPerms(str(g, "id")), p.cmdPerms(str(l, "id"))} {
		wantError(t, mustDo(t, e, "GET", path, e.Bot(), nil, 404), 404, bodyUnknownPerms)
	}
	for _, path := range []string{p.allPerms(), p.withGuild(g2).allPerms()} {
		if r := mustDo(t, e, "GET", path, e.Bot(), nil, 200); string(r.Body) != "[]" {
			t.Errorf("%s: %s", path, r.Body)
		}
	}
	// Re-creating the same name makes a new command without permissions.
	again := create(t, e, p.global(), e.Bot(), chat("g"))
	if again["id"] == g["id"] {
		t.Fatalf("re-created command reused id %v", g["id"])
	}
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(str(again, "id")), e.Bot(), nil, 404), 404, bodyUnknownPerms)
}

// ---- bulk overwrite ----

func TestBulkOverwriteReplacesScope(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list, other := p.global(), p.guildCmds()
			if scope == "guild" {
				list, other = other, list
			}
			untouched := create(t, e, other, e.Bot(), chat("elsewhere"))
			old := create(t, e, list, e.Bot(), chat("old"))
			first := []jsonObj{chat("one"), userCmd("One"), msgCmd("One"), with(chat("two"), "nsfw", true)}
			r1 := mustDo(t, e, "PUT", list, e.Bot(), first, 200)
			res := decodeList(t, r1)
			if got := names(res); !reflect.DeepEqual(got, []string{"one", "One", "One", "two"}) {
				t.Fatalf("result names %v", got)
			}
			// The response is the stored state; old is gone.
			stored := decodeList(t, mustDo(t, e, "GET", list+"?with_localizations=true", e.Bot(), nil, 200))
			if canon(t, mustMarshal(sortByID(stored))) != canon(t, mustMarshal(sortByID(res))) {
				t.Fatalf("stored %v\nresult %v", stored, res)
			}
			for _, c := range stored {
				if c["id"] == old["id"] {
					t.Fatalf("old command survived: %v", c)
				}
			}

			// Same PUT again: byte-identical response (ids and versions kept).
			r2 := mustDo(t, e, "PUT", list, e.Bot(), first, 200)
			if string(r2.Body) != string(r1.Body) {
				t.Fatalf("second PUT differs:\n %s\n %s", r1.Body, r2.Body)
			}

			// Change one, drop two, add one: the others keep id and version.
			second := []jsonObj{with(chat("one"), "description", "Changed"), userCmd("One"), chat("three")}
			res2 := byName(decodeList(t, mustDo(t, e, "PUT", list, e.Bot(), second, 200)))
			before := byName(res)
			if res2["1/one"]["id"] != before["1/one"]["id"] || res2["1/one"]["version"] == before["1/one"]["version"] {
				t.Errorf("changed command: %v -> %v", before["1/one"], res2["1/one"])
			}
			if !reflect.DeepEqual(res2["2/One"], before["2/One"]) {
				t.Errorf("unchanged command changed: %v -> %v", before["2/One"], res2["2/One"])
			}
			if len(res2) != 3 || res2["1/three"] == nil {
				t.Errorf("result %v", res2)
			}
			// Empty list: the scope is empty.
			if r := mustDo(t, e, "PUT", list, e.Bot(), []any{}, 200); string(r.Body) != "[]" {
				t.Fatalf("empty PUT: %s", r.Body)
			}
			if r := mustDo(t, e, "GET", list, e.Bot(), nil, 200); string(r.Body) != "[]" {
				t.Fatalf("after empty PUT: %s", r.Body)
			}
			// The other scope was never touched.
			ol := decodeList(t, mustDo(t, e, "GET", other+"?with_localizations=true", e.Bot(), nil, 200))
			if len(ol) != 1 || canon(t, mustMarshal(ol[0])) != canon(t, mustMarshal(untouched)) {
				t.Fatalf("other scope: %v", ol)
			}
		})
	}
}

// TestBulkOverwriteRoundTrip: PUTting back what GET returned (ids,
// versions, application ids and all, as libraries do) is a no-op.
func TestBulkOverwriteRoundTrip(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	defs := []jsonObj{
		with(chat("full"), "name_localizations", jsonObj{"de": "voll"}, "default_member_permissions", "0", "nsfw", true,
			"options", []jsonObj{
				{"type": 1, "name": "sub", "description": "Sub", "options": []jsonObj{
					{"type": 4, "name": "n", "description": "N", "required": true, "min_value": -5, "max_value": 9007199254740991,
						"choices": []jsonObj{{"name": "five", "value": 5}, {"name": "big", "value": 9007199254740991}}},
					{"type": 10, "name": "x", "description": "X", "min_value": 0.5},
					{"type": 3, "name": "s", "description": "S", "min_length": 0, "max_length": 6000, "autocomplete": true},
					{"type": 7, "name": "c", "description": "C", "channel_types": []int{0, 2}},
				}},
			}),
		userCmd("Inspect User"), msgCmd("Quote Message"),
	}
	for _, list := range []string{p.global(), p.guildCmds()} {
		first := mustDo(t, e, "PUT", list, e.Bot(), defs, 200)
		got := mustDo(t, e, "GET", list+"?with_localizations=true", e.Bot(), nil, 200)
		again := mustDo(t, e, "PUT", list, e.Bot(), got.Body, 200)
		if string(again.Body) != string(first.Body) {
			t.Errorf("%s: round trip changed the commands:\n %s\n %s", list, first.Body, again.Body)
		}
	}
}

func TestBulkOverwriteIDRename(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	res := decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), []jsonObj{chat("a"), chat("b")}, 200))
	a, b := res[0], res[1]
	perms := jsonObj{"permissions": []jsonObj{{"id": e.App.OwnerUserID, "type": 2, "permission": true}}}
	mustDo(t, e, "PUT", p.cmdPerms(str(a, "id")), e.Owner(), perms, 200)
	mustDo(t, e, "PUT", p.cmdPerms(str(b, "id")), e.Owner(), perms, 200)

	// a is renamed to c and b to d through their ids, while a new command,
	// listed first, takes the name b: ids are claimed before names.
	body := []jsonObj{
		chat("b"),
		with(chat("c"), "id", str(a, "id")),
		with(chat("d"), "id", str(b, "id")),
	}
	got := byName(decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), body, 200)))
	if got["1/c"]["id"] != a["id"] || got["1/c"]["version"] == a["version"] {
		t.Errorf("rename a→c: %v (a %v)", got["1/c"], a)
	}
	if got["1/d"]["id"] != b["id"] {
		t.Errorf("rename b→d kept id? %v (b %v)", got["1/d"], b)
	}
	if id := got["1/b"]["id"]; id == a["id"] || id == b["id"] {
		t.Errorf("new b took an existing id %v", id)
	}
	// Renamed commands lose their permissions.
	for _, c := range []jsonObj{a, b} {
		wantError(t, mustDo(t, e, "GET", p.cmdPerms(str(c, "id")), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	}
	// Unchanged definitions keep theirs.
	mustDo(t, e, "PUT", p.cmdPerms(str(got["1/c"], "id")), e.Owner(), perms, 200)
	mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), body, 200)
	mustDo(t, e, "GET", p.cmdPerms(str(got["1/c"], "id")), e.Bot(), nil, 200)
	// An omitted command loses them.
	mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), body[:1], 200)
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(str(got["1/c"], "id")), e.Bot(), nil, 404), 404, bodyUnknownPerms)

	// Two commands swap names through their ids.
	res = decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), []jsonObj{chat("x"), chat("y")}, 200))
	swapped := byName(decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(),
		[]jsonObj{with(chat("y"), "id", str(res[0], "id")), with(chat("x"), "id", str(res[1], "id"))}, 200)))
	if swapped["1/y"]["id"] != res[0]["id"] || swapped["1/x"]["id"] != res[1]["id"] || len(swapped) != 2 {
		t.Fatalf("swap: %v -> %v", res, swapped)
	}
	// An id of another type, or unknown, is a new command.
	res = decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(),
		[]jsonObj{with(userCmd("U"), "id", str(swapped["1/x"], "id")), with(chat("z"), "id", "1234567890123456789")}, 200))
	for _, c := range res {
		if c["id"] == swapped["1/x"]["id"] || c["id"] == "1234567890123456789" {
			t.Fatalf("reused id: %v", c)
		}
	}
	wantError(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), []jsonObj{with(chat("z"), "id", "abc")}, 400), 400,
		formError(leaf{"0.id", "NUMBER_TYPE_COERCE", notSnowflake("abc")}))
}

func TestBulkOverwriteErrors(t *testing.T) {
	t.Parallel()
	users := func(n int) []jsonObj {
		out := make([]jsonObj, n)
		for i := range out {
			out[i] = userCmd(fmt.Sprintf("User %d", i))
		}
		return out
	}
	msgs := func(n int) []jsonObj {
		out := make([]jsonObj, n)
		for i := range out {
			out[i] = msgCmd(fmt.Sprintf("Message %d", i))
		}
		return out
	}
	cat := func(ls ...[]jsonObj) []jsonObj {
		var out []jsonObj
		for _, l := range ls {
			out = append(out, l...)
		}
		return out
	}
	invalidAt3 := chatN("ok", 5)
	invalidAt3[3] = jsonObj{"description": "no name", "options": []jsonObj{{"type": 3, "name": "Upper", "description": "x"}}}
	cases := []struct {
		name   string
		body   any
		status int
		want   string
	}{
		{"131 elements", chatN("c", 131), 400,
			formError(leaf{"", "BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length."})},
		{"131 invalid elements: the length is checked first", make([]any, 131), 400,
			formError(leaf{"", "BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length."})},
		{"101 CHAT_INPUT", chatN("c", 101), 400, bodyMaxCommands(100)},
		{"16 USER", cat(chatN("c", 3), users(16)), 400, bodyMaxCommands(15)},
		{"16 MESSAGE", msgs(16), 400, bodyMaxCommands(15)},
		{"one invalid element", invalidAt3, 400, formError(
			leaf{"3.name", "BASE_TYPE_REQUIRED", msgRequired},
			leaf{"3.options.0.name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"})},
		{"duplicate names: the later one", []jsonObj{chat("x"), userCmd("x"), chat("y"), chat("x")}, 400,
			formError(leaf{"3", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"})},
		{"body is an object", jsonObj{"name": "x"}, 400,
			formError(leaf{"", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{"body is null", "null", 400,
			formError(leaf{"", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{"elements are not objects", []any{"x", nil, chat("ok")}, 400, formError(
			leaf{"0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."},
			leaf{"1", "LIST_ITEM_VALUE_REQUIRED", "List item values of ModelType are required"})},
		{"malformed JSON", "[{", 400, bodyInvalidJSON},
	}
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list := p.global()
			if scope == "guild" {
				list = p.guildCmds()
			}
			// Some state to preserve.
			mustDo(t, e, "PUT", list, e.Bot(), cat(chatN("keep", 2), users(1)), 200)
			snap := snapshot(t, e, list)
			for _, c := range cases {
				r := mustDo(t, e, "PUT", list, e.Bot(), c.body, c.status)
				wantError(t, r, c.status, c.want)
				wantUnchanged(t, e, list, snap)
			}
			// Exactly at the caps is fine: 100 + 15 + 15 = 130.
			r := mustDo(t, e, "PUT", list, e.Bot(), cat(chatN("c", 100), users(15), msgs(15)), 200)
			if n := len(decodeList(t, r)); n != 130 {
				t.Fatalf("%d commands", n)
			}
		})
	}
}

// TestEntryPointBulk: an app with an Activity has a "Launch" entry point;
// a global bulk overwrite that leaves it out is refused.
func TestEntryPointBulk(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app := e.NewApp(bootstrap.AppOptions{Name: "activity", Embedded: true})
	p := pathsFor("/api/v10", app)
	bot := "Bot " + app.BotToken
	l := decodeList(t, mustDo(t, e, "GET", p.global(), bot, nil, 200))
	if len(l) != 1 || l[0]["type"] != 4.0 || l[0]["name"] != "Launch" || l[0]["handler"] != 2.0 {
		t.Fatalf("launch command: %v", l)
	}
	snap := snapshotAs(t, e, p.global(), bot)
	wantError(t, mustDo(t, e, "PUT", p.global(), bot, []jsonObj{chat("x")}, 400), 400, apiError(50240,
		"You cannot remove this app's Entry Point command in a bulk update operation. "+
			"Please include the Entry Point command in your update request or delete it separately."))
	wantUnchangedAs(t, e, p.global(), bot, snap)
	// Keeping it works and keeps its id; a second entry point is over the cap.
	launch := jsonObj{"type": 4, "name": "Launch", "description": "Launch an activity", "handler": 2}
	res := decodeList(t, mustDo(t, e, "PUT", p.global(), bot, []jsonObj{launch, chat("x")}, 200))
	if res[0]["id"] != l[0]["id"] || res[0]["version"] != l[0]["version"] {
		t.Errorf("launch changed: %v -> %v", l[0], res[0])
	}
	wantError(t, mustDo(t, e, "POST", p.global(), bot, jsonObj{"type": 4, "name": "Other"}, 400), 400, bodyMaxCommands(1))
	// Deleting it on its own is allowed.
	mustDo(t, e, "DELETE", p.globalCmd(str(l[0], "id")), bot, nil, 204)
	mustDo(t, e, "PUT", p.global(), bot, []jsonObj{chat("x")}, 200)
}

// ---- limits ----

func TestPerTypeLimitsSingleCreates(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list := p.global()
			if scope == "guild" {
				list = p.guildCmds()
			}
			for i := range 100 {
				create(t, e, list, e.Bot(), chat(fmt.Sprintf("c%d", i)))
			}
			snap := snapshot(t, e, list)
			wantError(t, mustDo(t, e, "POST", list, e.Bot(), chat("c100"), 400), 400, bodyMaxCommands(100))
			wantUnchanged(t, e, list, snap)
			// An upsert of an existing name is not a new command.
			mustDo(t, e, "POST", list, e.Bot(), with(chat("c5"), "description", "changed"), 200)
			// Other types have their own caps.
			for i := range 15 {
				create(t, e, list, e.Bot(), userCmd(fmt.Sprintf("U %d", i)))
				create(t, e, list, e.Bot(), msgCmd(fmt.Sprintf("M %d", i)))
			}
			wantError(t, mustDo(t, e, "POST", list, e.Bot(), userCmd("U 15"), 400), 400, bodyMaxCommands(15))
			wantError(t, mustDo(t, e, "POST", list, e.Bot(), msgCmd("M 15"), 400), 400, bodyMaxCommands(15))
			if scope == "global" {
				create(t, e, list, e.Bot(), jsonObj{"type": 4, "name": "Start"})
				wantError(t, mustDo(t, e, "POST", list, e.Bot(), jsonObj{"type": 4, "name": "Start 2"}, 400), 400, bodyMaxCommands(1))
			}
			// Deleting one frees a slot.
			l := decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200))
			mustDo(t, e, "DELETE", list+"/"+str(l[0], "id"), e.Bot(), nil, 204)
			create(t, e, list, e.Bot(), chat("c100"))
		})
	}
}

// TestDailyCreateLimit: 200 new commands per day per scope; only new names
// count.
func TestDailyCreateLimit(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			dailyCreateLimit(t, scope == "global")
		})
	}
}

func dailyCreateLimit(t *testing.T, global bool) {
	e := testenv.New(t)
	p := v10(e)
	list, other := p.guildCmds(), p.global()
	if global {
		list, other = other, list
	}
	setA, setB := chatN("a", 100), chatN("b", 100)
	mustDo(t, e, "PUT", list, e.Bot(), setA, 200) // 100 creates
	mustDo(t, e, "PUT", list, e.Bot(), setA, 200) // re-PUT: none
	mustDo(t, e, "PUT", list, e.Bot(), setA, 200)
	mustDo(t, e, "PUT", list, e.Bot(), setB, 200) // 200 creates
	mustDo(t, e, "PUT", list, e.Bot(), setB, 200) // still fine: nothing new

	snap := snapshot(t, e, list)
	// A new USER command (under its own cap) is the 201st create.
	wantError(t, mustDo(t, e, "POST", list, e.Bot(), userCmd("New"), 400), 400, bodyDailyCreates)
	// A bulk overwrite with one new name too, and nothing changes.
	wantError(t, mustDo(t, e, "PUT", list, e.Bot(), append(chatN("b", 99), chat("fresh")), 400), 400, bodyDailyCreates)
	wantUnchanged(t, e, list, snap)
	// Upserting an existing name and PATCHing are not creates.
	mustDo(t, e, "POST", list, e.Bot(), with(chat("b-1"), "description", "changed"), 200)
	l := decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200))
	mustDo(t, e, "PATCH", list+"/"+str(l[2], "id"), e.Bot(), jsonObj{"name": "renamed"}, 200)
	// Deleting and re-creating a name is a create.
	mustDo(t, e, "DELETE", list+"/"+str(l[0], "id"), e.Bot(), nil, 204)
	wantError(t, mustDo(t, e, "POST", list, e.Bot(), chat(str(l[0], "name")), 400), 400, bodyDailyCreates)
	// Shrinking by bulk (existing names only) is fine.
	l = decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200))
	keep := make([]jsonObj, 10)
	for i := range keep {
		keep[i] = chat(str(l[i], "name"))
	}
	if got := names(decodeList(t, mustDo(t, e, "PUT", list, e.Bot(), keep, 200))); len(got) != 10 {
		t.Fatalf("after shrinking: %v", got)
	}

	// Other scopes count separately.
	create(t, e, other, e.Bot(), chat("other-scope-ok"))
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))
	create(t, e, p.withGuild(g2).guildCmds(), e.Bot(), chat("other-guild-ok"))
}

// ---- helpers ----

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func sortByID(l []jsonObj) []jsonObj {
	out := append([]jsonObj(nil), l...)
	sort.Slice(out, func(i, j int) bool {
		a, b := str(out[i], "id"), str(out[j], "id")
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	return out
}
