package api_test

// The command picker (compat "Command picker"):
// GET /channels/{channel.id}/application-command-index with a user's
// client token as the bare Authorization value.

import (
	"fmt"
	"sort"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

func indexPath(channel string) string {
	return "/api/v10/channels/" + channel + "/application-command-index"
}

// pickerIndex is a decoded command index.
type pickerIndex struct {
	Applications []jsonObj `json:"applications"`
	Commands     []jsonObj `json:"application_commands"`
	Version      string    `json:"version"`
}

func getIndex(t *testing.T, e *testenv.Env, channel, token string) pickerIndex {
	t.Helper()
	r := mustDo(t, e, "GET", indexPath(channel), token, nil, 200)
	var idx pickerIndex
	r.JSON(t, &idx)
	if idx.Applications == nil || idx.Commands == nil || idx.Version == "" {
		t.Fatalf("index misses a key: %s", r.Body)
	}
	return idx
}

// keys names each command "app/type/name".
func (idx pickerIndex) keys(appNames map[string]string) []string {
	out := make([]string, len(idx.Commands))
	for i, c := range idx.Commands {
		out[i] = fmt.Sprintf("%s/%v/%s", appNames[str(c, "application_id")], c["type"], str(c, "name"))
	}
	sort.Strings(out)
	return out
}

func TestPerm2CommandPicker(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	p := w.paths
	owner := w.editor(w.owner)

	hans := w.user("hans", "locale", "de")
	w.member(hans)
	eve := w.user("eve")
	hansTok, eveTok := w.client(hans), w.client(eve)
	ownerTok := w.client(w.owner)

	general := w.channel(jsonObj{"name": "general"})
	side := w.channel(jsonObj{"name": "side"})
	thread := w.channel(jsonObj{"name": "thread", "type": 11, "parent_id": general})

	// The first app: global and guild commands, localized, a global and a
	// guild command of one name (both listed), denied ones.
	ping := create(t, e, p.global(), e.Bot(), jsonObj{
		"name": "ping", "name_localizations": jsonObj{"de": "pingen"},
		"description": "Pings", "description_localizations": jsonObj{"de": "Pingt"},
		"options": []jsonObj{{"type": 3, "name": "text", "description": "Text",
			"name_localizations": jsonObj{"de": "wort"}, "description_localizations": jsonObj{"de": "Ein Wort"},
			"choices": []jsonObj{{"name": "Hello", "value": "hello", "name_localizations": jsonObj{"de": "Hallo"}}}}},
	})
	globalTwice := create(t, e, p.global(), e.Bot(), with(chat("twice"), "description", "global"))
	guildTwice := create(t, e, p.guildCmds(), e.Bot(), with(chat("twice"), "description", "guild"))
	create(t, e, p.global(), e.Bot(), userCmd("twice")) // another type
	hidden := str(create(t, e, p.guildCmds(), e.Bot(), chat("hidden")), "id")
	create(t, e, p.guildCmds(), e.Bot(), with(chat("adminonly"), "default_member_permissions", permAdministrator))
	noChan := str(create(t, e, p.guildCmds(), e.Bot(), chat("nochan")), "id")
	mustDo(t, e, "PUT", p.cmdPerms(hidden), owner, permsBody(entry(hans, 2, false)), 200)
	mustDo(t, e, "PUT", p.cmdPerms(noChan), owner, permsBody(entry(general, 3, false)), 200)

	// A second app with a visible command; a third whose only command
	// hans may not use; a fourth without commands.
	second := e.NewApp(bootstrap.AppOptions{Name: "second"})
	third := e.NewApp(bootstrap.AppOptions{Name: "third"})
	fourth := e.NewApp(bootstrap.AppOptions{Name: "fourth"})
	for _, a := range []bootstrap.Credentials{second, third, fourth} {
		w.install(a.ApplicationID)
	}
	create(t, e, pathsFor("/api/v10", second).withGuild(w.guild).guildCmds(), "Bot "+second.BotToken, msgCmd("quote"))
	create(t, e, pathsFor("/api/v10", third).global(), "Bot "+third.BotToken, with(chat("secret"), "default_member_permissions", "0"))

	appNames := map[string]string{w.app: "first", second.ApplicationID: "second", third.ApplicationID: "third", fourth.ApplicationID: "fourth"}
	appObj := func(id string) jsonObj {
		return jsonObj{"id": id, "name": map[string]string{w.app: "testapp", second.ApplicationID: "second",
			third.ApplicationID: "third"}[id], "description": "", "icon": nil, "bot_id": id}
	}

	cases := []struct {
		name, channel, token string
		apps                 []string
		cmds                 []string
	}{
		{"hans in general", general, hansTok, []string{w.app, second.ApplicationID},
			[]string{"first/1/ping", "first/1/twice", "first/1/twice", "first/2/twice", "second/3/quote"}},
		{"hans in a thread of general", thread, hansTok, []string{w.app, second.ApplicationID},
			[]string{"first/1/ping", "first/1/twice", "first/1/twice", "first/2/twice", "second/3/quote"}},
		{"hans elsewhere", side, hansTok, []string{w.app, second.ApplicationID},
			[]string{"first/1/nochan", "first/1/ping", "first/1/twice", "first/1/twice", "first/2/twice", "second/3/quote"}},
		{"the owner sees every command", general, ownerTok, []string{w.app, second.ApplicationID, third.ApplicationID},
			[]string{"first/1/adminonly", "first/1/hidden", "first/1/nochan", "first/1/ping", "first/1/twice", "first/1/twice", "first/2/twice",
				"second/3/quote", "third/1/secret"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			idx := getIndex(t, e, c.channel, c.token)
			apps := make([]jsonObj, len(c.apps))
			for i, id := range c.apps {
				apps[i] = appObj(id)
			}
			wantJSON(t, mustMarshal(idx.Applications), mustMarshalString(apps))
			if got := idx.keys(appNames); fmt.Sprint(got) != fmt.Sprint(c.cmds) {
				t.Fatalf("commands %v, want %v", got, c.cmds)
			}
			// Both /twice are listed, each as itself: the guild command
			// with its guild_id, the global one without.
			seen := map[string]jsonObj{}
			for _, cmd := range idx.Commands {
				seen[str(cmd, "id")] = cmd
			}
			for _, want := range []struct {
				cmd         jsonObj
				description string
				guildID     any
			}{{globalTwice, "global", nil}, {guildTwice, "guild", w.guild}} {
				got, ok := seen[str(want.cmd, "id")]
				if !ok {
					t.Fatalf("the %s /twice (%s) is not listed", want.description, str(want.cmd, "id"))
				}
				if str(got, "description") != want.description || got["guild_id"] != want.guildID {
					t.Fatalf("the %s /twice is listed as %v", want.description, got)
				}
			}
		})
	}

	// Localized for the user's locale: *_localized, never dictionaries;
	// each item is what the list endpoints render in that locale.
	idx := getIndex(t, e, general, hansTok)
	var lists []jsonObj
	for _, l := range []string{p.global(), p.guildCmds(), pathsFor("/api/v10", second).withGuild(w.guild).guildCmds()} {
		auth := e.Bot()
		if l == pathsFor("/api/v10", second).withGuild(w.guild).guildCmds() {
			auth = "Bot " + second.BotToken
		}
		lists = append(lists, decodeList(t, send(t, e, "GET", l, map[string]string{"Authorization": auth, "X-Discord-Locale": "de"}, nil))...)
	}
	rendered := map[string]jsonObj{}
	for _, c := range lists {
		rendered[str(c, "id")] = c
	}
	for _, c := range idx.Commands {
		walkObjects(c, func(o jsonObj) {
			for _, k := range []string{"name_localizations", "description_localizations"} {
				if _, ok := o[k]; ok {
					t.Fatalf("%s in the index: %v", k, c)
				}
			}
		})
		wantJSON(t, mustMarshal(c), mustMarshalString(rendered[str(c, "id")]))
		if str(c, "id") == str(ping, "id") {
			opt := c["options"].([]any)[0].(jsonObj)
			choice := opt["choices"].([]any)[0].(jsonObj)
			if str(c, "name_localized") != "pingen" || str(c, "description_localized") != "Pingt" ||
				str(opt, "name_localized") != "wort" || str(opt, "description_localized") != "Ein Wort" ||
				str(choice, "name_localized") != "Hallo" {
				t.Fatalf("ping is not localized for de: %v", c)
			}
		}
	}
	// The owner (en-US) gets no localized names.
	for _, c := range getIndex(t, e, general, ownerTok).Commands {
		if _, ok := c["name_localized"]; ok {
			t.Fatalf("name_localized for en-US: %v", c)
		}
	}

	// Uninstalling an app takes its commands out of the picker.
	w.uninstall(second.ApplicationID)
	if got := getIndex(t, e, general, hansTok).keys(appNames); fmt.Sprint(got) != "[first/1/ping first/1/twice first/1/twice first/2/twice]" {
		t.Fatalf("after uninstall: %v", got)
	}

	// Errors.
	errs := []struct {
		name, channel, token string
		status               int
		want                 string
	}{
		{"unknown channel", unknownID, hansTok, 404, bodyUnknownChannel},
		{"not a member", general, eveTok, 403, bodyMissingAccess},
		{"channel not a snowflake", "general", hansTok, 400, formError(leaf{"channel_id", "NUMBER_TYPE_COERCE", notSnowflake("general")})},
		{"no token", general, "", 401, bodyUnauthorized},
		{"unknown token", general, "not-a-token", 401, bodyUnauthorized},
		{"client token with a scheme", general, "Bearer " + hansTok, 401, bodyUnauthorized},
		{"bot token", general, e.Bot(), 401, bodyUnauthorized},
		{"bare bot token", general, e.App.BotToken, 401, bodyUnauthorized},
		{"Bearer token", general, w.editor(hans), 401, bodyUnauthorized},
		{"admin token", general, e.AdminAuth(), 401, bodyUnauthorized},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, mustDo(t, e, "GET", indexPath(c.channel), c.token, nil, c.status), c.status, c.want)
		})
	}

	// A user removed from the guild loses the picker; a deleted user's
	// token stops working.
	adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/members/"+hans, nil, 204)
	wantError(t, mustDo(t, e, "GET", indexPath(general), hansTok, nil, 403), 403, bodyMissingAccess)
	adminDo(t, e, "DELETE", "/users/"+hans, nil, 204)
	wantError(t, mustDo(t, e, "GET", indexPath(general), hansTok, nil, 401), 401, bodyUnauthorized)
}
