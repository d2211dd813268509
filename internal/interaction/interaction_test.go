package interaction

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
)

func fp(f float64) *float64 { return &f }
func ip(i int) *int         { return &i }

func chatCmd() command.Command {
	return command.Command{
		ID: 100, ApplicationID: 1, Type: command.ChatInput, Name: "echo", Version: 7,
		Options: []command.Option{
			{Type: command.String, Name: "text", Required: true, MinLength: ip(2), MaxLength: ip(5)},
			{Type: command.Integer, Name: "count", MinValue: fp(1), MaxValue: fp(10)},
			{Type: command.Number, Name: "ratio", MinValue: fp(-1.5), MaxValue: fp(1.5)},
			{Type: command.Boolean, Name: "loud"},
			{Type: command.UserOption, Name: "who"},
			{Type: command.Channel, Name: "where", ChannelTypes: []int{0}},
			{Type: command.Role, Name: "role"},
			{Type: command.Mentionable, Name: "ment"},
			{Type: command.Attachment, Name: "file"},
			{Type: command.String, Name: "color", Choices: []command.Choice{{Name: "Red", Value: "red"}, {Name: "Blue", Value: "blue"}}},
			{Type: command.Integer, Name: "size", Choices: []command.Choice{{Name: "S", Value: 1.0}, {Name: "L", Value: 3.0}}},
			{Type: command.String, Name: "query", Autocomplete: true, MinLength: ip(3), MaxLength: ip(4)},
			{Type: command.Integer, Name: "num", Autocomplete: true, MinValue: fp(10)},
			{Type: command.Number, Name: "flt", Autocomplete: true},
			{Type: command.String, Name: "plain"},
		},
	}
}

func subCmd() command.Command {
	return command.Command{
		ID: 200, ApplicationID: 1, GuildID: 9, Type: command.ChatInput, Name: "admin", Version: 3,
		Options: []command.Option{
			{Type: command.SubCommandGroup, Name: "user", Options: []command.Option{
				{Type: command.SubCommand, Name: "ban", Options: []command.Option{
					{Type: command.UserOption, Name: "target", Required: true},
					{Type: command.String, Name: "reason", Autocomplete: true},
				}},
				{Type: command.SubCommand, Name: "kick"},
			}},
			{Type: command.SubCommand, Name: "ping"},
		},
	}
}

func userCmd() command.Command {
	return command.Command{ID: 300, ApplicationID: 1, Type: command.User, Name: "Info", Version: 1}
}

func entryCmd() command.Command {
	return command.Command{ID: 400, ApplicationID: 1, Type: command.PrimaryEntryPoint, Name: "launch", Version: 1}
}

// body builds an invocation body for cmd with the given interaction type and
// raw JSON data.options (or "" for none) and extra data fields.
func body(it int, cmd command.Command, options, extra string) string {
	s := fmt.Sprintf(`{"type":%d,"application_id":"1","channel_id":"5",%s"data":{"id":"%d","name":%q,"type":%d,"version":"%d"`,
		it, guildField(cmd), cmd.ID, cmd.Name, cmd.Type, cmd.Version)
	if options != "" {
		s += `,"options":` + options
	}
	return s + extra + "}}"
}

func guildField(cmd command.Command) string {
	if cmd.GuildID == 0 {
		return ""
	}
	return fmt.Sprintf(`"guild_id":"%d",`, cmd.GuildID)
}

// leafCodes returns the codes recorded at a dotted path of f.
func leafCodes(f *apierr.Fields, path string) []string {
	node := f
	if path != "" {
		for _, k := range strings.Split(path, ".") {
			node = node.Child(k)
			if node == nil {
				return nil
			}
		}
	}
	var out []string
	for _, l := range node.Leaves() {
		out = append(out, l.Code)
	}
	return out
}

func parse(t testing.TB, s string) (Invocation, *apierr.Fields) {
	t.Helper()
	v, err := form.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad JSON %s", s)
	}
	return ParseInvocation(v)
}

const (
	ac = int(Autocomplete)
	ap = int(ApplicationCommand)
)

func TestParseInvocation(t *testing.T) {
	cases := []struct {
		name, body, path, code string
	}{
		{"not object", `[]`, "", form.CodeModelConvert},
		{"bad type", `{"type":1,"application_id":"1","channel_id":"1","data":{}}`, "type", form.CodeChoices},
		{"missing app", `{"type":2,"channel_id":"1","data":{}}`, "application_id", form.CodeRequired},
		{"missing channel", `{"type":2,"application_id":"1","data":{}}`, "channel_id", form.CodeRequired},
		{"bad guild", `{"type":2,"application_id":"1","channel_id":"1","guild_id":"x","data":{}}`, "guild_id", form.CodeCoerce},
		{"missing data", `{"type":2,"application_id":"1","channel_id":"1"}`, "data", form.CodeRequired},
		{"data not object", `{"type":2,"application_id":"1","channel_id":"1","data":3}`, "data", form.CodeModelConvert},
		{"data missing id", `{"type":2,"application_id":"1","channel_id":"1","data":{"name":"a","type":1,"version":"1"}}`, "data.id", form.CodeRequired},
		{"data bad cmd type", body(ap, command.Command{ID: 1, Name: "a", Type: 5, Version: 1}, "", ""), "data.type", form.CodeChoices},
		{"data missing version", `{"type":2,"application_id":"1","channel_id":"1","data":{"id":"1","name":"a","type":1}}`, "data.version", form.CodeRequired},
		{"name not string", body(ap, chatCmd(), `[{"name":1,"type":3,"value":"x"}]`, ""), "data.options.0.name", form.CodeStringConvert},
		{"option bad type", body(ap, chatCmd(), `[{"name":"a","type":12}]`, ""), "data.options.0.type", form.CodeChoices},
		{"string value wrong", body(ap, chatCmd(), `[{"name":"text","type":3,"value":5}]`, ""), "data.options.0.value", form.CodeStringConvert},
		{"int value string in type 2", body(ap, chatCmd(), `[{"name":"count","type":4,"value":"5"}]`, ""), "data.options.0.value", form.CodeCoerce},
		{"int value number in type 4", body(ac, chatCmd(), `[{"name":"num","type":4,"value":5,"focused":true}]`, ""), "data.options.0.value", form.CodeStringConvert},
		{"bool value wrong", body(ap, chatCmd(), `[{"name":"loud","type":5,"value":"true"}]`, ""), "data.options.0.value", form.CodeBoolConvert},
		{"user value wrong", body(ap, chatCmd(), `[{"name":"who","type":6,"value":"abc"}]`, ""), "data.options.0.value", form.CodeCoerce},
		{"focused not bool", body(ac, chatCmd(), `[{"name":"query","type":3,"value":"a","focused":1}]`, ""), "data.options.0.focused", form.CodeBoolConvert},
		{"options not list", body(ap, chatCmd(), `{}`, ""), "data.options", form.CodeListConvert},
		{"too many options", body(ap, chatCmd(), "["+strings.Repeat(`{"name":"a","type":3,"value":"x"},`, 25)+`{"name":"a","type":3,"value":"x"}]`, ""), "data.options", form.CodeMaxLength},
		{"nested value", body(ap, subCmd(), `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"1","options":[]}]}]}]`, ""), "data.options.0.options.0.options.0.options", CodeOptionInvalid},
		{"bad target", body(ap, userCmd(), "", `,"target_id":true`), "data.target_id", form.CodeCoerce},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parse(t, c.body)
			if errs == nil {
				t.Fatalf("no error, want %s at %s", c.code, c.path)
			}
			if got := leafCodes(errs, c.path); !contains(got, c.code) {
				b, _ := json.Marshal(errs)
				t.Fatalf("want %s at %q, got %s", c.code, c.path, b)
			}
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestParseOK(t *testing.T) {
	inv, errs := parse(t, body(ap, subCmd(), `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"42"}]}]}]`, ""))
	if errs != nil {
		b, _ := json.Marshal(errs)
		t.Fatal(string(b))
	}
	if inv.Type != ApplicationCommand || inv.GuildID != 9 || inv.ChannelID != 5 || inv.Data.Version != 3 ||
		inv.Data.Options[0].Options[0].Options[0].Value != "42" {
		t.Fatalf("%+v", inv)
	}
}

func TestValidate(t *testing.T) {
	chat, sub, user, entry := chatCmd(), subCmd(), userCmd(), entryCmd()
	tx := `{"name":"text","type":3,"value":"abc"}`
	cases := []struct {
		name string
		cmd  command.Command
		body string
		path string // "" with code "" means success
		code string
		want string // for success: expected JSON of BuildData
	}{
		// command identity
		{"name mismatch", chat, strings.Replace(body(ap, chat, "["+tx+"]", ""), `"echo"`, `"other"`, 1), "data.name", CodeCommandInvalid, ""},
		{"type mismatch", chat, strings.Replace(body(ap, chat, "["+tx+"]", ""), `"type":1`, `"type":2`, 1), "data.type", CodeCommandInvalid, ""},
		{"id mismatch", chat, strings.Replace(body(ap, chat, "["+tx+"]", ""), `"id":"100"`, `"id":"101"`, 1), "data.id", CodeCommandInvalid, ""},
		{"guild mismatch", sub, strings.Replace(body(ap, sub, `[{"name":"ping","type":1}]`, ""), `"guild_id":"9"`, `"guild_id":"8"`, 1), "guild_id", CodeCommandInvalid, ""},
		{"app mismatch", chat, strings.Replace(body(ap, chat, "["+tx+"]", ""), `"application_id":"1"`, `"application_id":"2"`, 1), "application_id", CodeCommandInvalid, ""},
		// chat input basics
		{"ok simple", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4,"value":3},{"name":"ratio","type":10,"value":0.5},{"name":"loud","type":5,"value":false}]`, ""), "", "",
			`{"id":"100","name":"echo","type":1,"options":[{"name":"text","type":3,"value":"abc"},{"name":"count","type":4,"value":3},{"name":"ratio","type":10,"value":0.5},{"name":"loud","type":5,"value":false}]}`},
		{"ok snowflakes", chat, body(ap, chat, "["+tx+`,{"name":"who","type":6,"value":"11"},{"name":"where","type":7,"value":"12"},{"name":"role","type":8,"value":"13"},{"name":"ment","type":9,"value":"14"},{"name":"file","type":11,"value":"15"}]`, ""), "", "",
			`{"id":"100","name":"echo","type":1,"options":[{"name":"text","type":3,"value":"abc"},{"name":"who","type":6,"value":"11"},{"name":"where","type":7,"value":"12"},{"name":"role","type":8,"value":"13"},{"name":"ment","type":9,"value":"14"},{"name":"file","type":11,"value":"15"}]}`},
		{"required missing", chat, body(ap, chat, `[{"name":"loud","type":5,"value":true}]`, ""), "data.options", CodeOptionRequired, ""},
		{"required missing no options", chat, body(ap, chat, "", ""), "data.options", CodeOptionRequired, ""},
		{"unknown option", chat, body(ap, chat, "["+tx+`,{"name":"nope","type":3,"value":"x"}]`, ""), "data.options.1.name", CodeOptionUnknown, ""},
		{"duplicate option", chat, body(ap, chat, "["+tx+","+tx+"]", ""), "data.options.1.name", CodeOptionDup, ""},
		{"type differs", chat, body(ap, chat, "["+tx+`,{"name":"count","type":10,"value":3}]`, ""), "data.options.1.type", CodeOptionType, ""},
		{"value missing", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4}]`, ""), "data.options.1.value", form.CodeRequired, ""},
		{"value option with options", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4,"value":1,"options":[{"name":"x","type":3,"value":"y"}]}]`, ""), "data.options.1.options", CodeOptionInvalid, ""},
		{"target on chat input", chat, body(ap, chat, "["+tx+"]", `,"target_id":"5"`), "data.target_id", CodeOptionInvalid, ""},
		// values
		{"string too short", chat, body(ap, chat, `[{"name":"text","type":3,"value":"a"}]`, ""), "data.options.0.value", form.CodeBadLength, ""},
		{"string too long code points", chat, body(ap, chat, `[{"name":"text","type":3,"value":"éééééé"}]`, ""), "data.options.0.value", form.CodeBadLength, ""},
		{"string 5 code points ok", chat, body(ap, chat, `[{"name":"text","type":3,"value":"ééééé"}]`, ""), "", "", ""},
		{"string over 6000", chat, body(ap, chat, "["+tx+`,{"name":"plain","type":3,"value":"`+strings.Repeat("a", 6001)+`"}]`, ""), "data.options.1.value", form.CodeMaxLength, ""},
		{"int below min", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4,"value":0}]`, ""), "data.options.1.value", form.CodeNumberMin, ""},
		{"int above max", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4,"value":11}]`, ""), "data.options.1.value", form.CodeNumberMax, ""},
		{"int not integral", chat, body(ap, chat, "["+tx+`,{"name":"count","type":4,"value":2.5}]`, ""), "data.options.1.value", form.CodeCoerce, ""},
		{"int beyond 2^53-1", chat, body(ap, chat, "["+tx+`,{"name":"size","type":4,"value":9007199254740992}]`, ""), "data.options.1.value", form.CodeNumberMax, ""},
		{"int beyond -(2^53-1)", chat, body(ap, chat, "["+tx+`,{"name":"size","type":4,"value":-9007199254740992}]`, ""), "data.options.1.value", form.CodeNumberMin, ""},
		{"number below min", chat, body(ap, chat, "["+tx+`,{"name":"ratio","type":10,"value":-1.6}]`, ""), "data.options.1.value", form.CodeNumberMin, ""},
		{"number above max", chat, body(ap, chat, "["+tx+`,{"name":"ratio","type":10,"value":1.6}]`, ""), "data.options.1.value", form.CodeNumberMax, ""},
		{"number beyond 2^53", chat, body(ap, chat, "["+tx+`,{"name":"flt","type":10,"value":9007199254740994}]`, ""), "data.options.1.value", form.CodeNumberMax, ""},
		{"number 2^53 ok", chat, body(ap, chat, "["+tx+`,{"name":"flt","type":10,"value":-9007199254740992}]`, ""), "", "", ""},
		{"number huge", chat, body(ap, chat, "["+tx+`,{"name":"flt","type":10,"value":1e400}]`, ""), "data.options.1.value", form.CodeNumberMax, ""},
		{"string choice bad", chat, body(ap, chat, "["+tx+`,{"name":"color","type":3,"value":"green"}]`, ""), "data.options.1.value", form.CodeChoices, ""},
		{"string choice ok", chat, body(ap, chat, "["+tx+`,{"name":"color","type":3,"value":"blue"}]`, ""), "", "", ""},
		{"int choice bad", chat, body(ap, chat, "["+tx+`,{"name":"size","type":4,"value":2}]`, ""), "data.options.1.value", form.CodeChoices, ""},
		{"int choice ok", chat, body(ap, chat, "["+tx+`,{"name":"size","type":4,"value":3}]`, ""), "", "", ""},
		{"focused in type 2", chat, body(ap, chat, `[{"name":"query","type":3,"value":"abc","focused":true},`+tx+"]", ""), "data.options.0.focused", CodeOptionInvalid, ""},
		// subcommands
		{"sub ok", sub, body(ap, sub, `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"42"}]}]}]`, ""), "", "",
			`{"id":"200","name":"admin","type":1,"guild_id":"9","options":[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"42"}]}]}]}`},
		// A subcommand or group value carries "options" even when empty
		// (captured real payloads do; Oceanic.js's getSubCommand(true)
		// needs it), sent or not.
		{"sub plain ok", sub, body(ap, sub, `[{"name":"ping","type":1}]`, ""), "", "", `{"id":"200","name":"admin","type":1,"guild_id":"9","options":[{"name":"ping","type":1,"options":[]}]}`},
		{"sub plain with empty options", sub, body(ap, sub, `[{"name":"ping","type":1,"options":[]}]`, ""), "", "", `{"id":"200","name":"admin","type":1,"guild_id":"9","options":[{"name":"ping","type":1,"options":[]}]}`},
		{"group and sub without options", sub, body(ap, sub, `[{"name":"user","type":2,"options":[{"name":"kick","type":1}]}]`, ""), "", "",
			`{"id":"200","name":"admin","type":1,"guild_id":"9","options":[{"name":"user","type":2,"options":[{"name":"kick","type":1,"options":[]}]}]}`},
		{"sub missing", sub, body(ap, sub, "", ""), "data.options", CodeOptionRequired, ""},
		{"two subs", sub, body(ap, sub, `[{"name":"ping","type":1},{"name":"user","type":2,"options":[{"name":"kick","type":1}]}]`, ""), "data.options", form.CodeMaxLength, ""},
		{"group without sub", sub, body(ap, sub, `[{"name":"user","type":2}]`, ""), "data.options.0.options", CodeOptionRequired, ""},
		{"group two subs", sub, body(ap, sub, `[{"name":"user","type":2,"options":[{"name":"kick","type":1},{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"1"}]}]}]`, ""), "data.options.0.options", form.CodeMaxLength, ""},
		{"plain option where sub expected", sub, body(ap, sub, `[{"name":"ping","type":3,"value":"x"}]`, ""), "data.options.0.type", CodeOptionType, ""},
		{"unknown sub", sub, body(ap, sub, `[{"name":"pong","type":1}]`, ""), "data.options.0.name", CodeOptionUnknown, ""},
		{"sub with value", sub, body(ap, sub, `[{"name":"ping","type":1,"value":"x"}]`, ""), "data.options.0.value", CodeOptionInvalid, ""},
		{"sub required missing", sub, body(ap, sub, `[{"name":"user","type":2,"options":[{"name":"ban","type":1}]}]`, ""), "data.options.0.options.0.options", CodeOptionRequired, ""},
		{"sub option unknown", sub, body(ap, sub, `[{"name":"user","type":2,"options":[{"name":"kick","type":1,"options":[{"name":"x","type":3,"value":"y"}]}]}]`, ""), "data.options.0.options.0.options.0.name", CodeOptionUnknown, ""},
		// autocomplete
		{"ac ok partial string", chat, body(ac, chat, `[{"name":"query","type":3,"value":"a","focused":true}]`, ""), "", "",
			`{"id":"100","name":"echo","type":1,"options":[{"name":"query","type":3,"value":"a","focused":true}]}`},
		{"ac string over max", chat, body(ac, chat, `[{"name":"query","type":3,"value":"abcde","focused":true}]`, ""), "data.options.0.value", form.CodeMaxLength, ""},
		{"ac int partial ok", chat, body(ac, chat, `[{"name":"num","type":4,"value":"-","focused":true}]`, ""), "", "",
			`{"id":"100","name":"echo","type":1,"options":[{"name":"num","type":4,"value":"-","focused":true}]}`},
		{"ac int empty ok", chat, body(ac, chat, `[{"name":"num","type":4,"value":"","focused":true}]`, ""), "", "", ""},
		{"ac int below min ok when partial", chat, body(ac, chat, `[{"name":"num","type":4,"value":"1","focused":true}]`, ""), "", "", ""},
		{"ac int invalid", chat, body(ac, chat, `[{"name":"num","type":4,"value":"1a","focused":true}]`, ""), "data.options.0.value", form.CodeCoerce, ""},
		{"ac int out of range", chat, body(ac, chat, `[{"name":"num","type":4,"value":"9007199254740992","focused":true}]`, ""), "data.options.0.value", form.CodeNumberMax, ""},
		{"ac number partial ok", chat, body(ac, chat, `[{"name":"flt","type":10,"value":"-1.","focused":true}]`, ""), "", "", ""},
		{"ac number exponent", chat, body(ac, chat, `[{"name":"flt","type":10,"value":"1e3","focused":true}]`, ""), "data.options.0.value", form.CodeCoerce, ""},
		{"ac required not enforced", chat, body(ac, chat, `[{"name":"flt","type":10,"value":"2","focused":true}]`, ""), "", "", ""},
		{"ac no focused", chat, body(ac, chat, "["+tx+"]", ""), "data.options", CodeOptionInvalid, ""},
		{"ac two focused", chat, body(ac, chat, `[{"name":"query","type":3,"value":"a","focused":true},{"name":"num","type":4,"value":"1","focused":true}]`, ""), "data.options.1.focused", CodeOptionInvalid, ""},
		{"ac focused not autocomplete", chat, body(ac, chat, `[{"name":"plain","type":3,"value":"a","focused":true}]`, ""), "data.options.0.focused", CodeOptionInvalid, ""},
		{"ac other option full checks", chat, body(ac, chat, `[{"name":"query","type":3,"value":"a","focused":true},{"name":"count","type":4,"value":"-"}]`, ""), "data.options.1.value", form.CodeCoerce, ""},
		{"ac other option min", chat, body(ac, chat, `[{"name":"query","type":3,"value":"a","focused":true},{"name":"count","type":4,"value":"0"}]`, ""), "data.options.1.value", form.CodeNumberMin, ""},
		{"ac other option choice", chat, body(ac, chat, `[{"name":"query","type":3,"value":"a","focused":true},{"name":"color","type":3,"value":"x"}]`, ""), "data.options.1.value", form.CodeChoices, ""},
		{"ac in subcommand", sub, body(ac, sub, `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"reason","type":3,"value":"sp","focused":true}]}]}]`, ""), "", "",
			`{"id":"200","name":"admin","type":1,"guild_id":"9","options":[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"reason","type":3,"value":"sp","focused":true}]}]}]}`},
		{"ac on user command", user, body(ac, user, "", `,"target_id":"5"`), "data.type", CodeCommandInvalid, ""},
		// context menus and entry point
		{"user ok", user, body(ap, user, "", `,"target_id":"55"`), "", "", `{"id":"300","name":"Info","type":2,"target_id":"55"}`},
		{"user no target", user, body(ap, user, "", ""), "data.target_id", form.CodeRequired, ""},
		{"user with options", user, body(ap, user, "["+tx+"]", `,"target_id":"55"`), "data.options", CodeOptionInvalid, ""},
		{"entry ok", entry, body(ap, entry, "", ""), "", "", `{"id":"400","name":"launch","type":4}`},
		// An empty top-level data.options is left out.
		{"entry with empty options", entry, body(ap, entry, "[]", ""), "", "", `{"id":"400","name":"launch","type":4}`},
		{"entry with options", entry, body(ap, entry, "["+tx+"]", ""), "data.options", CodeOptionInvalid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv, perrs := parse(t, c.body)
			if perrs != nil {
				b, _ := json.Marshal(perrs)
				t.Fatalf("parse: %s", b)
			}
			r, err := Validate(inv, c.cmd)
			if c.code == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				if c.want != "" {
					b, _ := json.Marshal(BuildData(c.cmd, r))
					if string(b) != c.want {
						t.Fatalf("data\n got %s\nwant %s", b, c.want)
					}
				}
				return
			}
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.CodeInvalidFormBody {
				t.Fatalf("want 50035, got %v", err)
			}
			if got := leafCodes(e.Fields, c.path); !contains(got, c.code) {
				t.Fatalf("want %s at %q, got %v", c.code, c.path, err)
			}
		})
	}
}

func TestResolvedRefs(t *testing.T) {
	chat := chatCmd()
	inv, _ := parse(t, body(ap, chat, `[{"name":"text","type":3,"value":"abc"},{"name":"where","type":7,"value":"12"},{"name":"who","type":6,"value":"11"}]`, ""))
	r, err := Validate(inv, chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Refs) != 2 || r.Refs[0].ID != 12 || r.Refs[0].Type != command.Channel || len(r.Refs[0].ChannelTypes) != 1 || r.Refs[1].Option != "who" {
		t.Fatalf("%+v", r.Refs)
	}
	sub := subCmd()
	inv, _ = parse(t, body(ac, sub, `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"reason","type":3,"value":"sp","focused":true}]}]}]`, ""))
	r, err = Validate(inv, sub)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Path, " ") != "user ban" || r.Focused != "reason" {
		t.Fatalf("%+v", r)
	}
}

func TestCheckVersion(t *testing.T) {
	chat, sub := chatCmd(), subCmd()
	inv, _ := parse(t, body(ap, chat, "", ""))
	if err := CheckVersion(inv, chat); err != nil {
		t.Fatal(err)
	}
	inv.Data.Version = 6
	err := CheckVersion(inv, chat)
	b, _ := json.Marshal(err)
	if string(b) != `{"message":"Invalid Form Body","code":50035,"errors":{"data":{"_errors":[{"code":"INTERACTION_APPLICATION_COMMAND_INVALID_VERSION","message":"This command is outdated, please try again in a few minutes"}]}}}` {
		t.Fatalf("%s", b)
	}
	inv, _ = parse(t, body(ap, sub, "", ""))
	inv.Data.Version = 1
	if err := CheckVersion(inv, sub); err != nil {
		t.Fatal("guild commands are not version-checked")
	}
}

func TestErrorEnvelope(t *testing.T) {
	chat := chatCmd()
	inv, _ := parse(t, body(ap, chat, `[{"name":"text","type":3,"value":"a"}]`, ""))
	_, err := Validate(inv, chat)
	b, _ := json.Marshal(err)
	want := `{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"0":{"value":{"_errors":[{"code":"BASE_TYPE_BAD_LENGTH","message":"Must be between 2 and 5 in length."}]}}}}}}`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
}

func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	forbidden := map[string]bool{"net/http": true, "database/sql": true, "os": true, "time": true, "net": true}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
	_ = os.Getenv // the test itself may use os
}

func FuzzParseInvocation(f *testing.F) {
	f.Add([]byte(body(ap, subCmd(), `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"42"}]}]}]`, "")))
	f.Add([]byte(body(ac, chatCmd(), `[{"name":"num","type":4,"value":"-","focused":true}]`, "")))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		ParseInvocation(v)
	})
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte(body(ap, subCmd(), `[{"name":"user","type":2,"options":[{"name":"ban","type":1,"options":[{"name":"target","type":6,"value":"42"}]}]}]`, "")), uint8(1))
	f.Add([]byte(body(ac, chatCmd(), `[{"name":"num","type":4,"value":"-","focused":true}]`, "")), uint8(0))
	f.Add([]byte(body(ap, chatCmd(), `[{"name":"text","type":3,"value":"abc"},{"name":"size","type":4,"value":3}]`, "")), uint8(0))
	cmds := []command.Command{chatCmd(), subCmd(), userCmd(), entryCmd()}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		inv, _ := ParseInvocation(v) // validate even partially parsed input
		cmd := cmds[int(which)%len(cmds)]
		r, err := Validate(inv, cmd)
		if err == nil {
			if _, err := json.Marshal(BuildData(cmd, r)); err != nil {
				t.Fatal(err)
			}
		}
		_ = CheckVersion(inv, cmd)
	})
}
