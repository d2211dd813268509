package slashline

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/command"
)

// index is a command picker's index: two apps (10 and 20), as
// GET /channels/{id}/application-command-index lists them for a member
// whose locale is de.
const index = `[
 {"id":"100","application_id":"10","version":"1000","type":1,"name":"echo","description":"d",
  "options":[{"type":3,"name":"text","description":"d","required":true}]},
 {"id":"101","application_id":"10","version":"1001","type":1,"name":"all","name_localized":"alle","description":"d",
  "options":[
   {"type":3,"name":"s","description":"d","choices":[{"name":"Apple","value":"apple"},{"name":"Pear","name_localized":"Birne","value":"pear"},{"name":"pear","value":"other"}]},
   {"type":4,"name":"i","description":"d","choices":[{"name":"one","value":1},{"name":"2","value":3}]},
   {"type":10,"name":"n","name_localized":"zahl","description":"d"},
   {"type":5,"name":"b","description":"d"},
   {"type":6,"name":"u","description":"d"},
   {"type":7,"name":"c","description":"d"},
   {"type":8,"name":"r","description":"d"},
   {"type":9,"name":"m","description":"d"},
   {"type":11,"name":"file","description":"d"}]},
 {"id":"102","application_id":"10","version":"1002","type":1,"name":"perm","description":"d","options":[
   {"type":2,"name":"user","description":"d","options":[
     {"type":1,"name":"get","description":"d","options":[{"type":6,"name":"who","description":"d"}]},
     {"type":1,"name":"set","description":"d","options":[{"type":6,"name":"who","description":"d"},{"type":5,"name":"on","description":"d"}]}]},
   {"type":1,"name":"list","name_localized":"liste","description":"d"}]},
 {"id":"103","application_id":"10","version":"1003","type":2,"name":"Wave","description":""},
 {"id":"104","application_id":"10","version":"1004","type":3,"name":"Quote","description":""},
 {"id":"105","application_id":"10","version":"1005","type":4,"name":"launch","description":"d","handler":1},
 {"id":"200","application_id":"20","version":"2000","type":1,"name":"echo","description":"d",
  "options":[{"type":3,"name":"words","description":"d"}]},
 {"id":"201","application_id":"20","version":"2001","type":1,"name":"ping","description":"d"}
]`

func indexItems(t testing.TB) []command.ListItem {
	t.Helper()
	var cmds []command.ListItem
	if err := json.Unmarshal([]byte(index), &cmds); err != nil {
		t.Fatal(err)
	}
	return cmds
}

func TestResolve(t *testing.T) {
	t.Parallel()
	cmds := indexItems(t)
	cases := []struct {
		line string
		app  uint64
		want string // the interaction's data
	}{
		{"/ping", 0, `{"id":"201","name":"ping","type":1,"version":"2001"}`},
		{"/echo text:hi", 10, `{"id":"100","name":"echo","type":1,"version":"1000","options":[{"name":"text","type":3,"value":"hi"}]}`},
		{`/echo words:"two words"`, 20, `{"id":"200","name":"echo","type":1,"version":"2000","options":[{"name":"words","type":3,"value":"two words"}]}`},
		// Required options are the service's to check.
		{"/echo", 10, `{"id":"100","name":"echo","type":1,"version":"1000"}`},
		// Localized names find the command and options; the data has the default names.
		{"/alle zahl:1.5", 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"n","type":10,"value":1.5}]}`},
		// Every type, in the order typed.
		{`/all b:false i:-7 n:-2e3 s:"two words" u:<@!11> c:<#12> r:<@&13> m:14 b:TRUE`, 0, ""}, // b twice: refused below
		{`/all i:+7 n:.5 u:11 c:12 r:13 m:<@15> s:x`, 0,
			`{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"i","type":4,"value":7},{"name":"n","type":10,"value":0.5},` +
				`{"name":"u","type":6,"value":"11"},{"name":"c","type":7,"value":"12"},{"name":"r","type":8,"value":"13"},` +
				`{"name":"m","type":9,"value":"15"},{"name":"s","type":3,"value":"x"}]}`},
		{`/all b:True m:<@&16> u:<@17>`, 0,
			`{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"b","type":5,"value":true},{"name":"m","type":9,"value":"16"},{"name":"u","type":6,"value":"17"}]}`},
		{`/all b:false`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"b","type":5,"value":false}]}`},
		{`/all i:0 n:0`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"i","type":4,"value":0},{"name":"n","type":10,"value":0}]}`},
		// Values beyond what the service takes are its to refuse.
		{`/all i:9007199254740993`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"i","type":4,"value":9007199254740993}]}`},
		// Choices: by value, or by name (a value wins over a name).
		{`/all s:apple`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"s","type":3,"value":"apple"}]}`},
		{`/all s:Apple`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"s","type":3,"value":"apple"}]}`},
		{`/all s:Birne`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"s","type":3,"value":"pear"}]}`},
		{`/all s:pear`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"s","type":3,"value":"pear"}]}`},
		{`/all s:banana`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"s","type":3,"value":"banana"}]}`},
		{`/all i:one`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"i","type":4,"value":1}]}`},
		{`/all i:2`, 0, `{"id":"101","name":"all","type":1,"version":"1001","options":[{"name":"i","type":4,"value":2}]}`},
		// Subcommands and groups wrap the options.
		{"/perm list", 0, `{"id":"102","name":"perm","type":1,"version":"1002","options":[{"name":"list","type":1}]}`},
		{"/perm liste", 0, `{"id":"102","name":"perm","type":1,"version":"1002","options":[{"name":"list","type":1}]}`},
		{"/perm user set who:<@5> on:true", 0, `{"id":"102","name":"perm","type":1,"version":"1002","options":[{"name":"user","type":2,` +
			`"options":[{"name":"set","type":1,"options":[{"name":"who","type":6,"value":"5"},{"name":"on","type":5,"value":true}]}]}]}`},
		{"/perm user get", 0, `{"id":"102","name":"perm","type":1,"version":"1002","options":[{"name":"user","type":2,"options":[{"name":"get","type":1}]}]}`},
		// An entry point.
		{"/launch", 0, `{"id":"105","name":"launch","type":4,"version":"1005"}`},
	}
	for _, tc := range cases {
		l, err := Parse(tc.line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.line, err)
		}
		inv, err := Resolve(l, cmds, Filter{App: snowflakeOf(tc.app)})
		if tc.want == "" {
			if err == nil {
				t.Errorf("Resolve(%q) = %s, want an error", tc.line, jsonOf(t, inv))
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.line, err)
			continue
		}
		if got := jsonOf(t, inv); got != tc.want {
			t.Errorf("Resolve(%q)\n got %s\nwant %s", tc.line, got, tc.want)
		}
		wantApp := "10"
		if strings.Contains(tc.want, `"id":"20`) {
			wantApp = "20"
		}
		if inv.ApplicationID.String() != wantApp {
			t.Errorf("Resolve(%q): application %s, want %s", tc.line, inv.ApplicationID, wantApp)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	cmds := indexItems(t)
	cases := []struct {
		line string
		app  uint64
		want string
	}{
		{"/nope", 0, "no command /nope here (there are /all, /echo, /launch, /perm, /ping)"},
		{"/ping", 10, "no command /ping here (there are /all, /echo, /launch, /perm)"},
		{"/ping", 30, "no command /ping here (the member may use no slash command here)"},
		{"/echo text:hi", 0, "/echo is a command of several applications (10, 20): choose one with --app"},
		{"/Wave", 0, "Wave is a user command (from a member's menu), not a slash command"},
		{"/Quote", 0, "Quote is a message command (from a message's menu), not a slash command"},
		{"/echo text:hi extra:1", 10, "/echo has no option extra (it has text)"},
		{"/ping x:1", 0, "/ping takes no options (x given)"},
		{"/ping sub", 0, `/ping has no subcommand "sub" (options are written name:value)`},
		{"/perm", 0, "/perm needs a subcommand: user, list"},
		{"/perm user", 0, "/perm user needs a subcommand: get, set"},
		{"/perm user del", 0, `/perm user has no subcommand "del" (it has get, set)`},
		{"/perm user get who:1 extra", 0, ``}, // a word after options: Parse refuses
		{"/perm list who:1", 0, "/perm list takes no options (who given)"},
		{"/perm user set set", 0, `/perm user set has no subcommand "set" (options are written name:value)`},
		{"/launch x:1", 0, "/launch is an entry point: it takes no options"},
		{"/all b:true b:false", 0, "option b is given twice"},
		{"/all n:1 zahl:2", 0, "option n is given twice"},
		{"/all i:1.5", 0, `option i: "1.5" is not an integer or a choice (one, 2)`},
		{"/all i:99999999999999999999", 0, `option i: "99999999999999999999" is out of range for an integer`},
		{"/all n:abc", 0, `option n: "abc" is not a number`},
		{"/all n:0x10", 0, `option n: "0x10" is not a number`},
		{"/all n:Inf", 0, `option n: "Inf" is not a number`},
		{"/all n:NaN", 0, `option n: "NaN" is not a number`},
		{"/all n:1e999", 0, `option n: "1e999" is out of range for a number`},
		{"/all b:yes", 0, `option b: "yes" is not true or false`},
		{"/all u:bob", 0, `option u: "bob" is not a user: write its id, or <@!id> or <@id>`},
		{"/all u:<@&5>", 0, `option u: "<@&5>" is not a user: write its id, or <@!id> or <@id>`},
		{"/all u:<@0>", 0, `option u: "<@0>" is not a user: write its id, or <@!id> or <@id>`},
		{"/all u:-5", 0, `option u: "-5" is not a user: write its id, or <@!id> or <@id>`},
		{"/all c:<@5>", 0, `option c: "<@5>" is not a channel: write its id, or <#id>`},
		{"/all r:<@5>", 0, `option r: "<@5>" is not a role: write its id, or <@&id>`},
		{"/all m:<#5>", 0, `option m: "<#5>" is not a user or a role: write its id, or <@&id> or <@!id> or <@id>`},
		{"/all m:<@>", 0, `option m: "<@>" is not a user or a role: write its id, or <@&id> or <@!id> or <@id>`},
		{"/all file:x.png", 0, "option file: attachments cannot be given on a command line (POST /api/v10/interactions takes them in data.attachments)"},
	}
	for _, tc := range cases {
		l, err := Parse(tc.line)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %+v, want a syntax error", tc.line, l)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.line, err)
		}
		inv, err := Resolve(l, cmds, Filter{App: snowflakeOf(tc.app)})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Resolve(%q) = %s, %v\nwant error %s", tc.line, jsonOf(t, inv), err, tc.want)
		}
	}
	l, _ := Parse("/all file:x")
	if _, err := Resolve(l, cmds, Filter{}); !errors.Is(err, ErrAttachment) {
		t.Errorf("an attachment: %v, want ErrAttachment", err)
	}
}

// scoped is an index where app 10 has a guild command and a global
// command of one name (the picker lists both, the guild's first), app 20
// a global one of that name, and app 10 a guild command only.
const scoped = `[
 {"id":"300","application_id":"10","guild_id":"50","version":"3000","type":1,"name":"twice","description":"guild"},
 {"id":"301","application_id":"10","version":"3001","type":1,"name":"twice","description":"global"},
 {"id":"302","application_id":"20","version":"3002","type":1,"name":"twice","description":"global"},
 {"id":"303","application_id":"10","guild_id":"50","version":"3003","type":1,"name":"local","description":"guild"},
 {"id":"304","application_id":"20","version":"3004","type":1,"name":"far","description":"global"}
]`

// TestResolveScopes: of an application's guild and global command of one
// name, a line runs the guild command, or with Global the global one.
func TestResolveScopes(t *testing.T) {
	t.Parallel()
	var cmds []command.ListItem
	if err := json.Unmarshal([]byte(scoped), &cmds); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line    string
		filter  Filter
		wantID  string
		wantErr string
	}{
		{"/twice", Filter{App: 10}, "300", ""},
		{"/twice", Filter{App: 10, Global: true}, "301", ""},
		{"/twice", Filter{App: 20}, "302", ""},
		{"/twice", Filter{App: 20, Global: true}, "302", ""},
		{"/twice", Filter{}, "", "/twice is a command of several applications (10, 20): choose one with --app"},
		{"/twice", Filter{Global: true}, "", "/twice is a command of several applications (10, 20): choose one with --app"},
		{"/local", Filter{}, "303", ""},
		{"/local", Filter{Global: true}, "", "/local is a guild command only here: leave out --global"},
		{"/far", Filter{Global: true}, "304", ""},
	}
	for _, tc := range cases {
		l, err := Parse(tc.line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.line, err)
		}
		inv, err := Resolve(l, cmds, tc.filter)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Resolve(%q, %+v) = %s, %v; want error %s", tc.line, tc.filter, jsonOf(t, inv), err, tc.wantErr)
			}
			continue
		}
		if err != nil || inv.Data.ID.String() != tc.wantID {
			t.Errorf("Resolve(%q, %+v) = %s, %v; want command %s", tc.line, tc.filter, jsonOf(t, inv), err, tc.wantID)
		}
	}
}

// FuzzResolve: whatever the line, Resolve never panics, and what it
// resolves is a command of the index with options of its definitions,
// each value of the JSON type its option type needs.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"/ping", "/echo text:hi", "/alle zahl:1.5 b:true u:<@!1> c:<#2> r:<@&3> m:<@4> s:Birne i:one",
		"/perm user set who:5 on:false", "/perm liste", "/launch", "/all i:99999999999999999999", "/all n:1e308",
		"/twice", "/local",
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(10))
		f.Add(s, uint8(11)) // odd: Global
	}
	cmds := indexItems(f)
	var both []command.ListItem
	if err := json.Unmarshal([]byte(scoped), &both); err != nil {
		f.Fatal(err)
	}
	cmds = append(cmds, both...)
	byID := map[string]command.ListItem{}
	for _, c := range cmds {
		byID[c.ID.String()] = c
	}
	f.Fuzz(func(t *testing.T, s string, app uint8) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		filter := Filter{App: snowflakeOf(uint64(app &^ 1)), Global: app&1 == 1}
		inv, err := Resolve(l, cmds, filter)
		if err != nil {
			return
		}
		c, ok := byID[inv.Data.ID.String()]
		if ok && filter.Global && c.GuildID != 0 {
			t.Fatalf("Resolve(%q, %+v) = %+v: a guild command", s, filter, inv)
		}
		if !ok || c.Name != inv.Data.Name || c.Version != inv.Data.Version || c.ApplicationID != inv.ApplicationID ||
			(filter.App != 0 && c.ApplicationID != filter.App) {
			t.Fatalf("Resolve(%q) = %+v: not the index's command", s, inv)
		}
		checkValues(t, s, c.Options, inv.Data.Options)
	})
}

// checkValues checks got holds options of defs with values of the right
// JSON type.
func checkValues(t *testing.T, line string, defs []command.ListOption, got []OptionValue) {
	t.Helper()
	for _, o := range got {
		var def *command.ListOption
		for i := range defs {
			if defs[i].Name == o.Name {
				def = &defs[i]
			}
		}
		if def == nil || def.Type != o.Type {
			t.Fatalf("Resolve(%q): option %+v is not defined so", line, o)
		}
		var ok bool
		switch o.Type {
		case command.SubCommand, command.SubCommandGroup:
			ok = o.Value == nil
			checkValues(t, line, def.Options, o.Options)
		case command.String:
			_, ok = o.Value.(string)
		case command.Integer:
			_, ok = o.Value.(int64)
		case command.Number:
			_, ok = o.Value.(float64)
		case command.Boolean:
			_, ok = o.Value.(bool)
		case command.UserOption, command.Channel, command.Role, command.Mentionable:
			var id string
			id, ok = o.Value.(string)
			ok = ok && id != "" && strings.Trim(id, "0123456789") == ""
		}
		if !ok {
			t.Fatalf("Resolve(%q): option %s has value %#v", line, o.Name, o.Value)
		}
	}
}
