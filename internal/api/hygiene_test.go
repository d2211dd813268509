package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

func TestMalformedBodies(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g := str(create(t, e, p.global(), e.Bot(), chat("g")), "id")
	l := str(create(t, e, p.guildCmds(), e.Bot(), chat("l")), "id")
	snapG, snapL := snapshot(t, e, p.global()), snapshot(t, e, p.guildCmds())
	writes := []endpoint{
		{"POST", p.global(), nil},
		{"PUT", p.global(), nil},
		{"PATCH", p.globalCmd(g), nil},
		{"POST", p.guildCmds(), nil},
		{"PUT", p.guildCmds(), nil},
		{"PATCH", p.guildCmd(l), nil},
		{"PUT", p.cmdPerms(l), nil},
	}
	auth := func(ep endpoint) string {
		if ep.permsPut() {
			return e.Owner()
		}
		return e.Bot()
	}
	invalidJSON := []string{"{", "[", `{"name": "x",}`, `{"name": 'x'}`, `{"name":"x"} {}`, `{"name":"x"}]`, "nul", "\xff", ""}
	ctCases := []struct{ ct, body string }{
		{"text/plain", `{"name":"x","description":"y"}`},
		{"application/x-www-form-urlencoded", "name=x&description=y"},
		{"multipart/form-data; boundary=x", "--x--"},
		{"application/jsonx", `{}`},
		{"json", `{}`},
		{";;;", `{}`},
	}
	for _, ep := range writes {
		t.Run(ep.String(), func(t *testing.T) {
			for _, b := range invalidJSON {
				r := send(t, e, ep.method, ep.path, map[string]string{"Authorization": auth(ep), "Content-Type": "application/json"}, []byte(b))
				wantError(t, r, 400, bodyInvalidJSON)
			}
			for _, c := range ctCases {
				r := send(t, e, ep.method, ep.path, map[string]string{"Authorization": auth(ep), "Content-Type": c.ct}, []byte(c.body))
				wantError(t, r, 400, formError(leaf{"", "CONTENT_TYPE_INVALID",
					`Expected "Content-Type" header to be one of {'application/json'}.`}))
			}
		})
	}
	wantUnchanged(t, e, p.global(), snapG)
	wantUnchanged(t, e, p.guildCmds(), snapL)
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(l), e.Bot(), nil, 404), 404, bodyUnknownPerms)

	// JSON content types with parameters or odd case are JSON; so is a
	// body sent without any Content-Type.
	for i, ct := range []string{"application/json; charset=utf-8", "Application/JSON", ""} {
		hdr := map[string]string{"Authorization": e.Bot()}
		if ct != "" {
			hdr["Content-Type"] = ct
		}
		name := []string{"ct-a", "ct-b", "ct-c"}[i]
		r := send(t, e, "POST", p.global(), hdr, mustMarshal(chat(name)))
		wantStatus(t, r, 201)
	}
}

func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.MaxBodyBytes = 2048 })
	p := v10(e)
	big := with(chat("big"), "description", "x", "name_localizations", jsonObj{"de": strings.Repeat("a", 3000)})
	bigList := []jsonObj{big}
	id := str(create(t, e, p.guildCmds(), e.Bot(), chat("small")), "id")
	snap := snapshot(t, e, p.guildCmds())
	for _, c := range []struct {
		method, path, auth string
		body               any
	}{
		{"POST", p.global(), e.Bot(), big},
		{"POST", p.guildCmds(), e.Bot(), big},
		{"PUT", p.global(), e.Bot(), bigList},
		{"PUT", p.guildCmds(), e.Bot(), bigList},
		{"PATCH", p.guildCmd(id), e.Bot(), big},
		{"PUT", p.cmdPerms(id), e.Owner(), jsonObj{"permissions": []jsonObj{}, "pad": strings.Repeat("x", 4096)}},
	} {
		r := mustDo(t, e, c.method, c.path, c.auth, c.body, 413)
		wantError(t, r, 413, apiError(40005, "Request entity too large"))
	}
	wantUnchanged(t, e, p.guildCmds(), snap)
	if r := mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200); string(r.Body) != "[]" {
		t.Fatalf("global: %s", r.Body)
	}
	// Just under the cap is fine.
	mustDo(t, e, "POST", p.global(), e.Bot(), chat("fits"), 201)
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	id := str(create(t, e, p.guildCmds(), e.Bot(), chat("x")), "id")
	notFound := []string{
		"/",
		"/api",
		"/api/v10",
		"/api/v10/nope",
		"/api/v10/applications",
		"/api/v10/applications/" + e.App.ApplicationID,
		"/api/v10/applications/" + e.App.ApplicationID + "/commandz",
		"/api/v10/applications/" + e.App.ApplicationID + "/commands/",
		"/api/v10/applications/" + e.App.ApplicationID + "/guilds/" + e.App.GuildID,
		"/api/v10/applications/" + e.App.ApplicationID + "/guilds/" + e.App.GuildID + "/commands/" + id + "/permissions/x",
		"/api/v11/applications/" + e.App.ApplicationID + "/commands",
		"/v10/applications/" + e.App.ApplicationID + "/commands",
	}
	for _, path := range notFound {
		for _, a := range []string{"", e.Bot()} {
			wantError(t, mustDo(t, e, "GET", path, a, nil, 404), 404, bodyNotFound)
		}
	}
	wrong := []struct {
		method, path, allow string
	}{
		{"DELETE", p.global(), "GET, POST, PUT"},
		{"PATCH", p.global(), "GET, POST, PUT"},
		{"POST", p.globalCmd(id), "GET, PATCH, DELETE"},
		{"PUT", p.globalCmd(id), "GET, PATCH, DELETE"},
		{"DELETE", p.guildCmds(), "GET, POST, PUT"},
		{"POST", p.guildCmd(id), "GET, PATCH, DELETE"},
		// PATCH and DELETE on …/commands/permissions reach the {command_id}
		// routes (and fail its snowflake check), so Allow is not asserted.
		{"POST", p.allPerms(), ""},
		{"DELETE", p.cmdPerms(id), "GET, PUT"},
		{"PATCH", p.cmdPerms(id), "GET, PUT"},
		{"GET", "/api/v10/oauth2/token", "POST"},
		{"PUT", "/api/oauth2/token", "POST"},
		{"DELETE", strings.Replace(p.global(), "/api/v10", "/api/v9", 1), "GET, POST, PUT"},
	}
	for _, w := range wrong {
		for _, a := range []string{"", e.Bot()} {
			r := mustDo(t, e, w.method, w.path, a, nil, 405)
			wantError(t, r, 405, bodyMethod)
			if got := r.Header.Get("Allow"); w.allow != "" && got != w.allow {
				t.Errorf("%s %s: Allow %q, want %q", w.method, w.path, got, w.allow)
			}
		}
	}
	mustDo(t, e, "GET", "/healthz", "", nil, 200)
}

// TestDiscordgoStyleBodies: the JSON discordgo v0.29 sends (nulls for
// unset lists, false for unset booleans, no "type", "options": null)
// is accepted as the defaults.
func TestDiscordgoStyleBodies(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	bodies := []string{
		`{"name":"plain","description":"Plain","options":null}`,
		`{"name":"opts","description":"With options","options":[
			{"type":3,"name":"text","description":"Text","channel_types":null,"required":true,"options":null,"autocomplete":false,"choices":null},
			{"type":4,"name":"n","description":"N","channel_types":null,"required":false,"options":null,"autocomplete":false,
			 "choices":[{"name":"one","value":1},{"name":"two","value":2}],"min_value":0},
			{"type":7,"name":"chan","description":"Channel","channel_types":[0,5],"required":false,"options":null,"autocomplete":false,"choices":null}
		]}`,
		`{"name":"sub","description":"Subcommands","options":[
			{"type":1,"name":"run","description":"Run","channel_types":null,"required":false,"autocomplete":false,"choices":null,"options":[
				{"type":5,"name":"fast","description":"Fast","channel_types":null,"required":false,"options":null,"autocomplete":false,"choices":null}]}
		]}`,
		`{"type":2,"name":"Inspect","options":null}`,
		`{"type":3,"name":"Quote","default_member_permissions":"8","dm_permission":false,"nsfw":true,"options":null}`,
	}
	want := []string{
		`{"name":"plain","description":"Plain","type":1}`,
		`{"name":"opts","description":"With options","type":1,"options":[
			{"type":3,"name":"text","description":"Text","required":true},
			{"type":4,"name":"n","description":"N","choices":[{"name":"one","value":1},{"name":"two","value":2}],"min_value":0},
			{"type":7,"name":"chan","description":"Channel","channel_types":[0,5]}]}`,
		`{"name":"sub","description":"Subcommands","type":1,"options":[
			{"type":1,"name":"run","description":"Run","options":[{"type":5,"name":"fast","description":"Fast"}]}]}`,
		`{"name":"Inspect","description":"","type":2}`,
		`{"name":"Quote","description":"","type":3,"default_member_permissions":"8","dm_permission":false,"nsfw":true}`,
	}
	for i, b := range bodies {
		for _, list := range []string{p.global(), p.guildCmds()} {
			r := mustDo(t, e, "POST", list, e.Bot(), b, 201)
			got := decodeObj(t, r)
			// Compare the fields the body set; options compared whole.
			var w jsonObj
			if err := jsonUnmarshal([]byte(want[i]), &w); err != nil {
				t.Fatal(err)
			}
			for k, v := range w {
				if k == "dm_permission" && list == p.guildCmds() {
					continue // global only
				}
				if canon(t, mustMarshal(got[k])) != canon(t, mustMarshal(v)) {
					t.Errorf("%s body %d: %s = %s, want %s", list, i, k, mustMarshal(got[k]), mustMarshal(v))
				}
			}
			if _, ok := w["options"]; !ok {
				if _, has := got["options"]; has {
					t.Errorf("%s body %d: options %v", list, i, got["options"])
				}
			}
		}
	}
	// The same bodies, bulk: accepted, and a second identical PUT is a no-op.
	bulk := "[" + strings.Join(bodies, ",") + "]"
	first := mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), bulk, 200)
	second := mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), bulk, 200)
	if !bytes.Equal(first.Body, second.Body) {
		t.Fatalf("second PUT differs:\n %s\n %s", first.Body, second.Body)
	}
}

// TestResponseHeaders: every response, whatever its status, is JSON and
// carries a Date.
func TestResponseHeaders(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.MaxBodyBytes = 1024 })
	p := v10(e)
	id := str(create(t, e, p.guildCmds(), e.Bot(), chat("x")), "id")
	cases := []struct {
		method, path, auth string
		body               any
		status             int
	}{
		{"GET", p.global(), e.Bot(), nil, 200},
		{"POST", p.global(), e.Bot(), chat("y"), 201},
		{"DELETE", p.guildCmd(id), e.Bot(), nil, 204},
		{"POST", p.global(), e.Bot(), jsonObj{}, 400},
		{"POST", p.global(), e.Bot(), "{", 400},
		{"GET", p.global(), "", nil, 401},
		{"PUT", p.cmdPerms(id), e.Bot(), permsBody(), 403},
		{"GET", p.guildCmd(id), e.Bot(), nil, 404},
		{"GET", "/api/v10/nope", "", nil, 404},
		{"DELETE", p.global(), e.Bot(), nil, 405},
		{"PUT", p.allPerms(), e.Bot(), []any{}, 405},
		{"POST", p.global(), e.Bot(), strings.Repeat(" ", 2000), 413},
		{"POST", "/api/v10/oauth2/token", "", nil, 401},
		{"GET", "/healthz", "", nil, 200},
	}
	for _, c := range cases {
		r := mustDo(t, e, c.method, c.path, c.auth, c.body, c.status)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" && r.Status != http.StatusNoContent {
			t.Errorf("%s %s (%d): Content-Type %q", c.method, c.path, r.Status, ct)
		}
		if d := r.Header.Get("Date"); d == "" {
			t.Errorf("%s %s (%d): no Date", c.method, c.path, r.Status)
		} else if _, err := http.ParseTime(d); err != nil {
			t.Errorf("%s %s: Date %q: %v", c.method, c.path, d, err)
		}
	}
}

// TestValidationThroughHTTP: a sample of definition rules, end to end,
// with their exact error trees, on create (global and guild), bulk (under
// the element index) and PATCH.
func TestValidationThroughHTTP(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	existing := str(create(t, e, p.global(), e.Bot(), chat("existing")), "id")
	cases := []struct {
		name   string
		body   jsonObj
		leaves []leaf
	}{
		{"missing name and description", jsonObj{}, []leaf{{"name", "BASE_TYPE_REQUIRED", msgRequired}, {"description", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"uppercase name", chat("Ping"), []leaf{{"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}}},
		{"name with a space", chat("two words"), []leaf{{"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}}},
		{"name too long", chat(strings.Repeat("a", 33)), []leaf{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."}}},
		{"type as a word", with(chat("x"), "type", "CHAT_INPUT"), []leaf{{"type", "NUMBER_TYPE_COERCE", `Value "CHAT_INPUT" is not int.`}}},
		{"unknown type", with(chat("x"), "type", 9), []leaf{{"type", "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4)."}}},
		{"context menu with description", with(userCmd("User"), "description", "no"),
			[]leaf{{"description", "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID", "Context menu commands cannot have description"}}},
		{"required after optional", with(chat("x"), "options", []jsonObj{
			{"type": 3, "name": "a", "description": "A"}, {"type": 3, "name": "b", "description": "B", "required": true}}),
			[]leaf{{"options.1", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options"}}},
		{"26 options", with(chat("x"), "options", func() []jsonObj {
			o := make([]jsonObj, 26)
			for i := range o {
				o[i] = jsonObj{"type": 3, "name": "o" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), "description": "d"}
			}
			return o
		}()), []leaf{{"options", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."}}},
		{"bad locale key", with(chat("x"), "name_localizations", jsonObj{"xx": "y"}), []leaf{{"name_localizations.xx", "BASE_TYPE_CHOICES",
			"Value must be one of ('id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR', 'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko', 'ar', 'he')."}}},
		{"invalid localized name", with(chat("x"), "name_localizations", jsonObj{"de": "Groß"}),
			[]leaf{{"name_localizations", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}}},
		{"too large", with(chat("x"), "description", strings.Repeat("d", 100), "options", func() []jsonObj {
			o := make([]jsonObj, 25)
			for i := range o {
				ch := make([]jsonObj, 25)
				for j := range ch {
					ch[j] = jsonObj{"name": strings.Repeat("n", 100), "value": strings.Repeat("v", 100)}
				}
				o[i] = jsonObj{"type": 3, "name": "o" + string(rune('a'+i)), "description": strings.Repeat("d", 100), "choices": ch}
			}
			return o
		}()), []leaf{{"", "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (8000)"}}},
	}
	snap := snapshot(t, e, p.global())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, list := range []string{p.global(), p.guildCmds()} {
				wantError(t, mustDo(t, e, "POST", list, e.Bot(), c.body, 400), 400, formError(c.leaves...))
			}
			// In a bulk overwrite, the same errors sit under the index.
			bulkLeaves := make([]leaf, len(c.leaves))
			for i, l := range c.leaves {
				bulkLeaves[i] = leaf{strings.TrimSuffix("1."+l.path, "."), l.code, l.msg}
			}
			wantError(t, mustDo(t, e, "PUT", p.global(), e.Bot(), []jsonObj{chat("existing"), c.body}, 400), 400, formError(bulkLeaves...))
			// PATCH lays the body over the stored command: only the keys
			// it sets are checked (missing ones are the stored ones).
			if len(c.body) > 0 && c.body["type"] == nil {
				r := mustDo(t, e, "PATCH", p.globalCmd(existing), e.Bot(), c.body, 400)
				if r.Status != 400 || decodeObj(t, r)["code"] != 50035.0 {
					t.Fatalf("PATCH: %s", describe(r))
				}
			}
		})
	}
	wantUnchanged(t, e, p.global(), snap)
}
