package api_test

// What the app receives, field by field where clients depend on it: a
// global and a guild command of one name are two commands, each run by
// its id; a subcommand's value always carries "options".

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// deliveredData is the data object of the last interaction the app
// received, as raw JSON values.
func (w *invokeWorld) deliveredData() map[string]json.RawMessage {
	w.t.Helper()
	var p struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(w.last().Raw, &p); err != nil {
		w.t.Fatalf("delivered interaction: %v", err)
	}
	return p.Data
}

// TestGlobalAndGuildCommandOfOneNameBothRun: the real service shows both
// and runs the one whose id the client sends (discord-api-docs#3885); the
// guild command's data carries its guild_id, the global one's none.
func TestGlobalAndGuildCommandOfOneNameBothRun(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	global := create(t, e, w.paths.global(), e.Bot(), with(chat("twice"), "description", "global"))
	guildCmd := w.command(with(chat("twice"), "description", "guild"))

	idx := getIndex(t, e, w.channel, w.client)
	listed := map[string]bool{}
	for _, c := range idx.Commands {
		listed[str(c, "id")] = true
	}
	if !listed[str(global, "id")] || !listed[str(guildCmd, "id")] {
		t.Fatalf("the picker lists %v, want both /twice (%s global, %s guild)", idx.Commands, str(global, "id"), str(guildCmd, "id"))
	}

	for _, tc := range []struct {
		name    string
		cmd     jsonObj
		guildID string // data.guild_id, "" for absent
	}{
		{"the global command", global, ""},
		{"the guild command", guildCmd, w.guild},
		{"the global command again", global, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantStatus(t, w.invoke(w.invocation(2, tc.cmd)), 200)
			d := w.deliveredData()
			if got := string(d["id"]); got != fmt.Sprintf("%q", str(tc.cmd, "id")) {
				t.Fatalf("data.id %s, want %s", got, str(tc.cmd, "id"))
			}
			gid, ok := d["guild_id"]
			switch {
			case tc.guildID == "" && ok:
				t.Fatalf("data.guild_id %s on a global command", gid)
			case tc.guildID != "" && string(gid) != fmt.Sprintf("%q", tc.guildID):
				t.Fatalf("data.guild_id %s, want %s", gid, tc.guildID)
			}
		})
	}

	// Each still needs its own id: an id of neither is unknown.
	r := w.invoke(w.invocation(2, with(global, "id", unknownID)))
	wantError(t, r, 404, bodyUnknownCommand)
}

// TestSubcommandValuesCarryOptions: every SUB_COMMAND and
// SUB_COMMAND_GROUP value carries "options", [] when empty (captured real
// payloads do; Oceanic.js's getSubCommand(true) throws without it), while
// an empty top-level data.options is left out.
func TestSubcommandValuesCarryOptions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	w.answerWith(answerByType)
	plain := w.command(chat("plain"))
	tree := w.command(jsonObj{"name": "tree", "description": "Tree", "options": []jsonObj{
		{"type": 1, "name": "leaf", "description": "Leaf"},
		{"type": 1, "name": "say", "description": "Say", "options": []jsonObj{
			{"type": 3, "name": "text", "description": "Text", "autocomplete": true}}},
		{"type": 2, "name": "group", "description": "Group", "options": []jsonObj{
			{"type": 1, "name": "inner", "description": "Inner"}}},
	}})

	cases := []struct {
		name    string
		it      int
		cmd     jsonObj
		options any    // the body's data.options, nil for none
		want    string // the delivered data.options, "" for absent
	}{
		{"no options", 2, plain, nil, ""},
		{"empty top-level options", 2, plain, []jsonObj{}, ""},
		{"a subcommand without options", 2, tree, []jsonObj{{"type": 1, "name": "leaf"}},
			`[{"name":"leaf","type":1,"options":[]}]`},
		{"a subcommand sent with options: []", 2, tree, []jsonObj{{"type": 1, "name": "leaf", "options": []jsonObj{}}},
			`[{"name":"leaf","type":1,"options":[]}]`},
		{"a group and its subcommand", 2, tree, []jsonObj{{"type": 2, "name": "group", "options": []jsonObj{{"type": 1, "name": "inner"}}}},
			`[{"name":"group","type":2,"options":[{"name":"inner","type":1,"options":[]}]}]`},
		{"a subcommand with a value", 2, tree, []jsonObj{{"type": 1, "name": "say", "options": []jsonObj{{"type": 3, "name": "text", "value": "hi"}}}},
			`[{"name":"say","type":1,"options":[{"name":"text","type":3,"value":"hi"}]}]`},
		{"autocomplete in a subcommand", 4, tree, []jsonObj{{"type": 1, "name": "say", "options": []jsonObj{{"type": 3, "name": "text", "value": "h", "focused": true}}}},
			`[{"name":"say","type":1,"options":[{"name":"text","type":3,"value":"h","focused":true}]}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var extra []any
			if tc.options != nil {
				extra = []any{"options", tc.options}
			}
			wantStatus(t, w.invoke(w.invocation(tc.it, tc.cmd, extra...)), 200)
			got, ok := w.deliveredData()["options"]
			switch {
			case tc.want == "" && ok:
				t.Fatalf("data.options %s, want none", got)
			case tc.want != "" && string(got) != tc.want:
				t.Fatalf("data.options\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
