package command_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
)

type parseCase struct {
	name   string
	target command.Target
	body   string
	// want is the expected error tree as JSON; "" means the body is valid.
	want string
	// check inspects the normalized command of a valid body.
	check func(t *testing.T, p command.Parsed)
}

func TestParse(t *testing.T) {
	var cases []parseCase
	add := func(cs ...parseCase) { cases = append(cases, cs...) }

	add(nameCases()...)
	add(descriptionCases()...)
	add(typeCases()...)
	add(optionCases()...)
	add(nestingCases()...)
	add(requiredCases()...)
	add(choiceCases()...)
	add(optionFieldCases()...)
	add(localizationCases()...)
	add(permissionCases()...)
	add(installCases()...)
	add(discoveryCases()...)
	add(entryPointCases()...)
	add(sizeCases()...)
	add(clientCases()...)

	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			if tc.target.App.ID == 0 {
				tc.target = global
			}
			p, errs := parseBody(t, tc.body, tc.target)
			got, err := json.Marshal(errs)
			if err != nil {
				t.Fatalf("marshal errors: %v", err)
			}
			if tc.want == "" {
				if !errs.Empty() {
					t.Fatalf("unexpected errors %s\nbody: %.400s", got, tc.body)
				}
				if tc.check != nil {
					tc.check(t, p)
				}
				return
			}
			if errs.Empty() {
				t.Fatalf("no errors, want %s\nbody: %.400s", tc.want, tc.body)
			}
			if !sameJSON(t, string(got), tc.want) {
				t.Fatalf("errors\n got %s\nwant %s\nbody: %.400s", got, tc.want, tc.body)
			}
		})
	}
	t.Logf("%d cases", len(cases))
}

// Checks.

func wantName(name string) func(*testing.T, command.Parsed) {
	return func(t *testing.T, p command.Parsed) {
		t.Helper()
		if p.Name != name {
			t.Errorf("name = %q, want %q", p.Name, name)
		}
	}
}

func checks(fs ...func(*testing.T, command.Parsed)) func(*testing.T, command.Parsed) {
	return func(t *testing.T, p command.Parsed) {
		t.Helper()
		for _, f := range fs {
			f(t, p)
		}
	}
}

// wantJSON compares selected fields of the command's JSON form.
func wantJSON(fields map[string]string) func(*testing.T, command.Parsed) {
	return func(t *testing.T, p command.Parsed) {
		t.Helper()
		b, err := json.Marshal(&p.Command)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k, want := range fields {
			got, ok := m[k]
			if want == "<absent>" {
				if ok {
					t.Errorf("%s = %s, want absent", k, got)
				}
				continue
			}
			if !ok {
				t.Errorf("%s absent, want %s", k, want)
				continue
			}
			if !sameJSON(t, string(got), want) {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
	}
}

// wantOptionJSON compares the JSON of the option at a path of indexes.
func wantOptionJSON(want string, path ...int) func(*testing.T, command.Parsed) {
	return func(t *testing.T, p command.Parsed) {
		t.Helper()
		opts := p.Options
		var o command.Option
		for _, i := range path {
			if i >= len(opts) {
				t.Fatalf("no option %v", path)
			}
			o = opts[i]
			opts = o.Options
		}
		b, _ := json.Marshal(o)
		if !sameJSON(t, string(b), want) {
			t.Errorf("option %v = %s, want %s", path, b, want)
		}
	}
}

func nameCases() []parseCase {
	cs := []parseCase{
		{name: "name/missing", body: `{"description":"d"}`, want: tree(required("name"))},
		{name: "name/null", body: `{"name":null,"description":"d"}`, want: tree(required("name"))},
		{name: "name/number", body: `{"name":123,"description":"d"}`, want: tree(notString("name", "123"))},
		{name: "name/object", body: `{"name":{},"description":"d"}`, want: tree(notString("name", "{}"))},
		{name: "name/empty", body: `{"name":"","description":"d"}`, want: tree(badLength("name", 1, 32))},
		{name: "name/32 code points", body: `{"name":"` + strings.Repeat("a", 32) + `","description":"d"}`,
			check: wantName(strings.Repeat("a", 32))},
		{name: "name/33 code points", body: `{"name":"` + strings.Repeat("a", 33) + `","description":"d"}`,
			want: tree(badLength("name", 1, 32))},
		// U+20000 is one code point but two UTF-16 units: 32 of them fit.
		{name: "name/32 astral", body: `{"name":"` + strings.Repeat("\U00020000", 32) + `","description":"d"}`,
			check: wantName(strings.Repeat("\U00020000", 32))},
		{name: "name/33 astral", body: `{"name":"` + strings.Repeat("\U00020000", 33) + `","description":"d"}`,
			want: tree(badLength("name", 1, 32))},
		{name: "name/user mixed case with spaces",
			body: `{"type":2,"name":"Show Profile Card"}`, check: wantName("Show Profile Card")},
		{name: "name/message mixed case punctuation",
			body: `{"type":3,"name":"Report Message!"}`, check: wantName("Report Message!")},
		{name: "name/user blank", body: `{"type":2,"name":"   "}`, want: tree(invalidName("name"))},
		{name: "name/user empty", body: `{"type":2,"name":""}`, want: tree(badLength("name", 1, 32))},
		{name: "name/user 33", body: `{"type":2,"name":"` + strings.Repeat("A", 33) + `"}`,
			want: tree(badLength("name", 1, 32))},
		{name: "name/user 32 with spaces", body: `{"type":2,"name":"` + strings.Repeat("A b", 10) + `zz"}`,
			check: wantName(strings.Repeat("A b", 10) + "zz")},
		{name: "name/option empty", body: chat(opt(3, "", "")), want: tree(badLength("options.0.name", 1, 32))},
		{name: "name/option missing", body: chat(`{"type":3,"description":"d"}`),
			want: tree(required("options.0.name"))},
		{name: "name/option uppercase", body: chat(opt(3, "Opt", "")), want: tree(invalidName("options.0.name"))},
		{name: "name/option space", body: chat(opt(3, "my opt", "")), want: tree(invalidName("options.0.name"))},
		{name: "name/option 33", body: chat(opt(3, strings.Repeat("o", 33), "")),
			want: tree(badLength("options.0.name", 1, 32))},
		{name: "name/subcommand uppercase", body: chat(opt(1, "Sub", "")),
			want: tree(invalidName("options.0.name"))},
	}
	valid := []string{
		"hello-command", "it's-a_test", "नमस्ते", "สวัสดี", "你好", "123", "straße", "x²", "café", "名前",
		"مرحبا", "_", "-", "'", "isnʼt",
	}
	for _, n := range valid {
		cs = append(cs, parseCase{name: "name/chat valid " + n, body: `{"name":` + jsonStr(n) + `,"description":"d"}`,
			check: wantName(n)})
		cs = append(cs, parseCase{name: "name/option valid " + n, body: chat(opt(3, n, "")),
			check: wantOptionJSON(`{"type":3,"name":`+jsonStr(n)+`,"description":"An option"}`, 0)})
	}
	invalid := []string{
		"Hello", "hello!", "hello world", "😀", "cool😀", "İ", "ǅ", "cafe\u0301", "a.b", "a\u200db", "Σ", "Ⅻ",
		"Ａ", "isn’t", "tab\t", " lead",
	}
	for _, n := range invalid {
		cs = append(cs, parseCase{name: "name/chat invalid " + n, body: `{"name":` + jsonStr(n) + `,"description":"d"}`,
			want: tree(invalidName("name"))})
	}
	return cs
}

func descriptionCases() []parseCase {
	return []parseCase{
		{name: "description/chat missing", body: `{"name":"cmd"}`, want: tree(required("description"))},
		{name: "description/chat null", body: `{"name":"cmd","description":null}`, want: tree(required("description"))},
		{name: "description/chat empty", body: `{"name":"cmd","description":""}`,
			want: tree(badLength("description", 1, 100))},
		{name: "description/chat 100", body: `{"name":"cmd","description":"` + strings.Repeat("é", 100) + `"}`,
			check: wantJSON(map[string]string{"description": jsonStr(strings.Repeat("é", 100))})},
		{name: "description/chat 101", body: `{"name":"cmd","description":"` + strings.Repeat("d", 101) + `"}`,
			want: tree(badLength("description", 1, 100))},
		{name: "description/chat number", body: `{"name":"cmd","description":5}`,
			want: tree(notString("description", "5"))},
		{name: "description/user not allowed", body: `{"type":2,"name":"Profile","description":"Shows a profile"}`,
			want: tree(leaf{"description", "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID",
				"Context menu commands cannot have description"})},
		{name: "description/message not allowed", body: `{"type":3,"name":"Quote","description":"x"}`,
			want: tree(leaf{"description", "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID",
				"Context menu commands cannot have description"})},
		{name: "description/user empty accepted", body: `{"type":2,"name":"Profile","description":""}`,
			check: wantJSON(map[string]string{"description": `""`, "description_localizations": "null"})},
		{name: "description/user absent returned empty", body: `{"type":2,"name":"Profile"}`,
			check: wantJSON(map[string]string{"description": `""`})},
		{name: "description/message null returned empty", body: `{"type":3,"name":"Quote","description":null}`,
			check: wantJSON(map[string]string{"description": `""`})},
		{name: "description/user localizations not allowed",
			body: `{"type":2,"name":"Profile","description_localizations":{"de":"Profil"}}`,
			want: tree(leaf{"description_localizations", "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID",
				"Context menu commands cannot have description"})},
		{name: "description/user empty localizations accepted",
			body:  `{"type":2,"name":"Profile","description_localizations":{}}`,
			check: wantJSON(map[string]string{"description_localizations": "null"})},
		{name: "description/option missing", body: chat(`{"type":3,"name":"o"}`),
			want: tree(required("options.0.description"))},
		{name: "description/option 101", body: chat(`{"type":3,"name":"o","description":"` + strings.Repeat("d", 101) + `"}`),
			want: tree(badLength("options.0.description", 1, 100))},
		{name: "description/option empty", body: chat(`{"type":3,"name":"o","description":""}`),
			want: tree(badLength("options.0.description", 1, 100))},
	}
}

func typeCases() []parseCase {
	return []parseCase{
		{name: "type/absent defaults to chat input", body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"type": "1"})},
		{name: "type/null defaults to chat input", body: `{"name":"cmd","description":"d","type":null}`,
			check: wantJSON(map[string]string{"type": "1"})},
		{name: "type/numeric string", body: `{"name":"Pic","type":"2"}`, check: wantJSON(map[string]string{"type": "2"})},
		{name: "type/unknown", body: `{"name":"cmd","description":"d","type":9}`,
			want: tree(choices("type", "(1, 2, 3, 4)"))},
		{name: "type/zero", body: `{"name":"cmd","description":"d","type":0}`,
			want: tree(choices("type", "(1, 2, 3, 4)"))},
		{name: "type/not int", body: `{"name":"cmd","description":"d","type":"CHAT_INPUT"}`,
			want: tree(notInt("type", "CHAT_INPUT"))},
		{name: "type/with option type error collected",
			body: `{"name":"cmd","description":"d","type":"CHAT_INPUT","options":[{"type":"STRING","name":"o","description":"d"}]}`,
			want: tree(notInt("type", "CHAT_INPUT"), notInt("options.0.type", "STRING"))},
		{name: "type/option unknown", body: chat(opt(99, "o", "")),
			want: tree(unionChoices("options.0", "(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)"))},
		{name: "type/option missing", body: chat(`{"name":"o","description":"d"}`),
			want: tree(required("options.0.type"))},
		{name: "type/body not an object", body: `"cmd"`,
			want: tree(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{name: "nsfw and default_permission kept",
			body:  `{"name":"cmd","description":"d","nsfw":true,"default_permission":false}`,
			check: wantJSON(map[string]string{"nsfw": "true", "default_permission": "false"})},
		{name: "nsfw defaults", body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"nsfw": "false", "default_permission": "true"})},
		{name: "nsfw not bool", body: `{"name":"cmd","description":"d","nsfw":"yes"}`, want: tree(notBool("nsfw"))},
	}
}

func optionCases() []parseCase {
	manyOpts := func(n int) []string {
		os := make([]string, n)
		for i := range os {
			os[i] = opt(3, fmt.Sprintf("o%d", i), "")
		}
		return os
	}
	many := func(n int) string { return chat(manyOpts(n)...) }
	return []parseCase{
		{name: "options/user", body: `{"type":2,"name":"Profile","options":[` + opt(3, "o", "") + `]}`,
			want: tree(leaf{"options", "APPLICATION_COMMAND_CONTEXT_MENU_OPTIONS_INVALID",
				"Context menu commands cannot have options"})},
		{name: "options/message", body: `{"type":3,"name":"Quote","options":[` + opt(3, "o", "") + `]}`,
			want: tree(leaf{"options", "APPLICATION_COMMAND_CONTEXT_MENU_OPTIONS_INVALID",
				"Context menu commands cannot have options"})},
		{name: "options/user empty list accepted", body: `{"type":2,"name":"Profile","options":[]}`},
		{name: "options/user null accepted", body: `{"type":2,"name":"Profile","options":null}`},
		{name: "options/25", body: many(25), check: func(t *testing.T, p command.Parsed) {
			if len(p.Options) != 25 {
				t.Errorf("%d options", len(p.Options))
			}
		}},
		{name: "options/26", body: many(26), want: tree(maxLength("options", 25))},
		{name: "options/26 in subcommand",
			body: chat(opt(1, "s", `,"options":`+optsOf(manyOpts(26)...))),
			want: tree(maxLength("options.0.options", 25))},
		{name: "options/not a list", body: `{"name":"cmd","description":"d","options":{}}`,
			want: tree(leaf{"options", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{name: "options/element not object", body: chat(`"x"`),
			want: tree(leaf{"options.0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{name: "options/element null", body: chat(`null`),
			want: tree(leaf{"options.0", "LIST_ITEM_VALUE_REQUIRED", "List item values of ModelType are required"})},
		{name: "options/duplicate names", body: chat(opt(3, "a", ""), opt(4, "a", "")),
			want: tree(optionNameDup("options.1"))},
		{name: "options/duplicate names later index", body: chat(opt(3, "a", ""), opt(3, "b", ""), opt(5, "a", "")),
			want: tree(optionNameDup("options.2"))},
		{name: "options/duplicate subcommands", body: chat(opt(1, "s", ""), opt(2, "s", "")),
			want: tree(optionNameDup("options.1"))},
		{name: "options/duplicate inside subcommand",
			body: chat(opt(1, "s", `,"options":`+optsOf(opt(3, "x", ""), opt(3, "x", "")))),
			want: tree(optionNameDup("options.0.options.1"))},
		// discord-api-docs#4964: the same option name under different
		// subcommands is fine.
		{name: "options/same name in sibling subcommands",
			body: chat(opt(1, "a", `,"options":`+optsOf(opt(3, "x", ""))), opt(1, "b", `,"options":`+optsOf(opt(3, "x", "")))),
		},
		{name: "options/all plain types", body: chat(opt(3, "s", ""), opt(4, "i", ""), opt(5, "b", ""), opt(6, "u", ""),
			opt(7, "c", ""), opt(8, "r", ""), opt(9, "m", ""), opt(10, "n", ""), opt(11, "a", ""))},
	}
}

func nestingCases() []parseCase {
	sub := func(name string, children ...string) string {
		return opt(1, name, `,"options":`+optsOf(children...))
	}
	group := func(name string, children ...string) string {
		return opt(2, name, `,"options":`+optsOf(children...))
	}
	return []parseCase{
		{name: "nesting/subcommands at top", body: chat(sub("a", opt(3, "x", "")), sub("b"))},
		{name: "nesting/group with subcommands",
			body: chat(group("g", sub("a", opt(3, "x", `,"required":true`)), sub("b")), sub("c")),
			check: func(t *testing.T, p command.Parsed) {
				if len(p.Options) != 2 || len(p.Options[0].Options) != 2 || len(p.Options[0].Options[0].Options) != 1 {
					t.Fatalf("bad tree: %+v", p.Options)
				}
				if x := p.Options[0].Options[0].Options[0]; x.Name != "x" || !x.Required {
					t.Errorf("leaf option = %+v", x)
				}
			}},
		{name: "nesting/empty group", body: chat(group("g")), check: wantOptionJSON(
			`{"type":2,"name":"g","description":"An option"}`, 0)},
		{name: "nesting/group without options key", body: chat(opt(2, "g", ""))},
		{name: "nesting/group in group", body: chat(group("g", group("h", sub("s")))),
			want: tree(unionChoices("options.0.options.0", "(1,)"))},
		{name: "nesting/plain option in group", body: chat(group("g", opt(3, "x", ""))),
			want: tree(unionChoices("options.0.options.0", "(1,)"))},
		{name: "nesting/group in subcommand", body: chat(sub("s", group("g"))),
			want: tree(unionChoices("options.0.options.0", "(3, 4, 5, 6, 7, 8, 9, 10, 11)"))},
		{name: "nesting/subcommand in subcommand", body: chat(sub("s", sub("t"))),
			want: tree(unionChoices("options.0.options.0", "(3, 4, 5, 6, 7, 8, 9, 10, 11)"))},
		{name: "nesting/subcommand in subcommand in group", body: chat(group("g", sub("s", sub("t")))),
			want: tree(unionChoices("options.0.options.0.options.0", "(3, 4, 5, 6, 7, 8, 9, 10, 11)"))},
		{name: "nesting/plain then subcommand", body: chat(opt(4, "n", ""), sub("s")),
			want: tree(typeMix("options.1"))},
		{name: "nesting/subcommand then plain", body: chat(sub("s"), opt(3, "x", "")),
			want: tree(typeMix("options.1"))},
		{name: "nesting/group then plain", body: chat(group("g", sub("s")), opt(3, "x", "")),
			want: tree(typeMix("options.1"))},
		{name: "nesting/options on plain option", body: chat(opt(3, "x", `,"options":`+optsOf(opt(3, "y", "")))),
			want: tree(leaf{"options.0.options", "APPLICATION_COMMAND_SUB_OPTIONS_INVALID",
				"Sub-options cannot be configured for this type of option"})},
		{name: "nesting/required subcommand", body: chat(opt(1, "s", `,"required":true`)),
			want: tree(leaf{"options.0.required", "APPLICATION_COMMAND_REQUIRED_INVALID",
				"Required cannot be configured for this type of option"})},
		{name: "nesting/required false subcommand", body: chat(opt(1, "s", `,"required":false`))},
	}
}

func requiredCases() []parseCase {
	req := `,"required":true`
	return []parseCase{
		{name: "required/before optional", body: chat(opt(3, "a", req), opt(3, "b", req), opt(3, "c", ""), opt(3, "d", "")),
			check: func(t *testing.T, p command.Parsed) {
				for i, want := range []bool{true, true, false, false} {
					if p.Options[i].Required != want {
						t.Errorf("option %d required = %v", i, p.Options[i].Required)
					}
				}
			}},
		{name: "required/after optional", body: chat(opt(3, "a", ""), opt(3, "b", req)),
			want: tree(requiredOrder("options.1"))},
		{name: "required/every misplaced one", body: chat(opt(3, "a", req), opt(3, "b", ""), opt(3, "c", req),
			opt(4, "d", ""), opt(5, "e", req)),
			want: tree(requiredOrder("options.2"), requiredOrder("options.4"))},
		{name: "required/in subcommand",
			body: chat(opt(1, "s", `,"options":`+optsOf(opt(3, "a", ""), opt(3, "b", req)))),
			want: tree(requiredOrder("options.0.options.1"))},
		{name: "required/explicit false counts as optional", body: chat(opt(3, "a", `,"required":false`), opt(3, "b", req)),
			want: tree(requiredOrder("options.1"))},
		{name: "required/not bool", body: chat(opt(3, "a", `,"required":"x"`)), want: tree(notBool("options.0.required"))},
	}
}

func choiceCases() []parseCase {
	ch := func(n int, value func(i int) string) string {
		cs := make([]string, n)
		for i := range cs {
			cs[i] = fmt.Sprintf(`{"name":"c%d","value":%s}`, i, value(i))
		}
		return `,"choices":[` + strings.Join(cs, ",") + `]`
	}
	intV := func(i int) string { return fmt.Sprint(i) }
	one := func(v string) string { return `,"choices":[{"name":"c","value":` + v + `}]` }
	return []parseCase{
		{name: "choices/string", body: chat(opt(3, "o", one(`"v"`))),
			check: wantOptionJSON(`{"type":3,"name":"o","description":"An option","choices":[{"name":"c","value":"v"}]}`, 0)},
		{name: "choices/integer", body: chat(opt(4, "o", one(`42`))),
			check: wantOptionJSON(`{"type":4,"name":"o","description":"An option","choices":[{"name":"c","value":42}]}`, 0)},
		{name: "choices/number", body: chat(opt(10, "o", one(`1.5`))),
			check: wantOptionJSON(`{"type":10,"name":"o","description":"An option","choices":[{"name":"c","value":1.5}]}`, 0)},
		{name: "choices/boolean", body: chat(opt(5, "o", one(`true`))),
			want: tree(leaf{"options.0.choices", "APPLICATION_COMMAND_CHOICES_INVALID",
				"Choices cannot be configured for this type of option"})},
		{name: "choices/user", body: chat(opt(6, "o", one(`"1"`))),
			want: tree(leaf{"options.0.choices", "APPLICATION_COMMAND_CHOICES_INVALID",
				"Choices cannot be configured for this type of option"})},
		{name: "choices/subcommand", body: chat(opt(1, "o", one(`"1"`))),
			want: tree(leaf{"options.0.choices", "APPLICATION_COMMAND_CHOICES_INVALID",
				"Choices cannot be configured for this type of option"})},
		{name: "choices/empty list on boolean accepted", body: chat(opt(5, "o", `,"choices":[]`))},
		{name: "choices/25", body: chat(opt(4, "o", ch(25, intV)))},
		{name: "choices/26", body: chat(opt(4, "o", ch(26, intV))), want: tree(maxLength("options.0.choices", 25))},
		{name: "choices/name empty", body: chat(opt(3, "o", `,"choices":[{"name":"","value":"v"}]`)),
			want: tree(badLength("options.0.choices.0.name", 1, 100))},
		{name: "choices/name 100", body: chat(opt(3, "o", `,"choices":[{"name":"`+strings.Repeat("N", 100)+`","value":"v"}]`))},
		{name: "choices/name 101", body: chat(opt(3, "o", `,"choices":[{"name":"`+strings.Repeat("N", 101)+`","value":"v"}]`)),
			want: tree(badLength("options.0.choices.0.name", 1, 100))},
		{name: "choices/name missing", body: chat(opt(3, "o", `,"choices":[{"value":"v"}]`)),
			want: tree(required("options.0.choices.0.name"))},
		{name: "choices/value missing", body: chat(opt(3, "o", `,"choices":[{"name":"c"}]`)),
			want: tree(required("options.0.choices.0.value"))},
		{name: "choices/string value 100", body: chat(opt(3, "o", one(jsonStr(strings.Repeat("v", 100)))))},
		{name: "choices/string value 101", body: chat(opt(3, "o", one(jsonStr(strings.Repeat("v", 101))))),
			want: tree(badLength("options.0.choices.0.value", 0, 100))},
		{name: "choices/string value not string", body: chat(opt(3, "o", one(`5`))),
			want: tree(notString("options.0.choices.0.value", "5"))},
		{name: "choices/integer not integral", body: chat(opt(4, "o", one(`1.5`))),
			want: tree(notInt("options.0.choices.0.value", "1.5"))},
		{name: "choices/integer as string", body: chat(opt(4, "o", one(`"5"`))),
			want: tree(notInt("options.0.choices.0.value", "5"))},
		{name: "choices/integer max", body: chat(opt(4, "o", one(`9007199254740991`))),
			check: wantOptionJSON(`{"type":4,"name":"o","description":"An option","choices":[{"name":"c","value":9007199254740991}]}`, 0)},
		{name: "choices/integer min", body: chat(opt(4, "o", one(`-9007199254740991`)))},
		{name: "choices/integer integral float", body: chat(opt(4, "o", one(`3.0`))),
			check: wantOptionJSON(`{"type":4,"name":"o","description":"An option","choices":[{"name":"c","value":3}]}`, 0)},
		{name: "choices/integer over max", body: chat(opt(4, "o", one(`9007199254740992`))),
			want: tree(intMax("options.0.choices.0.value", 9007199254740991))},
		{name: "choices/integer under min", body: chat(opt(4, "o", one(`-9007199254740992`))),
			want: tree(intMin("options.0.choices.0.value", -9007199254740991))},
		{name: "choices/number max", body: chat(opt(10, "o", one(`9007199254740992`)))},
		{name: "choices/number min", body: chat(opt(10, "o", one(`-9007199254740992`)))},
		{name: "choices/number over max", body: chat(opt(10, "o", one(`9007199254740994`))),
			want: tree(floatMax("options.0.choices.0.value", "9007199254740992"))},
		{name: "choices/number under min", body: chat(opt(10, "o", one(`-1e16`))),
			want: tree(floatMin("options.0.choices.0.value", "-9007199254740992"))},
		{name: "choices/number as string", body: chat(opt(10, "o", one(`"1.5"`))),
			want: tree(notNumber("options.0.choices.0.value", "1.5"))},
		{name: "choices/element not object", body: chat(opt(3, "o", `,"choices":["v"]`)),
			want: tree(leaf{"options.0.choices.0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{name: "choices/null accepted", body: chat(opt(3, "o", `,"choices":null`))},
	}
}

func optionFieldCases() []parseCase {
	return []parseCase{
		// autocomplete
		{name: "autocomplete/string", body: chat(opt(3, "o", `,"autocomplete":true`)),
			check: wantOptionJSON(`{"type":3,"name":"o","description":"An option","autocomplete":true}`, 0)},
		{name: "autocomplete/integer", body: chat(opt(4, "o", `,"autocomplete":true`))},
		{name: "autocomplete/number", body: chat(opt(10, "o", `,"autocomplete":true`))},
		{name: "autocomplete/boolean", body: chat(opt(5, "o", `,"autocomplete":true`)),
			want: tree(leaf{"options.0.autocomplete", "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
				"Autocomplete cannot be configured for this type of option"})},
		{name: "autocomplete/channel", body: chat(opt(7, "o", `,"autocomplete":true`)),
			want: tree(leaf{"options.0.autocomplete", "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
				"Autocomplete cannot be configured for this type of option"})},
		{name: "autocomplete/false on boolean accepted", body: chat(opt(5, "o", `,"autocomplete":false`))},
		{name: "autocomplete/with choices",
			body: chat(opt(3, "o", `,"autocomplete":true,"choices":[{"name":"a","value":"a"}]`)),
			want: tree(leaf{"options.0.autocomplete", "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
				"Autocomplete and choices are mutually exclusive"})},
		{name: "autocomplete/with empty choices", body: chat(opt(3, "o", `,"autocomplete":true,"choices":[]`))},

		// channel_types
		{name: "channel_types/valid", body: chat(opt(7, "c", `,"channel_types":[0,2,5,15]`)),
			check: wantOptionJSON(`{"type":7,"name":"c","description":"An option","channel_types":[0,2,5,15]}`, 0)},
		{name: "channel_types/on string", body: chat(opt(3, "c", `,"channel_types":[0]`)),
			want: tree(leaf{"options.0.channel_types", "APPLICATION_COMMAND_CHANNEL_TYPES_INVALID",
				"Channel types cannot be configured for this type of option"})},
		{name: "channel_types/dm not selectable", body: chat(opt(7, "c", `,"channel_types":[0,1]`)),
			want: tree(choices("options.0.channel_types.1", "(0, 2, 4, 5, 10, 11, 12, 13, 15, 16)"))},
		{name: "channel_types/unknown value", body: chat(opt(7, "c", `,"channel_types":[99]`)),
			want: tree(choices("options.0.channel_types.0", "(0, 2, 4, 5, 10, 11, 12, 13, 15, 16)"))},
		{name: "channel_types/not int", body: chat(opt(7, "c", `,"channel_types":["text"]`)),
			want: tree(notInt("options.0.channel_types.0", "text"))},
		{name: "channel_types/empty on string accepted", body: chat(opt(3, "c", `,"channel_types":[]`))},

		// min_value / max_value
		{name: "value range/integer", body: chat(opt(4, "i", `,"min_value":-5,"max_value":10`)),
			check: wantOptionJSON(`{"type":4,"name":"i","description":"An option","min_value":-5,"max_value":10}`, 0)},
		{name: "value range/number", body: chat(opt(10, "n", `,"min_value":0.5,"max_value":0.75`)),
			check: wantOptionJSON(`{"type":10,"name":"n","description":"An option","min_value":0.5,"max_value":0.75}`, 0)},
		{name: "value range/equal", body: chat(opt(4, "i", `,"min_value":3,"max_value":3`))},
		{name: "value range/on string", body: chat(opt(3, "s", `,"min_value":1`)),
			want: tree(leaf{"options.0.min_value", "APPLICATION_COMMAND_VALUE_RANGE_INVALID",
				"Minimum and maximum values cannot be configured for this type of option"})},
		{name: "value range/max on boolean", body: chat(opt(5, "b", `,"max_value":1`)),
			want: tree(leaf{"options.0.max_value", "APPLICATION_COMMAND_VALUE_RANGE_INVALID",
				"Minimum and maximum values cannot be configured for this type of option"})},
		{name: "value range/min greater than max", body: chat(opt(4, "i", `,"min_value":10,"max_value":1`)),
			want: tree(leaf{"options.0.min_value", "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID",
				"Minimum value must be less than or equal to maximum value"})},
		{name: "value range/number min greater than max", body: chat(opt(10, "n", `,"min_value":0.2,"max_value":0.1`)),
			want: tree(leaf{"options.0.min_value", "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID",
				"Minimum value must be less than or equal to maximum value"})},
		{name: "value range/integer fractional", body: chat(opt(4, "i", `,"min_value":1.5`)),
			want: tree(notInt("options.0.min_value", "1.5"))},
		{name: "value range/integer limits", body: chat(opt(4, "i", `,"min_value":-9007199254740991,"max_value":9007199254740991`))},
		{name: "value range/integer over", body: chat(opt(4, "i", `,"max_value":9007199254740992`)),
			want: tree(intMax("options.0.max_value", 9007199254740991))},
		{name: "value range/integer under", body: chat(opt(4, "i", `,"min_value":-9007199254740992`)),
			want: tree(intMin("options.0.min_value", -9007199254740991))},
		{name: "value range/number limits", body: chat(opt(10, "n", `,"min_value":-9007199254740992,"max_value":9007199254740992`))},
		{name: "value range/number over", body: chat(opt(10, "n", `,"max_value":1e16`)),
			want: tree(floatMax("options.0.max_value", "9007199254740992"))},
		{name: "value range/number as string", body: chat(opt(10, "n", `,"min_value":"1"`)),
			want: tree(notNumber("options.0.min_value", "1"))},

		// min_length / max_length
		{name: "length range/valid", body: chat(opt(3, "s", `,"min_length":0,"max_length":6000`)),
			check: wantOptionJSON(`{"type":3,"name":"s","description":"An option","min_length":0,"max_length":6000}`, 0)},
		{name: "length range/equal", body: chat(opt(3, "s", `,"min_length":5,"max_length":5`))},
		{name: "length range/min negative", body: chat(opt(3, "s", `,"min_length":-1`)),
			want: tree(intMin("options.0.min_length", 0))},
		{name: "length range/min 6001", body: chat(opt(3, "s", `,"min_length":6001`)),
			want: tree(intMax("options.0.min_length", 6000))},
		{name: "length range/min 6000", body: chat(opt(3, "s", `,"min_length":6000`))},
		{name: "length range/max 0", body: chat(opt(3, "s", `,"max_length":0`)),
			want: tree(intMin("options.0.max_length", 1))},
		{name: "length range/max 1", body: chat(opt(3, "s", `,"max_length":1`))},
		{name: "length range/max 6001", body: chat(opt(3, "s", `,"max_length":6001`)),
			want: tree(intMax("options.0.max_length", 6000))},
		{name: "length range/on integer", body: chat(opt(4, "i", `,"min_length":1`)),
			want: tree(leaf{"options.0.min_length", "APPLICATION_COMMAND_LENGTH_RANGE_INVALID",
				"Minimum and maximum lengths cannot be configured for this type of option"})},
		{name: "length range/max on number", body: chat(opt(10, "n", `,"max_length":1`)),
			want: tree(leaf{"options.0.max_length", "APPLICATION_COMMAND_LENGTH_RANGE_INVALID",
				"Minimum and maximum lengths cannot be configured for this type of option"})},
		{name: "length range/min greater than max", body: chat(opt(3, "s", `,"min_length":10,"max_length":5`)),
			want: tree(leaf{"options.0.min_length", "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID",
				"Minimum length must be less than or equal to maximum length"})},
		{name: "length range/not int", body: chat(opt(3, "s", `,"min_length":"x"`)),
			want: tree(notInt("options.0.min_length", "x"))},
	}
}

func localizationCases() []parseCase {
	cmd := func(extra string) string { return `{"name":"hello","description":"Say hello"` + extra + `}` }
	return []parseCase{
		{name: "l10n/full", body: cmd(`,"name_localizations":{"de":"hallo","fr":"bonjour"},` +
			`"description_localizations":{"de":"Sag hallo","ja":"こんにちは"}`),
			check: wantJSON(map[string]string{
				"name_localizations":        `{"de":"hallo","fr":"bonjour"}`,
				"description_localizations": `{"de":"Sag hallo","ja":"こんにちは"}`,
			})},
		{name: "l10n/unknown locale key", body: cmd(`,"description_localizations":{"pt_BR":"Diga olá","de":"Sag hallo"}`),
			want: tree(choices("description_localizations.pt_BR", localeTuple()))},
		{name: "l10n/unknown locale key on name", body: cmd(`,"name_localizations":{"en":"hello2"}`),
			want: tree(choices("name_localizations.en", localeTuple()))},
		{name: "l10n/unknown locale key on option",
			body: chat(opt(3, "o", `,"description_localizations":{"xx":"y"}`)),
			want: tree(choices("options.0.description_localizations.xx", localeTuple()))},
		{name: "l10n/unknown locale key on choice",
			body: chat(opt(3, "o", `,"choices":[{"name":"c","value":"v","name_localizations":{"EN-us":"y"}}]`)),
			want: tree(choices("options.0.choices.0.name_localizations.EN-us", localeTuple()))},
		{name: "l10n/all supported locales", body: func() string {
			var parts []string
			for _, l := range command.Locales() {
				parts = append(parts, fmt.Sprintf(`%q:"hello-%s"`, l, strings.ToLower(l)))
			}
			return cmd(`,"name_localizations":{` + strings.Join(parts, ",") + `}`)
		}()},
		{name: "l10n/invalid localized command name on dict",
			body: cmd(`,"name_localizations":{"de":"Hallo","fr":"bon jour","ja":"ok"}`),
			want: tree(invalidName("name_localizations"))},
		{name: "l10n/localized command name too long per key",
			body: cmd(`,"name_localizations":{"de":"` + strings.Repeat("h", 33) + `"}`),
			want: tree(badLength("name_localizations.de", 1, 32))},
		{name: "l10n/localized command name empty per key", body: cmd(`,"name_localizations":{"de":""}`),
			want: tree(badLength("name_localizations.de", 1, 32))},
		{name: "l10n/localized user name mixed case",
			body:  `{"type":2,"name":"Profile","name_localizations":{"de":"Profil Anzeigen"}}`,
			check: wantJSON(map[string]string{"name_localizations": `{"de":"Profil Anzeigen"}`})},
		{name: "l10n/localized user name blank", body: `{"type":2,"name":"Profile","name_localizations":{"de":" "}}`,
			want: tree(invalidName("name_localizations"))},
		{name: "l10n/invalid localized option name per key",
			body: chat(opt(3, "o", `,"name_localizations":{"de":"Option","fr":"ok-fr","es-ES":"mal nombre"}`)),
			want: tree(invalidName("options.0.name_localizations.de"), invalidName("options.0.name_localizations.es-ES"))},
		{name: "l10n/localized description too long",
			body: cmd(`,"description_localizations":{"tr":"` + strings.Repeat("d", 101) + `"}`),
			want: tree(badLength("description_localizations.tr", 1, 100))},
		{name: "l10n/localized option description too long",
			body: chat(opt(3, "o", `,"description_localizations":{"tr":"`+strings.Repeat("d", 101)+`"}`)),
			want: tree(badLength("options.0.description_localizations.tr", 1, 100))},
		{name: "l10n/localized choice name too long",
			body: chat(opt(3, "o", `,"choices":[{"name":"c","value":"v","name_localizations":{"de":"`+strings.Repeat("n", 101)+`"}}]`)),
			want: tree(badLength("options.0.choices.0.name_localizations.de", 1, 100))},
		{name: "l10n/localized value not string", body: cmd(`,"name_localizations":{"de":5}`),
			want: tree(notString("name_localizations.de", "5"))},
		{name: "l10n/dict not object", body: cmd(`,"name_localizations":["de"]`),
			want: tree(leaf{"name_localizations", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType."})},
		{name: "l10n/values equal to default dropped",
			body:  cmd(`,"name_localizations":{"de":"hello","fr":"bonjour"},"description_localizations":{"en-US":"Say hello"}`),
			check: wantJSON(map[string]string{"name_localizations": `{"fr":"bonjour"}`, "description_localizations": "null"})},
		{name: "l10n/option values equal to default dropped",
			body:  chat(opt(3, "o", `,"name_localizations":{"de":"o"},"description_localizations":{"de":"An option","fr":"Une option"}`)),
			check: wantOptionJSON(`{"type":3,"name":"o","description":"An option","description_localizations":{"fr":"Une option"}}`, 0)},
		{name: "l10n/choice value equal to default dropped",
			body:  chat(opt(3, "o", `,"choices":[{"name":"c","value":"v","name_localizations":{"de":"c","fr":"ch"}}]`)),
			check: wantOptionJSON(`{"type":3,"name":"o","description":"An option","choices":[{"name":"c","name_localizations":{"fr":"ch"},"value":"v"}]}`, 0)},
		{name: "l10n/null values dropped",
			body:  cmd(`,"name_localizations":{"de":null,"fr":"bonjour"},"description_localizations":{"de":null}`),
			check: wantJSON(map[string]string{"name_localizations": `{"fr":"bonjour"}`, "description_localizations": "null"})},
		{name: "l10n/null dictionaries", body: cmd(`,"name_localizations":null,"description_localizations":null`),
			check: wantJSON(map[string]string{"name_localizations": "null", "description_localizations": "null"})},
		{name: "l10n/empty dictionaries", body: cmd(`,"name_localizations":{},"description_localizations":{}`),
			check: wantJSON(map[string]string{"name_localizations": "null", "description_localizations": "null"})},
		{name: "l10n/option names distinct per locale",
			body: chat(opt(3, "a", `,"name_localizations":{"de":"x"}`), opt(3, "b", `,"name_localizations":{"de":"x"}`)),
			want: tree(localizedDup("options.1.name_localizations.de", "de"))},
		{name: "l10n/option name equal to another default",
			body: chat(opt(3, "a", ""), opt(3, "b", `,"name_localizations":{"de":"a"}`)),
			want: tree(localizedDup("options.1.name_localizations.de", "de"))},
		// The error belongs to the option whose localization clashes, not
		// to the option whose default name it copies.
		{name: "l10n/option name equal to a later default",
			body: chat(opt(3, "a", `,"name_localizations":{"de":"b"}`), opt(3, "b", "")),
			want: tree(localizedDup("options.0.name_localizations.de", "de"))},
		{name: "l10n/option name equal to another default even if that one is localized",
			body: chat(opt(3, "a", `,"name_localizations":{"de":"b"}`), opt(3, "b", `,"name_localizations":{"de":"c"}`)),
			want: tree(localizedDup("options.0.name_localizations.de", "de"))},
		{name: "l10n/same localized name in different locales",
			body: chat(opt(3, "a", `,"name_localizations":{"de":"x"}`), opt(3, "b", `,"name_localizations":{"fr":"x"}`))},
		{name: "l10n/subcommand localized names distinct",
			body: chat(opt(1, "a", `,"name_localizations":{"ja":"z"}`), opt(1, "b", `,"name_localizations":{"ja":"z"}`)),
			want: tree(localizedDup("options.1.name_localizations.ja", "ja"))},
		{name: "l10n/localized names distinct inside subcommand",
			body: chat(opt(1, "s", `,"options":`+optsOf(opt(3, "a", `,"name_localizations":{"de":"x"}`),
				opt(3, "b", `,"name_localizations":{"de":"x"}`)))),
			want: tree(localizedDup("options.0.options.1.name_localizations.de", "de"))},
	}
}

func permissionCases() []parseCase {
	cmd := func(v string) string {
		return `{"name":"cmd","description":"d","default_member_permissions":` + v + `}`
	}
	dmp := func(want string) func(*testing.T, command.Parsed) {
		return wantJSON(map[string]string{"default_member_permissions": want})
	}
	return []parseCase{
		{name: "dmp/string", body: cmd(`"8"`), check: dmp(`"8"`)},
		{name: "dmp/int normalized to string", body: cmd(`32`), check: dmp(`"32"`)},
		{name: "dmp/zero string kept", body: cmd(`"0"`), check: dmp(`"0"`)},
		{name: "dmp/zero int kept", body: cmd(`0`), check: dmp(`"0"`)},
		{name: "dmp/null", body: cmd(`null`), check: dmp(`null`)},
		{name: "dmp/absent", body: `{"name":"cmd","description":"d"}`, check: dmp(`null`)},
		{name: "dmp/large", body: cmd(`"2251799813685247"`), check: dmp(`"2251799813685247"`)},
		{name: "dmp/non-numeric", body: cmd(`"abc"`), want: tree(notInt("default_member_permissions", "abc"))},
		{name: "dmp/negative", body: cmd(`"-1"`), want: tree(notInt("default_member_permissions", "-1"))},
		{name: "dmp/bool", body: cmd(`true`), want: tree(notInt("default_member_permissions", "True"))},
		{name: "dmp/too many bits", body: cmd(`"18014398509481984"`),
			want: tree(intMax("default_member_permissions", 1<<54-1))},
	}
}

func installCases() []parseCase {
	return []parseCase{
		{name: "install/global defaults", body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"dm_permission": "true", "integration_types": "[0,1]", "contexts": "null",
				"guild_id": "<absent>", "application_id": `"1000000000000000001"`})},
		{name: "install/global defaults follow the app", target: globalGuildOnlyApp, body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"integration_types": "[0]"})},
		{name: "install/global dm_permission false", body: `{"name":"cmd","description":"d","dm_permission":false}`,
			check: wantJSON(map[string]string{"dm_permission": "false"})},
		{name: "install/global dm_permission null", body: `{"name":"cmd","description":"d","dm_permission":null}`,
			check: wantJSON(map[string]string{"dm_permission": "true"})},
		{name: "install/global explicit", body: `{"name":"cmd","description":"d","integration_types":[1],"contexts":[1,2]}`,
			check: wantJSON(map[string]string{"integration_types": "[1]", "contexts": "[1,2]"})},
		{name: "install/guild defaults", target: guild, body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"dm_permission": "<absent>", "integration_types": "[0]",
				"contexts": "[0,1,2]", "guild_id": `"2000000000000000002"`})},
		{name: "install/guild drops dm_permission", target: guild,
			body:  `{"name":"cmd","description":"d","dm_permission":false}`,
			check: wantJSON(map[string]string{"dm_permission": "<absent>"})},
		{name: "install/guild bulk defaults", target: guildBulk, body: `{"name":"cmd","description":"d"}`,
			check: wantJSON(map[string]string{"integration_types": "[0]", "contexts": "[0,1,2]"})},
		{name: "install/unsupported integration type", target: globalGuildOnlyApp,
			body: `{"name":"cmd","description":"d","integration_types":[0,1]}`,
			want: tree(leaf{"integration_types.1", "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID",
				"Integration type is not supported by the application"})},
		{name: "install/unsupported integration type after a duplicate", target: globalGuildOnlyApp,
			body: `{"name":"cmd","description":"d","integration_types":[0,0,1]}`,
			want: tree(leaf{"integration_types.2", "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID",
				"Integration type is not supported by the application"})},
		// Defaults are always acceptable when sent back (an edit sends the
		// stored command's own fields).
		{name: "install/guild default on user-install-only app", target: guildUserOnlyApp,
			body: `{"name":"cmd","description":"d"}`, check: wantJSON(map[string]string{"integration_types": "[0]"})},
		{name: "install/guild explicit default on user-install-only app", target: guildUserOnlyApp,
			body: `{"name":"cmd","description":"d","integration_types":[0]}`},
		{name: "install/global default on app without types", target: globalNoTypesApp,
			body: `{"name":"cmd","description":"d"}`, check: wantJSON(map[string]string{"integration_types": "[0]"})},
		{name: "install/global explicit default on app without types", target: globalNoTypesApp,
			body: `{"name":"cmd","description":"d","integration_types":[0]}`},
		{name: "install/global user install on app without types", target: globalNoTypesApp,
			body: `{"name":"cmd","description":"d","integration_types":[1]}`,
			want: tree(leaf{"integration_types.0", "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID",
				"Integration type is not supported by the application"})},
		{name: "install/unknown integration type", body: `{"name":"cmd","description":"d","integration_types":[5]}`,
			want: tree(choices("integration_types.0", "(0, 1)"))},
		{name: "install/empty integration types", body: `{"name":"cmd","description":"d","integration_types":[]}`,
			want: tree(minLength("integration_types", 1))},
		{name: "install/empty contexts", body: `{"name":"cmd","description":"d","contexts":[]}`,
			want: tree(minLength("contexts", 1))},
		{name: "install/unknown context", body: `{"name":"cmd","description":"d","contexts":[0,7]}`,
			want: tree(choices("contexts.1", "(0, 1, 2)"))},
		{name: "install/contexts not list", body: `{"name":"cmd","description":"d","contexts":0}`,
			want: tree(leaf{"contexts", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{name: "install/dm_permission not bool", body: `{"name":"cmd","description":"d","dm_permission":"no"}`,
			want: tree(notBool("dm_permission"))},
	}
}

// discoveryCases: an app with discovery enabled cannot have
// age-restricted commands, whatever the request (create, bulk, edit) and
// scope; nsfw false is fine.
func discoveryCases() []parseCase {
	discoverable := command.App{ID: testAppID, IntegrationTypes: []int{0, 1}, Discoverable: true}
	nsfwErr := tree(leaf{"nsfw", "APPLICATION_COMMAND_NSFW_INVALID",
		"Applications with discovery enabled cannot have age-restricted commands"})
	var out []parseCase
	for _, tg := range []struct {
		name  string
		scope command.Scope
		mode  command.Mode
	}{
		{"global create", command.Scope{ApplicationID: testAppID}, command.ModeCreate},
		{"global bulk", command.Scope{ApplicationID: testAppID}, command.ModeBulk},
		{"global edit", command.Scope{ApplicationID: testAppID}, command.ModeEdit},
		{"guild create", command.Scope{ApplicationID: testAppID, GuildID: testGuildID}, command.ModeCreate},
		{"guild bulk", command.Scope{ApplicationID: testAppID, GuildID: testGuildID}, command.ModeBulk},
		{"guild edit", command.Scope{ApplicationID: testAppID, GuildID: testGuildID}, command.ModeEdit},
	} {
		target := command.Target{App: discoverable, Scope: tg.scope, Mode: tg.mode}
		out = append(out,
			parseCase{name: "discovery/" + tg.name + " nsfw", target: target,
				body: `{"name":"cmd","description":"d","nsfw":true}`, want: nsfwErr},
			parseCase{name: "discovery/" + tg.name + " not nsfw", target: target,
				body: `{"name":"cmd","description":"d","nsfw":false}`, check: wantJSON(map[string]string{"nsfw": "false"})},
		)
	}
	notDiscoverable := command.Target{App: appBoth, Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeCreate}
	out = append(out, parseCase{name: "discovery/off: nsfw allowed", target: notDiscoverable,
		body: `{"name":"cmd","description":"d","nsfw":true}`, check: wantJSON(map[string]string{"nsfw": "true"})})
	// An edit keeps integration types the stored command has, even once
	// the app no longer supports them; changing them is checked.
	stored := &command.Command{IntegrationTypes: []int{0, 1}}
	edit := command.Target{App: appGuild, Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeEdit,
		Stored: stored}
	out = append(out,
		parseCase{name: "integration types/edit keeps a type the app dropped", target: edit,
			body:  `{"name":"cmd","description":"new","integration_types":[0,1]}`,
			check: wantJSON(map[string]string{"integration_types": "[0,1]"})},
		parseCase{name: "integration types/edit changing them is checked", target: edit,
			body: `{"name":"cmd","description":"d","integration_types":[1]}`,
			want: tree(leaf{"integration_types.0", "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID",
				"Integration type is not supported by the application"})},
		parseCase{name: "integration types/create checks them all", target: globalGuildOnlyApp,
			body: `{"name":"cmd","description":"d","integration_types":[0,1]}`,
			want: tree(leaf{"integration_types.1", "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID",
				"Integration type is not supported by the application"})},
	)
	return out
}

func entryPointCases() []parseCase {
	return []parseCase{
		{name: "entry point/global with handler", target: globalEmbedded, body: `{"type":4,"name":"Launch","handler":2}`,
			check: wantJSON(map[string]string{"type": "4", "name": `"Launch"`, "handler": "2", "description": `""`})},
		{name: "entry point/app handler", target: globalEmbedded,
			body:  `{"type":4,"name":"Launch","description":"Start the game","handler":1}`,
			check: wantJSON(map[string]string{"handler": "1", "description": `"Start the game"`})},
		{name: "entry point/no handler", target: globalEmbedded, body: `{"type":4,"name":"Launch"}`,
			check: wantJSON(map[string]string{"handler": "<absent>"})},
		{name: "entry point/in guild", target: guildEmbedded, body: `{"type":4,"name":"Launch","handler":2}`,
			want: tree(leaf{"type", "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_GUILD_INVALID",
				"Primary entry point commands cannot be guild commands"})},
		{name: "entry point/options", target: globalEmbedded,
			body: `{"type":4,"name":"Launch","options":[` + opt(3, "o", "") + `]}`,
			want: tree(leaf{"options", "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_OPTIONS_INVALID",
				"Primary entry point commands cannot have options"})},
		{name: "entry point/description too long", target: globalEmbedded,
			body: `{"type":4,"name":"Launch","description":"` + strings.Repeat("d", 101) + `"}`,
			want: tree(badLength("description", 0, 100))},
		{name: "handler/on chat input", target: globalEmbedded, body: `{"name":"cmd","description":"d","handler":1}`,
			want: tree(leaf{"handler", "APPLICATION_COMMAND_HANDLER_INVALID",
				"Handler can only be set on primary entry point commands"})},
		{name: "handler/on user command", target: globalEmbedded, body: `{"type":2,"name":"Profile","handler":2}`,
			want: tree(leaf{"handler", "APPLICATION_COMMAND_HANDLER_INVALID",
				"Handler can only be set on primary entry point commands"})},
		{name: "handler/without embedded flag", body: `{"type":4,"name":"Launch","handler":2}`,
			want: tree(leaf{"handler", "APPLICATION_COMMAND_HANDLER_INVALID",
				"Handler can only be set by applications with an Activity (EMBEDDED flag)"})},
		{name: "handler/unknown", target: globalEmbedded, body: `{"type":4,"name":"Launch","handler":3}`,
			want: tree(choices("handler", "(1, 2)"))},
		{name: "handler/not int", target: globalEmbedded, body: `{"type":4,"name":"Launch","handler":"x"}`,
			want: tree(notInt("handler", "x"))},
	}
}

// bigCommand is a CHAT_INPUT command of 25 INTEGER options with 25 choices
// each. Its size is 7978 + descLen: name "big" (3), 25 × (option name 3 +
// description 1), 625 choice names of 11 and the values 0..24 (40 digits
// per option). extraChoice is laid into the first choice's object.
func bigCommand(descLen int, extraChoice string) string {
	var opts []string
	for i := 0; i < 25; i++ {
		var chs []string
		for j := 0; j < 25; j++ {
			extra := ""
			if i == 0 && j == 0 {
				extra = extraChoice
			}
			chs = append(chs, fmt.Sprintf(`{"name":"c%02d%02dxxxxxx","value":%d%s}`, i, j, j, extra))
		}
		opts = append(opts, fmt.Sprintf(`{"type":4,"name":"o%02d","description":"d","choices":[%s]}`,
			i, strings.Join(chs, ",")))
	}
	return fmt.Sprintf(`{"name":"big","description":%q,"options":[%s]}`, strings.Repeat("D", descLen),
		strings.Join(opts, ","))
}

func wantSize(n int) func(*testing.T, command.Parsed) {
	return func(t *testing.T, p command.Parsed) {
		t.Helper()
		if got := command.TotalLength(&p.Command); got != n {
			t.Errorf("TotalLength = %d, want %d", got, n)
		}
	}
}

func sizeCases() []parseCase {
	return []parseCase{
		{name: "size/exactly 8000", body: bigCommand(22, ""), check: wantSize(8000)},
		{name: "size/8001", body: bigCommand(23, ""), want: tree(tooLarge())},
		{name: "size/8001 in bulk", target: globalBulk, body: bigCommand(23, ""), want: tree(tooLarge())},
		{name: "size/shorter localization does not count", body: bigCommand(22, `,"name_localizations":{"de":"kurz","fr":"c0000yyyyyy"}`),
			check: wantSize(8000)},
		{name: "size/longer localization counts", body: bigCommand(22, `,"name_localizations":{"de":"kurz","ja":"c0000yyyyyyy"}`),
			want: tree(tooLarge())},
		{name: "size/localization equal to default ignored", body: bigCommand(22, `,"name_localizations":{"de":"c0000xxxxxx"}`),
			check: wantSize(8000)},
		{name: "size/longer localized description of command",
			body:  `{"name":"cmd","description":"short","description_localizations":{"de":"` + strings.Repeat("L", 100) + `"}}`,
			check: wantSize(103)},
		{name: "size/longest localization of a name", body: `{"name":"cmd","description":"d","name_localizations":{"de":"kommando","fr":"cmd-fr"}}`,
			check: wantSize(9)},
	}
}

// clientCases are bodies shaped the way client libraries send them.
func clientCases() []parseCase {
	// discordgo marshals every option with these keys, null or false when unset.
	dg := `,"channel_types":null,"required":false,"options":null,"autocomplete":false,"choices":null`
	dgOpt := func(typ int, name, extra string) string { return opt(typ, name, dg+extra) }
	return []parseCase{
		{name: "client/discordgo chat input no options", body: `{"name":"ping","description":"Ping","options":null}`,
			check: checks(wantName("ping"), wantJSON(map[string]string{"type": "1", "options": "<absent>"}))},
		{name: "client/discordgo user command", body: `{"type":2,"name":"Wave at","options":null}`,
			check: wantJSON(map[string]string{"type": "2", "description": `""`})},
		{name: "client/discordgo plain options",
			body: `{"name":"echo","description":"Echo","default_member_permissions":"8","options":[` +
				dgOpt(3, "text", `,"required":true,"max_length":200`) + `,` + dgOpt(7, "where", "") + `,` +
				dgOpt(4, "times", `,"min_value":1,"max_value":5`) + `]}`,
			check: wantOptionJSON(`{"type":3,"name":"text","description":"An option","required":true,"max_length":200}`, 0)},
		{name: "client/discordgo nulls on subcommands and groups",
			body: `{"name":"settings","description":"Settings","options":[` +
				dgOpt(2, "user", `,"options":null`) + `,` +
				opt(1, "show", `,"channel_types":null,"required":false,"autocomplete":false,"choices":null,"options":[`+
					dgOpt(5, "verbose", "")+`]`) + `]}`,
			want: "",
		},
		{name: "client/discordgo subcommand with null options", body: chat(dgOpt(1, "show", ""), dgOpt(2, "grp", ""))},
		{name: "client/discordgo option choices",
			body: chat(opt(3, "color", `,"channel_types":null,"required":false,"options":null,"autocomplete":false,`+
				`"choices":[{"name":"Red","value":"red"},{"name":"Blue","value":"blue","name_localizations":{"de":"Blau"}}]`))},
		{name: "bulk/requested id", target: globalBulk, body: `{"id":"123456789012345678","name":"cmd","description":"d"}`,
			check: func(t *testing.T, p command.Parsed) {
				if p.RequestedID != 123456789012345678 {
					t.Errorf("RequestedID = %d", p.RequestedID)
				}
			}},
		{name: "bulk/bad id", target: globalBulk, body: `{"id":"abc","name":"cmd","description":"d"}`,
			want: tree(leaf{"id", "NUMBER_TYPE_COERCE", `Value "abc" is not snowflake.`})},
		{name: "create/id ignored", body: `{"id":"abc","name":"cmd","description":"d"}`,
			check: func(t *testing.T, p command.Parsed) {
				if p.RequestedID != 0 || p.ID != 0 {
					t.Errorf("ids = %d %d", p.RequestedID, p.ID)
				}
			}},
		{name: "errors/collected across fields",
			body: `{"name":"Bad","description":"","options":[` + opt(3, "a", `,"autocomplete":true,"choices":[{"name":"c","value":"v"}]`) + `]}`,
			want: tree(invalidName("name"), badLength("description", 1, 100), leaf{"options.0.autocomplete",
				"APPLICATION_COMMAND_AUTOCOMPLETE_INVALID", "Autocomplete and choices are mutually exclusive"})},
	}
}

// TestParseDiscordgoFull parses a body exactly as discordgo v0.29
// marshals an ApplicationCommand with a group, subcommands and options,
// and checks the whole normalized result.
func TestParseDiscordgoFull(t *testing.T) {
	body := `{"name":"tags","default_member_permissions":"0","dm_permission":false,"description":"Manage tags",` +
		`"options":[{"type":2,"name":"admin","description":"Admin","channel_types":null,"required":false,` +
		`"options":[{"type":1,"name":"purge","description":"Purge tags","channel_types":null,"required":false,` +
		`"options":[{"type":7,"name":"channel","description":"Where","channel_types":[0,5],"required":true,` +
		`"options":null,"autocomplete":false,"choices":null},{"type":10,"name":"older","description":"Days",` +
		`"channel_types":null,"required":false,"options":null,"autocomplete":false,"choices":null,"min_value":0,` +
		`"max_value":365.5}],"autocomplete":false,"choices":null}],"autocomplete":false,"choices":null},` +
		`{"type":1,"name":"get","description":"Get a tag","channel_types":null,"required":false,"options":[` +
		`{"type":3,"name":"name","name_localizations":{"de":"name-de"},"description":"Tag name","channel_types":null,` +
		`"required":true,"options":null,"autocomplete":true,"choices":null,"min_length":1,"max_length":32}],` +
		`"autocomplete":false,"choices":null}]}`
	p := mustParse(t, body, global)
	got, _ := json.Marshal(&p.Command)
	want := `{"id":"0","type":1,"application_id":"1000000000000000001","name":"tags","name_localizations":null,` +
		`"description":"Manage tags","description_localizations":null,"options":[{"type":2,"name":"admin",` +
		`"description":"Admin","options":[{"type":1,"name":"purge","description":"Purge tags","options":[` +
		`{"type":7,"name":"channel","description":"Where","required":true,"channel_types":[0,5]},` +
		`{"type":10,"name":"older","description":"Days","min_value":0,"max_value":365.5}]}]},` +
		`{"type":1,"name":"get","description":"Get a tag","options":[{"type":3,"name":"name",` +
		`"name_localizations":{"de":"name-de"},"description":"Tag name","required":true,"min_length":1,` +
		`"max_length":32,"autocomplete":true}]}],"default_member_permissions":"0","dm_permission":false,` +
		`"default_permission":true,"nsfw":false,"integration_types":[0,1],"contexts":null,"version":"0"}`
	if !sameJSON(t, string(got), want) {
		t.Fatalf("command\n got %s\nwant %s", got, want)
	}
}

// TestParseErrorsRender checks the exact bytes of a rendered error tree:
// array indexes are string keys and keys are sorted.
func TestParseErrorsRender(t *testing.T) {
	_, errs := parseBody(t, chat(opt(3, "a", ""), opt(3, "b", `,"required":true`)), global)
	got, _ := json.Marshal(errs)
	want := `{"options":{"1":{"_errors":[{"code":"APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",` +
		`"message":"Required options must be placed before non-required options"}]}}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestValidChatInputName(t *testing.T) {
	for _, n := range []string{"hello-command", "it's-a_test", "नमस्ते", "สวัสดี", "你好", strings.Repeat("\U00020000", 32)} {
		if !command.ValidChatInputName(n) {
			t.Errorf("%q rejected", n)
		}
	}
	for _, n := range []string{"", "Hello", "hello!", "hello world", "😀", "İ", "ǅ", "cafe\u0301",
		strings.Repeat("a", 33)} {
		if command.ValidChatInputName(n) {
			t.Errorf("%q accepted", n)
		}
	}
}

func TestTotalLength(t *testing.T) {
	c := command.Command{
		Name: "cmd", NameLocalizations: command.Localizations{"de": "kommando"},
		Description: "desc", DescriptionLocalizations: command.Localizations{"de": "x"},
		Options: []command.Option{{
			Type: command.SubCommand, Name: "sub", Description: "dd",
			Options: []command.Option{{
				Type: command.String, Name: "s", Description: "e",
				Choices: []command.Choice{{Name: "ch", NameLocalizations: command.Localizations{"fr": "choix"}, Value: "val"}},
			}, {
				Type: command.Integer, Name: "i", Description: "f",
				Choices: []command.Choice{{Name: "n", Value: float64(1234)}},
			}},
		}},
	}
	// 8 + 4 + (3+2) + (1+1 + 5+3) + (1+1 + 1+4)
	if got, want := command.TotalLength(&c), 8+4+5+10+7; got != want {
		t.Fatalf("TotalLength = %d, want %d", got, want)
	}

	// Numeric values count as the JSON text the command is returned with.
	for _, tc := range []struct {
		v    float64
		want int
	}{{1e-300, 6}, {-0.5, 4}, {9007199254740992, 16}, {-9007199254740991, 17}, {1.25e-7, 7}} {
		c := command.Command{Name: "n", Description: "d", Options: []command.Option{{Type: command.Number, Name: "o",
			Description: "e", Choices: []command.Choice{{Name: "c", Value: tc.v}}}}}
		if got := command.TotalLength(&c); got != 5+tc.want {
			t.Errorf("value %v counts %d, want %d", tc.v, got-5, tc.want)
		}
	}
	// 25 tiny values fit easily.
	var chs []string
	for i := 0; i < 25; i++ {
		chs = append(chs, fmt.Sprintf(`{"name":"c%d","value":1e-300}`, i))
	}
	p := mustParse(t, chat(opt(10, "n", `,"choices":[`+strings.Join(chs, ",")+`]`)), global)
	if got := command.TotalLength(&p.Command); got != 3+9+1+9+25*6+10*2+15*3 {
		t.Errorf("tiny values: TotalLength = %d", got)
	}
}

// TestParseDoesNotAlias checks that the normalized command does not share
// the app's integration types slice.
func TestParseDoesNotAlias(t *testing.T) {
	app := command.App{ID: testAppID, IntegrationTypes: []int{0, 1}}
	tg := command.Target{App: app, Scope: command.Scope{ApplicationID: testAppID}}
	p := mustParse(t, `{"name":"cmd","description":"d"}`, tg)
	p.IntegrationTypes[0] = 9
	if !reflect.DeepEqual(app.IntegrationTypes, []int{0, 1}) {
		t.Fatalf("app integration types changed: %v", app.IntegrationTypes)
	}
}

// An option with its own error does not hide the rules of its array.
func TestParseReportsArrayRulesDespiteOptionErrors(t *testing.T) {
	body := `{"name":"x","description":"x","options":[
		{"type":3,"name":"Bad","description":"x"},
		{"type":3,"name":"b","description":"x"},
		{"type":3,"name":"b","description":"y","required":true}]}`
	v, err := form.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := command.Parse(v, command.Target{App: command.App{ID: 1, IntegrationTypes: []int{0}}, Scope: command.Scope{ApplicationID: 1}})
	got, _ := json.Marshal(errs)
	want := `{"options":{"0":{"name":{"_errors":[{"code":"APPLICATION_COMMAND_INVALID_NAME","message":"Command name is invalid"}]}},` +
		`"2":{"_errors":[{"code":"APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS","message":"Command name is already used in this options"},` +
		`{"code":"APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID","message":"Required options must be placed before non-required options"}]}}}`
	if string(got) != want {
		t.Fatalf("errors\n got %s\nwant %s", got, want)
	}
}
