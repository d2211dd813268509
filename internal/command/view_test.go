package command_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/command"
)

func localizedFixture(t *testing.T) command.Command {
	t.Helper()
	body := `{"name":"color","description":"Pick a color",` +
		`"name_localizations":{"en-GB":"colour","de":"farbe","es-ES":"color-es"},` +
		`"description_localizations":{"en-US":"Pick a color!","de":"Wähle eine Farbe"},` +
		`"options":[{"type":1,"name":"pick","description":"Pick","name_localizations":{"de":"waehlen"},` +
		`"options":[{"type":3,"name":"which","description":"Which one","description_localizations":{"es-ES":"Cuál"},` +
		`"choices":[{"name":"Red","value":"red","name_localizations":{"de":"Rot","en-GB":"Reddish"}},{"name":"Blue","value":"blue"}]}]}]}`
	c := mustParse(t, body, global).Command
	c.ID, c.Version = 11, 12
	return c
}

func TestLocalized(t *testing.T) {
	c := localizedFixture(t)
	for _, tc := range []struct {
		locale string
		want   string
	}{
		{"de", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","name_localized":"farbe",` +
			`"description":"Pick a color","description_localized":"Wähle eine Farbe",` +
			`"options":[{"type":1,"name":"pick","name_localized":"waehlen","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one",` +
			`"choices":[{"name":"Red","name_localized":"Rot","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
		// en-US has only a description; its name falls back to en-GB.
		{"en-US", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","name_localized":"colour",` +
			`"description":"Pick a color","description_localized":"Pick a color!",` +
			`"options":[{"type":1,"name":"pick","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one",` +
			`"choices":[{"name":"Red","name_localized":"Reddish","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
		// en-GB has a name; its description falls back to en-US.
		{"en-GB", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","name_localized":"colour",` +
			`"description":"Pick a color","description_localized":"Pick a color!",` +
			`"options":[{"type":1,"name":"pick","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one",` +
			`"choices":[{"name":"Red","name_localized":"Reddish","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
		// es-419 falls back to es-ES.
		{"es-419", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","name_localized":"color-es",` +
			`"description":"Pick a color",` +
			`"options":[{"type":1,"name":"pick","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one","description_localized":"Cuál",` +
			`"choices":[{"name":"Red","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
		// No locale, or one absent from every dictionary: no *_localized.
		{"", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","description":"Pick a color",` +
			`"options":[{"type":1,"name":"pick","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one",` +
			`"choices":[{"name":"Red","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
		{"ja", `{"id":"11","type":1,"application_id":"1000000000000000001","name":"color","description":"Pick a color",` +
			`"options":[{"type":1,"name":"pick","description":"Pick",` +
			`"options":[{"type":3,"name":"which","description":"Which one",` +
			`"choices":[{"name":"Red","value":"red"},{"name":"Blue","value":"blue"}]}]}],` +
			`"default_member_permissions":null,"dm_permission":true,"default_permission":true,"nsfw":false,` +
			`"integration_types":[0,1],"contexts":null,"version":"12"}`},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			item := command.Localized(&c, tc.locale)
			got, err := json.Marshal(item)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, string(got), tc.want) {
				t.Fatalf("Localized(%q)\n got %s\nwant %s", tc.locale, got, tc.want)
			}
		})
	}
}

// TestLocalizedNoDictionaries: a list item never carries the full
// dictionaries, and es-ES does not fall back to es-419.
func TestLocalizedNoDictionaries(t *testing.T) {
	c := mustParse(t, `{"name":"x","description":"d","name_localizations":{"es-419":"equis"}}`, guild).Command
	got, _ := json.Marshal(command.Localized(&c, "es-ES"))
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name_localizations", "description_localizations", "name_localized"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present: %s", k, got)
		}
	}
	if m["guild_id"] != "2000000000000000002" {
		t.Errorf("guild_id = %v", m["guild_id"])
	}
	item := command.Localized(&c, "es-419")
	if item.NameLocalized == nil || *item.NameLocalized != "equis" {
		t.Errorf("es-419 name_localized = %v", item.NameLocalized)
	}
}

func TestLocalizationsLookup(t *testing.T) {
	l := command.Localizations{"en-GB": "gb", "es-ES": "es", "de": "de"}
	for _, tc := range []struct {
		locale, want string
		ok           bool
	}{
		{"de", "de", true}, {"en-GB", "gb", true}, {"en-US", "gb", true}, {"es-419", "es", true},
		{"es-ES", "es", true}, {"fr", "", false}, {"", "", false},
	} {
		got, ok := l.Lookup(tc.locale)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tc.locale, got, ok, tc.want, tc.ok)
		}
	}
	if v, ok := (command.Localizations{"en-US": "us"}).Lookup("en-GB"); !ok || v != "us" {
		t.Errorf("en-GB → en-US fallback: %q %v", v, ok)
	}
	if _, ok := (command.Localizations{"es-419": "x"}).Lookup("es-ES"); ok {
		t.Error("es-ES fell back to es-419")
	}
	if _, ok := command.Localizations(nil).Lookup("de"); ok {
		t.Error("nil map lookup found something")
	}
}

func TestMatchLocale(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"de", "de"}, {"de-DE", "de"}, {"de-AT", "de"}, {"DE-de", "de"},
		{"en", "en-US"}, {"en-US", "en-US"}, {"en-us", "en-US"}, {"en-GB", "en-GB"}, {"en-gb", "en-GB"},
		{"pt", "pt-BR"}, {"pt-BR", "pt-BR"}, {"pt-PT", "pt-BR"},
		{"es", "es-ES"}, {"es-ES", "es-ES"}, {"es-MX", "es-419"}, {"es-419", "es-419"}, {"es-AR", "es-419"},
		{"sv", "sv-SE"}, {"sv-SE", "sv-SE"}, {"zh", "zh-CN"}, {"zh-CN", "zh-CN"}, {"zh-TW", "zh-TW"},
		{"zh-Hant", "zh-TW"}, {"zh-HK", "zh-TW"}, {"nb", "no"}, {"nb-NO", "no"}, {"no", "no"},
		{"fr-CA", "fr"}, {"ja-JP", "ja"}, {"ko", "ko"}, {"hi-IN", "hi"}, {"id", "id"}, {" fr ", "fr"},
		{"", ""}, {"xx", ""}, {"xx-YY", ""}, {"*", ""},
	} {
		if got := command.MatchLocale(tc.tag); got != tc.want {
			t.Errorf("MatchLocale(%q) = %q, want %q", tc.tag, got, tc.want)
		}
		if got := command.MatchLocale(tc.tag); got != "" && !command.IsLocale(got) {
			t.Errorf("MatchLocale(%q) = %q, not a supported locale", tc.tag, got)
		}
	}
}

func TestLocales(t *testing.T) {
	ls := command.Locales()
	if len(ls) != 34 {
		t.Errorf("%d locales", len(ls))
	}
	for _, l := range []string{"en-US", "en-GB", "es-419", "es-ES", "pt-BR", "zh-CN", "zh-TW", "sv-SE", "id", "ar", "he"} {
		if !command.IsLocale(l) {
			t.Errorf("%s not a locale", l)
		}
	}
	for _, l := range []string{"en", "pt_BR", "es", "EN-US", ""} {
		if command.IsLocale(l) {
			t.Errorf("%q is a locale", l)
		}
	}
	ls[0] = "changed"
	if command.Locales()[0] == "changed" {
		t.Error("Locales returns the package's slice")
	}
}
