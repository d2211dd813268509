package command_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

const (
	testAppID   snowflake.ID = 1000000000000000001
	testGuildID snowflake.ID = 2000000000000000002
)

// Targets used by the tables.
var (
	appBoth     = command.App{ID: testAppID, IntegrationTypes: []int{0, 1}}
	appGuild    = command.App{ID: testAppID, IntegrationTypes: []int{0}}
	appEmbedded = command.App{ID: testAppID, Flags: command.ApplicationFlagEmbedded, IntegrationTypes: []int{0, 1}}

	global = command.Target{App: appBoth, Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeCreate}
	guild  = command.Target{App: appBoth, Scope: command.Scope{ApplicationID: testAppID, GuildID: testGuildID},
		Mode: command.ModeCreate}
	globalGuildOnlyApp = command.Target{App: appGuild, Scope: command.Scope{ApplicationID: testAppID},
		Mode: command.ModeCreate}
	guildUserOnlyApp = command.Target{App: command.App{ID: testAppID, IntegrationTypes: []int{1}},
		Scope: command.Scope{ApplicationID: testAppID, GuildID: testGuildID}, Mode: command.ModeCreate}
	globalNoTypesApp = command.Target{App: command.App{ID: testAppID},
		Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeCreate}
	globalEmbedded = command.Target{App: appEmbedded, Scope: command.Scope{ApplicationID: testAppID},
		Mode: command.ModeCreate}
	guildEmbedded = command.Target{App: appEmbedded,
		Scope: command.Scope{ApplicationID: testAppID, GuildID: testGuildID}, Mode: command.ModeCreate}
	globalBulk = command.Target{App: appBoth, Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeBulk}
	guildBulk  = command.Target{App: appBoth, Scope: command.Scope{ApplicationID: testAppID, GuildID: testGuildID},
		Mode: command.ModeBulk}
)

// leaf is one expected error: a dotted path ("" for the top level), a code
// and a message.
type leaf struct{ path, code, msg string }

// tree renders leaves as the canonical JSON of an error tree, the form
// json.Marshal(*apierr.Fields) produces.
func tree(leaves ...leaf) string {
	root := map[string]any{}
	for _, l := range leaves {
		node := root
		if l.path != "" {
			for _, k := range strings.Split(l.path, ".") {
				child, ok := node[k].(map[string]any)
				if !ok {
					child = map[string]any{}
					node[k] = child
				}
				node = child
			}
		}
		errs, _ := node["_errors"].([]any)
		node["_errors"] = append(errs, map[string]any{"code": l.code, "message": l.msg})
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Expected leaves, with the codes and messages written out as the wire
// carries them.
func required(path string) leaf { return leaf{path, "BASE_TYPE_REQUIRED", "This field is required"} }

func badLength(path string, min, max int) leaf {
	return leaf{path, "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between %d and %d in length.", min, max)}
}

func maxLength(path string, n int) leaf {
	return leaf{path, "BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", n)}
}

func minLength(path string, n int) leaf {
	return leaf{path, "BASE_TYPE_MIN_LENGTH", fmt.Sprintf("Must be %d or more in length.", n)}
}

func choices(path, tuple string) leaf {
	return leaf{path, "BASE_TYPE_CHOICES", "Value must be one of " + tuple + "."}
}

func unionChoices(path, tuple string) leaf {
	return leaf{path, "UNION_TYPE_CHOICES", `Value of field "type" must be one of ` + tuple + "."}
}

func invalidName(path string) leaf {
	return leaf{path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}
}

func notString(path, v string) leaf {
	return leaf{path, "STRING_TYPE_CONVERT", fmt.Sprintf("Could not interpret %q as string.", v)}
}

func notInt(path, v string) leaf {
	return leaf{path, "NUMBER_TYPE_COERCE", fmt.Sprintf("Value %q is not int.", v)}
}

func notNumber(path, v string) leaf {
	return leaf{path, "NUMBER_TYPE_COERCE", fmt.Sprintf("Value %q is not a valid number.", v)}
}

func notBool(path string) leaf {
	return leaf{path, "BOOLEAN_TYPE_CONVERT", "Must be either true or false."}
}

func intMax(path string, n int64) leaf {
	return leaf{path, "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", n)}
}

func intMin(path string, n int64) leaf {
	return leaf{path, "NUMBER_TYPE_MIN", fmt.Sprintf("int value should be greater than or equal to %d.", n)}
}

func floatMax(path, n string) leaf {
	return leaf{path, "NUMBER_TYPE_MAX", "float value should be less than or equal to " + n + "."}
}

func floatMin(path, n string) leaf {
	return leaf{path, "NUMBER_TYPE_MIN", "float value should be greater than or equal to " + n + "."}
}

func requiredOrder(path string) leaf {
	return leaf{path, "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
		"Required options must be placed before non-required options"}
}

func typeMix(path string) leaf {
	return leaf{path, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
		"Sub-command and sub-command group option types are mutually exclusive to all other types"}
}

func optionNameDup(path string) leaf {
	return leaf{path, "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Command name is already used in this options"}
}

func localizedDup(path, locale string) leaf {
	return leaf{path, "APPLICATION_COMMAND_OPTIONS_NAME_LOCALIZATION_ALREADY_EXISTS",
		"Localized option names must be unique and distinct from default option names (" + locale + ")"}
}

func tooLarge() leaf {
	return leaf{"", "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (8000)"}
}

// localeTuple is the enum message's tuple of every supported locale.
func localeTuple() string {
	ls := command.Locales()
	q := make([]string, len(ls))
	for i, l := range ls {
		q[i] = "'" + l + "'"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	return reflect.DeepEqual(g, w)
}

// parseBody decodes and parses one body.
func parseBody(t testing.TB, body string, tg command.Target) (command.Parsed, *apierr.Fields) {
	t.Helper()
	v, err := form.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("DecodeJSON(%.200s): %v", body, err)
	}
	return command.Parse(v, tg)
}

// mustParse parses a body that must be valid.
func mustParse(t testing.TB, body string, tg command.Target) command.Parsed {
	t.Helper()
	p, errs := parseBody(t, body, tg)
	if !errs.Empty() {
		b, _ := json.Marshal(errs)
		t.Fatalf("Parse(%.300s): unexpected errors %s", body, b)
	}
	return p
}

// Body builders.

// chat is a CHAT_INPUT command named "cmd" with the given options.
func chat(opts ...string) string {
	return `{"name":"cmd","description":"A command","options":[` + strings.Join(opts, ",") + `]}`
}

// opt is an option of type typ named name, with extra fields (",..." JSON).
func opt(typ int, name, extra string) string {
	return fmt.Sprintf(`{"type":%d,"name":%q,"description":"An option"%s}`, typ, name, extra)
}

// optsOf joins options into a JSON array.
func optsOf(opts ...string) string { return "[" + strings.Join(opts, ",") + "]" }

// jsonStr quotes s as a JSON string.
func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// seqIDs is a deterministic id minter.
func seqIDs(start snowflake.ID) command.IDs {
	n := start
	return func() snowflake.ID {
		n++
		return n
	}
}
