package api_test

// End-to-end tests of the invocation rules of POST /interactions (the
// decision list of internal/interaction/doc.go and the checks of
// internal/api/interactions.go): every rule once, with the exact error
// body, and a check that a refused invocation never reaches the app.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// Codes and messages of invocation errors, as the API words them.
const (
	codeCmdInvalid  = "INTERACTION_APPLICATION_COMMAND_INVALID"
	codeOptInvalid  = "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID"
	codeOptRequired = "INTERACTION_APPLICATION_COMMAND_OPTION_REQUIRED"
	msgSubRequired  = "A sub-command or sub-command group is required"
	msgOneFocused   = "Exactly one option must be focused"
)

// ov is one option of an invocation's data.options.
func ov(typ int, name string, value any, extra ...any) jsonObj {
	o := jsonObj{"type": typ, "name": name}
	if value != nil {
		o["value"] = value
	}
	return with(o, extra...)
}

// focused marks an option focused.
func focused(o jsonObj) jsonObj { return with(o, "focused", true) }

// in is w.invocation in another channel.
func (w *invokeWorld) in(channel string, it int, cmd jsonObj, data ...any) jsonObj {
	b := w.invocation(it, cmd, data...)
	b["channel_id"] = channel
	return b
}

func (w *invokeWorld) deliveries() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.received)
}

// invokeCase is one invocation and its expected outcome: an exact error
// body, or 200 with the answer (check sees what the app received).
type invokeCase struct {
	name   string
	client string // the invoking client token; "" is the world's member
	body   any
	status int
	want   string
	check  func(t *testing.T, got *interactions.Interaction, answer jsonObj)
}

// runInvokeCases runs cases in order on w. A refused invocation must not
// reach the app; an accepted one must, exactly once.
func runInvokeCases(t *testing.T, w *invokeWorld, cases []invokeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := c.client
			if client == "" {
				client = w.client
			}
			before := w.deliveries()
			r := mustDo(t, w.e, "POST", "/api/v10/interactions", client, c.body, -1)
			if c.status != 200 {
				wantError(t, r, c.status, c.want)
				if n := w.deliveries(); n != before {
					t.Fatalf("a refused invocation reached the app (%d deliveries)", n-before)
				}
				return
			}
			wantStatus(t, r, 200)
			if n := w.deliveries(); n != before+1 {
				t.Fatalf("deliveries: %d, want 1", n-before)
			}
			if c.check != nil {
				c.check(t, w.last(), decodeObj(t, r))
			}
		})
	}
}

// answerByType answers autocompletes with one choice, commands with a
// message.
func answerByType(i *interactions.Interaction) (interactions.Response, error) {
	if i.Type == interactions.InteractionAutocomplete {
		return interactions.Autocomplete(interactions.Choice{Name: "one", Value: "1"}), nil
	}
	return interactions.Message("ok"), nil
}

func fe(path, code, msg string) string { return formError(leaf{path, code, msg}) }

func TestInvokeOptionRules(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	w.answerWith(answerByType)
	voice := w.world.channel(jsonObj{"name": "voice", "type": 2})
	role := w.role("helpers", "0", 1)

	sub := w.command(jsonObj{"name": "sub", "description": "Sub", "options": []jsonObj{
		{"type": 1, "name": "a", "description": "A", "options": []jsonObj{
			{"type": 3, "name": "s", "description": "S", "required": true}}},
		{"type": 2, "name": "g", "description": "G", "options": []jsonObj{
			{"type": 1, "name": "x", "description": "X"},
			{"type": 1, "name": "y", "description": "Y"}}},
	}})
	need := w.command(jsonObj{"name": "need", "description": "Need", "options": []jsonObj{
		{"type": 3, "name": "first", "description": "First", "required": true},
		{"type": 4, "name": "second", "description": "Second", "required": true},
		{"type": 3, "name": "third", "description": "Third", "autocomplete": true},
	}})
	opts := w.command(jsonObj{"name": "opts", "description": "Every option", "options": []jsonObj{
		{"type": 3, "name": "text", "description": "d", "min_length": 2, "max_length": 5},
		{"type": 3, "name": "minonly", "description": "d", "min_length": 3},
		{"type": 3, "name": "maxonly", "description": "d", "max_length": 3},
		{"type": 3, "name": "free", "description": "d"},
		{"type": 4, "name": "count", "description": "d", "min_value": 1, "max_value": 10},
		{"type": 10, "name": "ratio", "description": "d", "min_value": 0.5, "max_value": 2.5},
		{"type": 4, "name": "big", "description": "d"},
		{"type": 10, "name": "bignum", "description": "d"},
		{"type": 3, "name": "color", "description": "d", "choices": []jsonObj{
			{"name": "Red", "value": "red"}, {"name": "Blue", "value": "blue"}}},
		{"type": 4, "name": "level", "description": "d", "choices": []jsonObj{
			{"name": "One", "value": 1}, {"name": "Two", "value": 2}}},
		{"type": 5, "name": "flag", "description": "d"},
		{"type": 6, "name": "who", "description": "d"},
		{"type": 8, "name": "role", "description": "d"},
		{"type": 9, "name": "m", "description": "d"},
		{"type": 7, "name": "voice", "description": "d", "channel_types": []int{2}},
		{"type": 7, "name": "any", "description": "d"},
		{"type": 11, "name": "file", "description": "d"},
		{"type": 3, "name": "q", "description": "d", "autocomplete": true, "min_length": 2, "max_length": 4},
		{"type": 4, "name": "n", "description": "d", "autocomplete": true, "min_value": 5, "max_value": 10},
		{"type": 10, "name": "x", "description": "d", "autocomplete": true},
	}})
	userC := w.command(userCmd("Inspect"))
	opt := func(o ...jsonObj) []any { return []any{"options", o} }
	cmd2 := func(cmd jsonObj, options ...jsonObj) jsonObj { return w.invocation(2, cmd, opt(options...)...) }
	auto := func(cmd jsonObj, options ...jsonObj) jsonObj { return w.invocation(4, cmd, opt(options...)...) }
	val := func(path, code, msg string) string { return fe("data.options."+path, code, msg) }
	unknown := "123456789012345678"

	// resource is the answer's resource.type.
	resource := func(want float64) func(*testing.T, *interactions.Interaction, jsonObj) {
		return func(t *testing.T, _ *interactions.Interaction, a jsonObj) {
			if res, _ := a["resource"].(jsonObj); res["type"] != want {
				t.Fatalf("resource: %v, want type %v", a["resource"], want)
			}
		}
	}
	value := func(name string, want any) func(*testing.T, *interactions.Interaction, jsonObj) {
		return func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
			var data struct {
				Options []struct {
					Name    string          `json:"name"`
					Value   json.RawMessage `json:"value"`
					Focused bool            `json:"focused"`
				} `json:"options"`
			}
			var p struct{ Data json.RawMessage }
			if err := json.Unmarshal(got.Raw, &p); err != nil || json.Unmarshal(p.Data, &data) != nil {
				t.Fatalf("delivered %s", got.Raw)
			}
			for _, o := range data.Options {
				if o.Name == name {
					if string(o.Value) != want {
						t.Fatalf("value of %s: %s, want %s", name, o.Value, want)
					}
					return
				}
			}
			t.Fatalf("no option %s in %s", name, p.Data)
		}
	}

	runInvokeCases(t, w, []invokeCase{
		// Parse.
		{name: "empty body", body: jsonObj{}, status: 400, want: formError(
			leaf{"type", "BASE_TYPE_REQUIRED", msgRequired}, leaf{"application_id", "BASE_TYPE_REQUIRED", msgRequired},
			leaf{"channel_id", "BASE_TYPE_REQUIRED", msgRequired}, leaf{"data", "BASE_TYPE_REQUIRED", msgRequired})},
		{name: "interaction type 6", body: with(cmd2(opts), "type", 6), status: 400,
			want: fe("type", "BASE_TYPE_CHOICES", "Value must be one of (2, 3, 4, 5).")},
		{name: "data without version", body: with(cmd2(opts), "data", jsonObj{"id": opts["id"], "name": "opts", "type": 1}),
			status: 400, want: fe("data.version", "BASE_TYPE_REQUIRED", msgRequired)},
		{name: "26 options", body: cmd2(opts, func() []jsonObj {
			l := make([]jsonObj, 26)
			for i := range l {
				l[i] = ov(3, "free", "v")
			}
			return l
		}()...), status: 400, want: fe("data.options", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")},
		{name: "target_id not a snowflake", body: w.invocation(2, userC, "target_id", "me"), status: 400,
			want: fe("data.target_id", "NUMBER_TYPE_COERCE", notSnowflake("me"))},
		{name: "options nested too deeply", body: cmd2(sub, ov(2, "g", nil, "options", []jsonObj{
			ov(1, "x", nil, "options", []jsonObj{ov(3, "z", nil, "options", []jsonObj{})})})), status: 400,
			want: val("0.options.0.options.0.options", codeOptInvalid, "Options are nested too deeply")},
		{name: "string given a number", body: cmd2(opts, ov(3, "free", 5)), status: 400,
			want: val("0.value", "STRING_TYPE_CONVERT", `Could not interpret "5" as string.`)},
		{name: "integer given a string", body: cmd2(opts, ov(4, "count", "3")), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", `Value "3" is not int.`)},
		{name: "integer given a fraction", body: cmd2(opts, ov(4, "count", 1.5)), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", `Value "1.5" is not int.`)},
		{name: "number given a string", body: cmd2(opts, ov(10, "ratio", "1")), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", `Value "1" is not a valid number.`)},
		{name: "boolean given a string", body: cmd2(opts, ov(5, "flag", "yes")), status: 400,
			want: val("0.value", "BOOLEAN_TYPE_CONVERT", "Must be either true or false.")},
		{name: "user given a non-snowflake", body: cmd2(opts, ov(6, "who", "abc")), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", notSnowflake("abc"))},

		// The command itself.
		{name: "name mismatch", body: with(cmd2(opts), "data", jsonObj{"id": opts["id"], "name": "other", "type": 1,
			"version": opts["version"]}), status: 400,
			want: fe("data.name", codeCmdInvalid, "Application command name does not match")},
		{name: "type mismatch", body: with(cmd2(opts), "data", jsonObj{"id": opts["id"], "name": "opts", "type": 2,
			"version": opts["version"], "target_id": w.owner}), status: 400,
			want: fe("data.type", codeCmdInvalid, "Application command type does not match")},
		{name: "autocomplete of a user command", body: w.invocation(4, userC, "target_id", w.owner), status: 400,
			want: fe("data.type", codeCmdInvalid, "Autocomplete is only available for chat input commands")},
		{name: "chat input with a target", body: w.invocation(2, opts, "target_id", w.owner), status: 400,
			want: fe("data.target_id", codeOptInvalid, "Only user and message commands have a target")},
		{name: "user command without target", body: w.invocation(2, userC), status: 400,
			want: fe("data.target_id", "BASE_TYPE_REQUIRED", msgRequired)},
		{name: "user command with options", body: w.invocation(2, userC, "target_id", w.owner,
			"options", []jsonObj{ov(3, "free", "x")}), status: 400,
			want: fe("data.options", codeOptInvalid, "Context menu commands cannot have options")},
		{name: "user command on an unknown user", body: w.invocation(2, userC, "target_id", unknown), status: 400,
			want: fe("data.target_id", codeOptInvalid, "Unknown user")},
		{name: "user command", body: w.invocation(2, userC, "target_id", w.owner), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				if u, ok := got.Data.TargetUser(); !ok || u.ID != w.owner {
					t.Fatalf("target: %s", got.Raw)
				}
			}},

		// Subcommand path.
		{name: "no subcommand", body: cmd2(sub), status: 400,
			want: fe("data.options", codeOptRequired, msgSubRequired)},
		{name: "two subcommands", body: cmd2(sub, ov(1, "a", nil, "options", []jsonObj{ov(3, "s", "v")}),
			ov(2, "g", nil, "options", []jsonObj{ov(1, "x", nil)})), status: 400,
			want: fe("data.options", "BASE_TYPE_MAX_LENGTH", "Must be 1 or fewer in length.")},
		{name: "group without subcommand", body: cmd2(sub, ov(2, "g", nil)), status: 400,
			want: val("0.options", codeOptRequired, msgSubRequired)},
		{name: "group with two subcommands", body: cmd2(sub, ov(2, "g", nil, "options", []jsonObj{ov(1, "x", nil), ov(1, "y", nil)})),
			status: 400, want: val("0.options", "BASE_TYPE_MAX_LENGTH", "Must be 1 or fewer in length.")},
		{name: "subcommand with a value", body: cmd2(sub, ov(1, "a", "v")), status: 400,
			want: val("0.value", codeOptInvalid, "Sub-commands and sub-command groups cannot have a value")},
		{name: "value option with options", body: cmd2(opts, ov(3, "free", "v", "options", []jsonObj{ov(3, "free", "w")})),
			status: 400, want: val("0.options", codeOptInvalid, "Only sub-commands and sub-command groups can have options")},
		{name: "subcommand missing its required option", body: cmd2(sub, ov(1, "a", nil)), status: 400,
			want: val("0.options", codeOptRequired, `Option "s" is required`)},
		{name: "subcommand", body: cmd2(sub, ov(1, "a", nil, "options", []jsonObj{ov(3, "s", "v")})), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				if p := got.Data.SubcommandPath(); len(p) != 1 || p[0] != "a" {
					t.Fatalf("path %v", p)
				}
			}},
		{name: "group subcommand", body: cmd2(sub, ov(2, "g", nil, "options", []jsonObj{ov(1, "y", nil)})), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				if p := got.Data.SubcommandPath(); strings.Join(p, " ") != "g y" {
					t.Fatalf("path %v", p)
				}
			}},

		// Options of a level.
		{name: "duplicate option", body: cmd2(opts, ov(3, "free", "a"), ov(3, "free", "b")), status: 400,
			want: val("1.name", "INTERACTION_APPLICATION_COMMAND_OPTION_DUPLICATE", "Option names must be unique")},
		{name: "unknown option", body: cmd2(opts, ov(3, "nope", "a")), status: 400,
			want: val("0.name", "INTERACTION_APPLICATION_COMMAND_OPTION_UNKNOWN", "Unknown option")},
		{name: "option of another type", body: cmd2(opts, ov(4, "free", 3)), status: 400,
			want: val("0.type", "INTERACTION_APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Option type does not match the command definition")},
		{name: "option without value", body: cmd2(opts, ov(3, "free", nil)), status: 400,
			want: val("0.value", "BASE_TYPE_REQUIRED", msgRequired)},
		{name: "required options missing", body: cmd2(need), status: 400, want: formError(
			leaf{"data.options", codeOptRequired, `Option "first" is required`},
			leaf{"data.options", codeOptRequired, `Option "second" is required`})},
		{name: "one required option missing", body: cmd2(need, ov(3, "first", "a")), status: 400,
			want: fe("data.options", codeOptRequired, `Option "second" is required`)},
		{name: "required options are not required in an autocomplete", body: auto(need, focused(ov(3, "third", "a"))),
			status: 200, check: resource(8)},

		// String lengths, in code points.
		{name: "string below min_length of a range", body: cmd2(opts, ov(3, "text", "a")), status: 400,
			want: val("0.value", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 5 in length.")},
		{name: "string above max_length of a range", body: cmd2(opts, ov(3, "text", "abcdef")), status: 400,
			want: val("0.value", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 5 in length.")},
		{name: "string below min_length", body: cmd2(opts, ov(3, "minonly", "ab")), status: 400,
			want: val("0.value", "BASE_TYPE_MIN_LENGTH", "Must be 3 or more in length.")},
		{name: "string above max_length", body: cmd2(opts, ov(3, "maxonly", "abcd")), status: 400,
			want: val("0.value", "BASE_TYPE_MAX_LENGTH", "Must be 3 or fewer in length.")},
		{name: "string above the default 6000", body: cmd2(opts, ov(3, "free", strings.Repeat("x", 6001))), status: 400,
			want: val("0.value", "BASE_TYPE_MAX_LENGTH", "Must be 6000 or fewer in length.")},
		{name: "string lengths count code points", body: cmd2(opts, ov(3, "text", "ééééé")), status: 200,
			check: value("text", `"ééééé"`)},

		// Numbers.
		{name: "integer below min_value", body: cmd2(opts, ov(4, "count", 0)), status: 400,
			want: val("0.value", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 1.")},
		{name: "integer above max_value", body: cmd2(opts, ov(4, "count", 11)), status: 400,
			want: val("0.value", "NUMBER_TYPE_MAX", "int value should be less than or equal to 10.")},
		{name: "number below min_value", body: cmd2(opts, ov(10, "ratio", 0.25)), status: 400,
			want: val("0.value", "NUMBER_TYPE_MIN", "float value should be greater than or equal to 0.5.")},
		{name: "number above max_value", body: cmd2(opts, ov(10, "ratio", 3)), status: 400,
			want: val("0.value", "NUMBER_TYPE_MAX", "float value should be less than or equal to 2.5.")},
		{name: "integer above 2^53-1", body: cmd2(opts, ov(4, "big", json.Number("9007199254740992"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_MAX", "int value should be less than or equal to 9007199254740991.")},
		{name: "integer below -(2^53-1)", body: cmd2(opts, ov(4, "big", json.Number("-9007199254740992"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_MIN", "int value should be greater than or equal to -9007199254740991.")},
		{name: "number above 2^53", body: cmd2(opts, ov(10, "bignum", json.Number("1e16"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_MAX", "float value should be less than or equal to 9007199254740992.")},
		{name: "number below -2^53", body: cmd2(opts, ov(10, "bignum", json.Number("-1e300"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_MIN", "float value should be greater than or equal to -9007199254740992.")},
		{name: "integer at 2^53-1", body: cmd2(opts, ov(4, "big", json.Number("9007199254740991"))), status: 200,
			check: value("big", "9007199254740991")},
		{name: "numbers within bounds", body: cmd2(opts, ov(4, "count", 10), ov(10, "ratio", 2.5)), status: 200,
			check: value("ratio", "2.5")},

		// Choices.
		{name: "string not a choice", body: cmd2(opts, ov(3, "color", "green")), status: 400,
			want: val("0.value", "BASE_TYPE_CHOICES", "Value must be one of ('red', 'blue').")},
		{name: "integer not a choice", body: cmd2(opts, ov(4, "level", 3)), status: 400,
			want: val("0.value", "BASE_TYPE_CHOICES", "Value must be one of (1, 2).")},
		{name: "choices", body: cmd2(opts, ov(3, "color", "blue"), ov(4, "level", 2)), status: 200,
			check: value("level", "2")},

		// Autocomplete.
		{name: "autocomplete without a focused option", body: auto(opts, ov(3, "q", "ab")), status: 400,
			want: fe("data.options", codeOptInvalid, msgOneFocused)},
		{name: "autocomplete with two focused options", body: auto(opts, focused(ov(3, "q", "ab")), focused(ov(4, "n", "1"))),
			status: 400, want: val("1.focused", codeOptInvalid, msgOneFocused)},
		{name: "focused option without autocomplete", body: auto(opts, focused(ov(3, "free", "ab"))), status: 400,
			want: val("0.focused", codeOptInvalid, "Autocomplete is not enabled for this option")},
		{name: "focused option in a command", body: cmd2(opts, focused(ov(3, "q", "ab"))), status: 400,
			want: val("0.focused", codeOptInvalid, "Only autocomplete interactions can have a focused option")},
		{name: "autocomplete integer sent as a number", body: auto(opts, focused(ov(4, "n", 5))), status: 400,
			want: val("0.value", "STRING_TYPE_CONVERT", `Could not interpret "5" as string.`)},
		{name: "partial integer not an integer", body: auto(opts, focused(ov(4, "n", "1.5"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", `Value "1.5" is not int.`)},
		{name: "partial integer out of range", body: auto(opts, focused(ov(4, "n", "9007199254740992"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_MAX", "int value should be less than or equal to 9007199254740991.")},
		{name: "partial number in exponent form", body: auto(opts, focused(ov(10, "x", "1e3"))), status: 400,
			want: val("0.value", "NUMBER_TYPE_COERCE", `Value "1e3" is not a valid number.`)},
		{name: "partial string above max_length", body: auto(opts, focused(ov(3, "q", "abcde"))), status: 400,
			want: val("0.value", "BASE_TYPE_MAX_LENGTH", "Must be 4 or fewer in length.")},
		{name: "complete integer of an autocomplete below min_value", body: auto(opts, focused(ov(3, "q", "a")),
			ov(4, "count", "0")), status: 400,
			want: val("1.value", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 1.")},
		{name: "complete integer of an autocomplete must be whole", body: auto(opts, focused(ov(3, "q", "a")),
			ov(4, "count", "1.")), status: 400, want: val("1.value", "NUMBER_TYPE_COERCE", `Value "1." is not int.`)},
		{name: "partial integer below min_value passes", body: auto(opts, focused(ov(4, "n", "1"))), status: 200,
			check: value("n", `"1"`)},
		{name: "partial integer '-' passes", body: auto(opts, focused(ov(4, "n", "-"))), status: 200, check: value("n", `"-"`)},
		{name: "empty partial integer passes", body: auto(opts, focused(ov(4, "n", ""))), status: 200, check: value("n", `""`)},
		{name: "partial number '1.' passes", body: auto(opts, focused(ov(10, "x", "1."))), status: 200, check: value("x", `"1."`)},
		{name: "partial string below min_length passes", body: auto(opts, focused(ov(3, "q", "a")), ov(4, "count", "3")),
			status: 200, check: func(t *testing.T, got *interactions.Interaction, a jsonObj) {
				resource(8)(t, got, a)
				value("count", `"3"`)(t, got, a)
				if f, ok := got.Data.Focused(); !ok || f.Name != "q" {
					t.Fatalf("focused: %s", got.Raw)
				}
			}},

		// Ids, resolved against the world.
		{name: "unknown user", body: cmd2(opts, ov(6, "who", unknown)), status: 400,
			want: val("0.value", codeOptInvalid, "Unknown user")},
		{name: "unknown role", body: cmd2(opts, ov(8, "role", unknown)), status: 400,
			want: val("0.value", codeOptInvalid, "Unknown role")},
		{name: "unknown mentionable", body: cmd2(opts, ov(9, "m", unknown)), status: 400,
			want: val("0.value", codeOptInvalid, "Unknown user or role")},
		{name: "unknown channel", body: cmd2(opts, ov(7, "any", unknown)), status: 400,
			want: val("0.value", codeOptInvalid, "Unknown channel")},
		{name: "channel of a type the option excludes", body: cmd2(opts, ov(7, "voice", w.channel)), status: 400,
			want: val("0.value", codeOptInvalid, "Channel type is not allowed for this option")},
		{name: "unknown attachment", body: cmd2(opts, ov(11, "file", "111111111111111111")), status: 400,
			want: val("0.value", codeOptInvalid, "Unknown attachment")},
		{name: "every id resolved", body: w.invocation(2, opts, "options", []jsonObj{
			ov(6, "who", w.member), ov(8, "role", role), ov(9, "m", role), ov(7, "voice", voice), ov(11, "file", "111111111111111111")},
			"attachments", []jsonObj{{"id": "111111111111111111", "filename": "cat.png", "size": 12}}), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				r := got.Data.Resolved
				a, ok := r.Attachments["111111111111111111"]
				if !ok || a.Filename != "cat.png" || a.Size != 12 || a.URL == "" {
					t.Fatalf("resolved attachments: %s", got.Raw)
				}
				if r.Users[w.member].ID != w.member || r.Members[w.member].Permissions == "" || r.Roles[role].ID != role ||
					r.Channels[voice].Type != 2 {
					t.Fatalf("resolved: %s", got.Raw)
				}
			}},
	})
}

// Which command, where, by whom, and which version.
func TestInvokeCommandChecks(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	p := w.paths
	muted := w.role("muted", "0", 1)
	bob := w.memberNamed("bob", muted)
	bobClient := w.world.client(bob)
	stranger := w.world.client(w.user("stranger"))
	ownerClient := w.world.client(w.owner)
	readOnly := w.world.channel(jsonObj{"name": "read-only", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "2048"}}})
	hidden := w.world.channel(jsonObj{"name": "hidden", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "1024"}}})
	other := w.world.channel(jsonObj{"name": "other", "type": 0})

	plain := w.command(chat("plain"))
	admins := w.command(with(chat("admins"), "default_member_permissions", "8"))
	locked := w.command(chat("locked"))
	mustDo(t, e, "PUT", p.cmdPerms(str(locked, "id")), w.editor(w.owner), permsBody(entry(muted, 1, false)), 200)
	inspect := w.command(userCmd("Inspect"))
	quote := w.command(msgCmd("Quote"))

	global := create(t, e, p.global(), e.Bot(), chat("global"))
	edited := decodeObj(t, mustDo(t, e, "PATCH", p.globalCmd(str(global, "id")), e.Bot(),
		jsonObj{"description": "Edited"}, 200))
	if str(edited, "version") == str(global, "version") {
		t.Fatalf("PATCH kept version %s", str(edited, "version"))
	}
	guildCmd := w.command(chat("guildcmd"))
	mustDo(t, e, "PATCH", p.guildCmd(str(guildCmd, "id")), e.Bot(), jsonObj{"description": "Edited"}, 200)

	postMsg := func(ch, content string) string {
		return str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+ch+"/messages", w.client,
			jsonObj{"content": content}, 200)), "id")
	}
	here := postMsg(w.channel, "quote me")
	there := postMsg(other, "elsewhere")

	otherGuild := adminNewGuild(t, e, "other guild", w.owner)
	elsewhere := e.NewApp(bootstrap.AppOptions{Name: "elsewhere"}) // installed in its own guild only
	elsewhereCmd := create(t, e, pathsFor("/api/v10", elsewhere).global(), "Bot "+elsewhere.BotToken, chat("elsewhere"))

	// Bob's ephemeral answer: a message only bob can target.
	secret := w.command(chat("secret"))
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Data.Name == "secret" {
			return interactions.Message("for bob", interactions.Ephemeral()), nil
		}
		return interactions.Message("ok"), nil
	})
	bobSecret := str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/interactions", bobClient, w.invocation(2, secret), 200))["resource"].(jsonObj)["message"].(jsonObj), "id")
	unknown := "123456789012345678"

	runInvokeCases(t, w, []invokeCase{
		{name: "unknown command id", body: with(w.invocation(2, plain), "data",
			jsonObj{"id": unknown, "name": "plain", "type": 1, "version": plain["version"]}),
			status: 404, want: bodyUnknownCommand},
		{name: "unknown channel", body: w.in(unknown, 2, plain), status: 404, want: bodyUnknownChannel},
		{name: "channel of another guild", body: with(w.invocation(2, plain), "guild_id", otherGuild),
			status: 404, want: bodyUnknownChannel},
		{name: "unknown application", body: with(w.invocation(2, plain), "application_id", unknown),
			status: 404, want: bodyUnknownApp},
		{name: "application not installed in the guild", body: with(w.invocation(2, elsewhereCmd), "application_id",
			elsewhere.ApplicationID), status: 404, want: bodyUnknownCommand},
		{name: "not a member", client: stranger, body: w.invocation(2, plain), status: 403, want: bodyMissingAccess},
		{name: "channel the member cannot see", body: w.in(hidden, 2, plain), status: 403, want: bodyMissingAccess},
		{name: "default_member_permissions ADMINISTRATOR", body: w.invocation(2, admins), status: 403, want: bodyMissingPerms},
		{name: "the owner passes default_member_permissions", client: ownerClient, body: w.invocation(2, admins), status: 200},
		{name: "overwrite denying the member's role", client: bobClient, body: w.invocation(2, locked),
			status: 403, want: bodyMissingPerms},
		{name: "overwrite not about this member", body: w.invocation(2, locked), status: 200},
		{name: "user command without SEND_MESSAGES", body: w.in(readOnly, 2, inspect, "target_id", w.owner),
			status: 403, want: bodyMissingPerms},
		{name: "chat input without SEND_MESSAGES", body: w.in(readOnly, 2, plain), status: 200},
		{name: "user command with SEND_MESSAGES", body: w.invocation(2, inspect, "target_id", w.owner), status: 200},
		{name: "message command on a message of another channel", body: w.invocation(2, quote, "target_id", there),
			status: 400, want: fe("data.target_id", codeOptInvalid, "Unknown message")},
		{name: "message command on an unknown message", body: w.invocation(2, quote, "target_id", unknown),
			status: 400, want: fe("data.target_id", codeOptInvalid, "Unknown message")},
		{name: "message command on another user's ephemeral message", body: w.invocation(2, quote, "target_id", bobSecret),
			status: 400, want: fe("data.target_id", codeOptInvalid, "Unknown message")},
		{name: "message command on one's own ephemeral message", client: bobClient,
			body: w.invocation(2, quote, "target_id", bobSecret), status: 200},
		{name: "message command", body: w.invocation(2, quote, "target_id", here), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, a jsonObj) {
				if m, ok := got.Data.TargetMessage(); !ok || m.Content != "quote me" {
					t.Fatalf("target: %s", got.Raw)
				}
				msg, _ := a["resource"].(jsonObj)["message"].(jsonObj)
				if msg["type"] != float64(23) {
					t.Fatalf("a context menu command's answer is type 23: %v", msg)
				}
			}},
		{name: "stale version of a global command", body: w.invocation(2, global), status: 400,
			want: fe("data", "INTERACTION_APPLICATION_COMMAND_INVALID_VERSION", "This command is outdated, please try again in a few minutes")},
		{name: "current version of a global command", body: w.invocation(2, edited), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				if got.Data.GuildID != "" || got.Data.Name != "global" {
					t.Fatalf("global command data: %s", got.Raw)
				}
			}},
		{name: "stale version of a guild command", body: w.invocation(2, guildCmd), status: 200,
			check: func(t *testing.T, got *interactions.Interaction, _ jsonObj) {
				if got.Data.GuildID != w.guild {
					t.Fatalf("guild command data: %s", got.Raw)
				}
			}},
	})
}
