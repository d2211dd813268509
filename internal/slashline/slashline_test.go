package slashline

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

func TestParse(t *testing.T) {
	t.Parallel()
	type A = Arg
	cases := []struct {
		in    string
		words []string
		args  []Arg
	}{
		{"/ping", []string{"ping"}, nil},
		{"ping", []string{"ping"}, nil},
		{"  /ping  ", []string{"ping"}, nil},
		{"/group sub name:value", []string{"group", "sub"}, []A{{"name", "value"}}},
		{`/group sub name:value other:"two words"`, []string{"group", "sub"}, []A{{"name", "value"}, {"other", "two words"}}},
		{"/echo\ttext:hi\n", []string{"echo"}, []A{{"text", "hi"}}},
		{`/echo text:""`, []string{"echo"}, []A{{"text", ""}}},
		{`/echo text:"say \"hi\"\\ \n\tok"`, []string{"echo"}, []A{{"text", "say \"hi\"\\ \n\tok"}}},
		{`/echo text:"line one` + "\n" + `line two"`, []string{"echo"}, []A{{"text", "line one\nline two"}}},
		// A bare value runs to white space: colons and quotes inside are its own.
		{"/fetch url:http://x:80/a?b=c", []string{"fetch"}, []A{{"url", "http://x:80/a?b=c"}}},
		{`/echo text:it's"quoted"`, []string{"echo"}, []A{{"text", `it's"quoted"`}}},
		{"/ban user:<@123> reason:spam", []string{"ban"}, []A{{"user", "<@123>"}, {"reason", "spam"}}},
		{"/é ñ:ü", []string{"é"}, []A{{"ñ", "ü"}}},
		{"/a b c d", []string{"a", "b", "c", "d"}, nil},
		{"//x", []string{"/x"}, nil},
		{"/x a:1 a:2", []string{"x"}, []A{{"a", "1"}, {"a", "2"}}}, // duplicates are Resolve's to refuse
		{"/x\u00a0a:1", []string{"x"}, []A{{"a", "1"}}},            // any Unicode space separates
	}
	for _, tc := range cases {
		l, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(l.Words, tc.words) || !reflect.DeepEqual(l.Args, tc.args) {
			t.Errorf("Parse(%q) = %q %q, want %q %q", tc.in, l.Words, l.Args, tc.words, tc.args)
		}
		again, err := Parse(l.String())
		if err != nil || !reflect.DeepEqual(again, l) {
			t.Errorf("Parse(%q).String() = %q, which parses as %+v (%v)", tc.in, l.String(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string // the message
	}{
		{"", "at character 1: no command (write /name, then its options as name:value)"},
		{"  /  ", "at character 1: no command (write /name, then its options as name:value)"},
		{"/text:hi", "at character 1: no command name before the options (write /name option:value)"},
		{"/echo :hi", "at character 7: an option without a name (write name:value)"},
		{"/echo text:", "at character 12: option text has no value (write text:VALUE, or text:\"\" for an empty one)"},
		{"/echo text: hi", "at character 12: option text has no value (write text:VALUE, or text:\"\" for an empty one)"},
		{"/echo text:two words", `at character 16: "words" after the options: words (the command, its group and subcommand) come first, and a value with spaces needs quotes, as in name:"two words"`},
		{`/echo text:"open`, "at character 12: option text: the quote is never closed"},
		{`/echo text:"open\`, "at character 12: option text: the quote is never closed"},
		{`/echo text:"a"b`, `at character 15: option text: 'b' right after the closing quote (separate options with a space)`},
		{`/echo text:"\q"`, `at character 13: option text: unknown escape \q (inside quotes: \" \\ \n \t)`},
		{`/echo "hi"`, `at character 7: a quote outside an option's value (write name:"…")`},
		{`/echo te"xt:hi`, `at character 9: a quote outside an option's value (write name:"…")`},
		{"/echo text:\xff", "at character 1: the line is not valid UTF-8"},
	}
	for _, tc := range cases {
		_, err := Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != tc.want {
			t.Errorf("Parse(%q): %v\n want %s", tc.in, err, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"hi":         "hi",
		"":           `""`,
		"two words":  `"two words"`,
		`"lead`:      `"\"lead"`,
		`mid"quote`:  `mid"quote`,
		"a\\b":       `a\b`,
		"a\\b c":     `"a\\b c"`,
		"line\nfeed": `"line\nfeed"`,
		"tab\t":      `"tab\t"`,
		"nbsp\u00a0": "\"nbsp\u00a0\"",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzParse: Parse never panics; what it reads it reads again the same
// from the line String writes; its words and option names are never
// empty and hold no white space.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"/ping", `/group sub name:value other:"two words"`, `/echo text:"a \"b\" \\ \n"`, "/x a:1 b:<@2>",
		`/echo text:""`, "/a:b", "//", `/x y:"`, "/x\u00a0y:\u2003", "/x y:z\"", `/x y:"\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			return
		}
		if len(l.Words) == 0 {
			t.Fatalf("Parse(%q): no words", s)
		}
		for _, w := range l.Words {
			if w == "" || strings.ContainsAny(w, ":\" \t\n") {
				t.Fatalf("Parse(%q): word %q", s, w)
			}
		}
		for _, a := range l.Args {
			if a.Name == "" || strings.ContainsAny(a.Name, ":\" \t\n") {
				t.Fatalf("Parse(%q): option name %q", s, a.Name)
			}
		}
		line := l.String()
		again, err := Parse(line)
		if err != nil || !reflect.DeepEqual(again, l) {
			t.Fatalf("Parse(%q) = %+v; its String %q parses as %+v, %v", s, l, line, again, err)
		}
	})
}

// jsonOf renders an invocation's data as the interaction carries it.
func jsonOf(t testing.TB, inv Invocation) string {
	t.Helper()
	b, err := json.Marshal(inv.Data)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func snowflakeOf(n uint64) snowflake.ID { return snowflake.ID(n) }
