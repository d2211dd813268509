package api_test

import (
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// localizedCommand has dictionaries on the command, an option, a
// subcommand's option and a choice.
func localizedCommand() jsonObj {
	return jsonObj{
		"name":                      "greet",
		"name_localizations":        jsonObj{"de": "gruessen", "en-GB": "greet-gb", "es-ES": "saludar", "fr": "greet"},
		"description":               "Say hello",
		"description_localizations": jsonObj{"de": "Hallo sagen", "en-US": "Say hello (US)", "es-419": "Decir hola (LatAm)", "ja": nil},
		"options": []jsonObj{
			{"type": 3, "name": "who", "description": "Whom",
				"name_localizations":        jsonObj{"de": "wen"},
				"description_localizations": jsonObj{"de": "Wen grüßen", "es-ES": "A quién"},
				"choices":                   []jsonObj{{"name": "World", "value": "world", "name_localizations": jsonObj{"de": "Welt", "en-GB": "World"}}}},
		},
	}
}

func localizedSub() jsonObj {
	return jsonObj{"name": "admin", "description": "Admin", "options": []jsonObj{
		{"type": 1, "name": "ban", "description": "Ban", "name_localizations": jsonObj{"de": "bannen"}, "options": []jsonObj{
			{"type": 6, "name": "user", "description": "User", "description_localizations": jsonObj{"de": "Benutzer"}}}},
	}}
}

func TestLocalizationOnRead(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	for _, list := range []string{p.global(), p.guildCmds()} {
		c := create(t, e, list, e.Bot(), localizedCommand())
		create(t, e, list, e.Bot(), localizedSub())
		// Values identical to the default are dropped on write; null values too.
		if got := canon(t, mustMarshal(c["name_localizations"])); got != `{"de":"gruessen","en-GB":"greet-gb","es-ES":"saludar"}` {
			t.Errorf("stored name_localizations %s", got)
		}
		if got := canon(t, mustMarshal(c["description_localizations"])); got != `{"de":"Hallo sagen","en-US":"Say hello (US)","es-419":"Decir hola (LatAm)"}` {
			t.Errorf("stored description_localizations %s", got)
		}
		choice := c["options"].([]any)[0].(jsonObj)["choices"].([]any)[0].(jsonObj)
		if got := canon(t, mustMarshal(choice["name_localizations"])); got != `{"de":"Welt"}` {
			t.Errorf("stored choice name_localizations %s", got)
		}
	}

	// expected renders the list in one locale: [command, option, choice]
	// name_localized/description_localized values ("" = absent).
	type view struct {
		cmdName, cmdDesc, optName, optDesc, choice, subName, subOptDesc string
	}
	de := view{"gruessen", "Hallo sagen", "wen", "Wen grüßen", "Welt", "bannen", "Benutzer"}
	cases := []struct {
		name string
		hdr  map[string]string
		want view
	}{
		{"X-Discord-Locale", map[string]string{"X-Discord-Locale": "de"}, de},
		{"X-Service-Locale", map[string]string{"X-Service-Locale": "de"}, de},
		{"Accept-Language", map[string]string{"Accept-Language": "de-DE,de;q=0.9"}, de},
		{"Accept-Language by q", map[string]string{"Accept-Language": "fr;q=0.2, de;q=0.9, xx"}, de},
		{"X-Service-Locale before Accept-Language", map[string]string{"X-Service-Locale": "de", "Accept-Language": "es-ES"}, de},
		{"unknown header locale falls through", map[string]string{"X-Discord-Locale": "xx", "Accept-Language": "de"}, de},
		{"en-US falls back to en-GB", map[string]string{"X-Discord-Locale": "en-US"}, view{cmdName: "greet-gb", cmdDesc: "Say hello (US)"}},
		{"en-GB falls back to en-US", map[string]string{"X-Discord-Locale": "en-GB"}, view{cmdName: "greet-gb", cmdDesc: "Say hello (US)"}},
		{"es-419 falls back to es-ES", map[string]string{"X-Discord-Locale": "es-419"}, view{cmdName: "saludar", cmdDesc: "Decir hola (LatAm)", optDesc: "A quién"}},
		{"es-MX is es-419", map[string]string{"Accept-Language": "es-MX"}, view{cmdName: "saludar", cmdDesc: "Decir hola (LatAm)", optDesc: "A quién"}},
		{"es-ES has no fallback", map[string]string{"X-Discord-Locale": "es-ES"}, view{cmdName: "saludar", optDesc: "A quién"}},
		{"locale in no dictionary", map[string]string{"X-Discord-Locale": "ko"}, view{}},
		{"no locale", nil, view{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, list := range []string{p.global(), p.guildCmds()} {
				hdr := map[string]string{"Authorization": e.Bot()}
				for k, v := range c.hdr {
					hdr[k] = v
				}
				r := send(t, e, "GET", list, hdr, nil)
				wantStatus(t, r, 200)
				l := decodeList(t, r)
				if len(l) != 2 {
					t.Fatalf("%d commands", len(l))
				}
				cmd, sub := l[0], l[1]
				opt := cmd["options"].([]any)[0].(jsonObj)
				choice := opt["choices"].([]any)[0].(jsonObj)
				subcmd := sub["options"].([]any)[0].(jsonObj)
				subOpt := subcmd["options"].([]any)[0].(jsonObj)
				got := view{str(cmd, "name_localized"), str(cmd, "description_localized"), str(opt, "name_localized"),
					str(opt, "description_localized"), str(choice, "name_localized"), str(subcmd, "name_localized"),
					str(subOpt, "description_localized")}
				if got != c.want {
					t.Errorf("%s:\n got  %+v\n want %+v", list, got, c.want)
				}
				// Absent means absent, not "" or null; dictionaries are never there.
				checkKeys(t, cmd, c.want.cmdName != "", c.want.cmdDesc != "")
				checkKeys(t, opt, c.want.optName != "", c.want.optDesc != "")
				checkKeys(t, choice, c.want.choice != "", false)
				checkKeys(t, subcmd, c.want.subName != "", false)
				checkKeys(t, subOpt, false, c.want.subOptDesc != "")
				// Default names and descriptions are unchanged.
				if cmd["name"] != "greet" || cmd["description"] != "Say hello" || opt["name"] != "who" || choice["name"] != "World" {
					t.Errorf("defaults changed: %v", cmd)
				}
			}
		})
	}

	// with_localizations=true: the dictionaries, no *_localized, whatever
	// the locale; the same as single GET.
	for _, list := range []string{p.global(), p.guildCmds()} {
		for _, q := range []string{"?with_localizations=true", "?with_localizations=True", "?with_localizations=1"} {
			r := send(t, e, "GET", list+q, map[string]string{"Authorization": e.Bot(), "X-Discord-Locale": "de"}, nil)
			wantStatus(t, r, 200)
			for _, c := range decodeList(t, r) {
				walkObjects(c, func(m jsonObj) {
					for _, k := range []string{"name_localized", "description_localized"} {
						if _, ok := m[k]; ok {
							t.Errorf("%s%s: %s present in %v", list, q, k, m)
						}
					}
				})
				one := mustDo(t, e, "GET", list+"/"+str(c, "id"), e.Bot(), nil, 200)
				wantJSON(t, one.Body, string(mustMarshal(c)))
			}
			full := decodeList(t, r)[0]
			if canon(t, mustMarshal(full["name_localizations"])) != `{"de":"gruessen","en-GB":"greet-gb","es-ES":"saludar"}` {
				t.Errorf("dictionaries: %v", full)
			}
		}
		// Explicit false is the default.
		r := send(t, e, "GET", list+"?with_localizations=false", map[string]string{"Authorization": e.Bot(), "X-Discord-Locale": "de"}, nil)
		if decodeList(t, r)[0]["name_localized"] != "gruessen" {
			t.Errorf("with_localizations=false: %s", r.Body)
		}
	}

	// Single GET returns the dictionaries even with a locale.
	l := decodeList(t, mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200))
	r := send(t, e, "GET", p.globalCmd(str(l[0], "id")), map[string]string{"Authorization": e.Bot(), "X-Discord-Locale": "de"}, nil)
	one := decodeObj(t, r)
	if _, ok := one["name_localized"]; ok || one["name_localizations"] == nil {
		t.Errorf("single GET: %s", r.Body)
	}

	// A Bearer user's settings locale (the bootstrap owner's is en-US)
	// applies when no header names one.
	r = send(t, e, "GET", p.global(), map[string]string{"Authorization": e.Owner()}, nil)
	if got := decodeList(t, r)[0]; got["name_localized"] != "greet-gb" || got["description_localized"] != "Say hello (US)" {
		t.Errorf("owner settings locale: %v", got)
	}
	r = send(t, e, "GET", p.global(), map[string]string{"Authorization": e.Owner(), "X-Discord-Locale": "de"}, nil)
	if got := decodeList(t, r)[0]; got["name_localized"] != "gruessen" {
		t.Errorf("header over settings: %v", got)
	}
}

// TestLocalizationFollowsEdits: list renderings follow every change of a
// command (a cached rendering must never outlive its version).
func TestLocalizationFollowsEdits(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	de := map[string]string{"Authorization": e.Bot(), "X-Discord-Locale": "de"}
	c := create(t, e, p.guildCmds(), e.Bot(), localizedCommand())
	id := str(c, "id")
	get := func() jsonObj {
		t.Helper()
		return decodeList(t, send(t, e, "GET", p.guildCmds(), de, nil))[0]
	}
	if get()["name_localized"] != "gruessen" {
		t.Fatal("initial")
	}
	mustDo(t, e, "PATCH", p.guildCmd(id), e.Bot(), jsonObj{"name_localizations": jsonObj{"de": "gruss"}}, 200)
	if got := get()["name_localized"]; got != "gruss" {
		t.Fatalf("after PATCH: %v", got)
	}
	mustDo(t, e, "POST", p.guildCmds(), e.Bot(), with(localizedCommand(), "name_localizations", jsonObj{"de": "hallo"}), 200)
	if got := get()["name_localized"]; got != "hallo" {
		t.Fatalf("after upsert: %v", got)
	}
	mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), []jsonObj{with(localizedCommand(), "name_localizations", nil)}, 200)
	if got, ok := get()["name_localized"]; ok {
		t.Fatalf("after bulk: %v", got)
	}
	// And the other locales of the same version are distinct renderings.
	if got := decodeList(t, send(t, e, "GET", p.guildCmds(), map[string]string{"Authorization": e.Bot(), "X-Discord-Locale": "en-US"}, nil))[0]; got["description_localized"] != "Say hello (US)" {
		t.Fatalf("en-US: %v", got)
	}
}

func checkKeys(t *testing.T, m jsonObj, name, desc bool) {
	t.Helper()
	for k, want := range map[string]bool{"name_localized": name, "description_localized": desc} {
		if _, ok := m[k]; ok != want {
			t.Errorf("%s present=%v, want %v in %v", k, ok, want, m)
		}
	}
	for _, k := range []string{"name_localizations", "description_localizations"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s in a list item: %v", k, m)
		}
	}
}

func walkObjects(v any, fn func(jsonObj)) {
	switch x := v.(type) {
	case jsonObj:
		fn(x)
		for _, vv := range x {
			walkObjects(vv, fn)
		}
	case []any:
		for _, vv := range x {
			walkObjects(vv, fn)
		}
	}
}
