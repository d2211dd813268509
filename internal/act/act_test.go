package act

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/world"
)

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// leaves is "path: code" of each of an error's field errors.
func leaves(err error) []string {
	e, ok := apierr.As(err)
	if !ok {
		return nil
	}
	raw, _ := json.Marshal(e)
	var body struct {
		Errors map[string]any `json:"errors"`
	}
	_ = json.Unmarshal(raw, &body)
	var out []string
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		for k, v := range node {
			if k == "_errors" {
				for _, l := range v.([]any) {
					out = append(out, path+": "+l.(map[string]any)["code"].(string))
				}
				continue
			}
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			walk(sub, v.(map[string]any))
		}
	}
	walk("", body.Errors)
	return out
}

func TestDecode(t *testing.T) {
	cases := []struct {
		body string
		want Action
	}{
		{`{"as": "alice", "in": "general", "run": "/ban user:@bob reason:\"spam\""}`,
			Action{Kind: KindRun, As: "alice", In: "general", Text: `/ban user:@bob reason:"spam"`, Wait: DefaultWait}},
		{`{"as": "alice", "in": "general", "say": ""}`, Action{Kind: KindSay, As: "alice", In: "general", Wait: DefaultWait}},
		{`{"as": "a", "in": "c", "click": "Go", "message": "123", "wait": "2s"}`,
			Action{Kind: KindClick, As: "a", In: "c", Text: "Go", Message: 123, Wait: 2 * time.Second}},
		{`{"as": "a", "in": "c", "choose": "fruit", "values": ["x", "y"]}`,
			Action{Kind: KindChoose, As: "a", In: "c", Text: "fruit", Values: []string{"x", "y"}, Wait: DefaultWait}},
		{`{"as": "a", "in": "c", "submit": {"f": "v"}, "modal": "9"}`,
			Action{Kind: KindSubmit, As: "a", In: "c", Fields: map[string]string{"f": "v"}, Modal: 9, Wait: DefaultWait}},
		{`{"as": "a", "in": "c", "user_command": "Report", "target": "bob", "app": "modbot"}`,
			Action{Kind: KindUserCommand, As: "a", In: "c", Text: "Report", Target: "bob", App: "modbot", Wait: DefaultWait}},
	}
	for _, c := range cases {
		got, err := Decode(decodeJSON(t, c.body))
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.body, got, c.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{}`, []string{"as: BASE_TYPE_REQUIRED", "in: BASE_TYPE_REQUIRED", ": ACT_INVALID"}},
		{`{"as": "a", "in": "c", "say": "x", "run": "/y"}`, []string{"say: ACT_INVALID"}},
		{`{"as": 1, "in": "c", "say": "x"}`, []string{"as: STRING_TYPE_CONVERT", "as: BASE_TYPE_REQUIRED"}},
		{`{"as": "a", "in": "c", "run": ""}`, []string{"run: BASE_TYPE_REQUIRED"}},
		{`{"as": "a", "in": "c", "user_command": "R"}`, []string{"target: BASE_TYPE_REQUIRED"}},
		{`{"as": "a", "in": "c", "click": "x", "message": "nope"}`, []string{"message: NUMBER_TYPE_COERCE"}},
		{`{"as": "a", "in": "c", "choose": "x", "values": "a"}`, []string{"values: LIST_TYPE_CONVERT"}},
		{`{"as": "a", "in": "c", "choose": "x", "values": [1]}`, []string{"values.0: STRING_TYPE_CONVERT"}},
		{`{"as": "a", "in": "c", "submit": []}`, []string{"submit: DICT_TYPE_CONVERT"}},
		{`{"as": "a", "in": "c", "submit": {"f": 2}}`, []string{"submit.f: STRING_TYPE_CONVERT"}},
		{`{"as": "a", "in": "c", "say": "x", "wait": "5h"}`, []string{"wait: ACT_INVALID"}},
		{`{"as": "a", "in": "c", "say": "x", "wait": "-1s"}`, []string{"wait: ACT_INVALID"}},
		{`{"as": "a", "in": "c", "say": "x", "colour": "red"}`, []string{"colour: ACT_INVALID"}},
	}
	for _, c := range cases {
		_, err := Decode(decodeJSON(t, c.body))
		got := leaves(err)
		for _, w := range c.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("%s: want %q among %q", c.body, w, got)
			}
		}
	}
}

func testView() world.View {
	return world.View{
		Users: map[string]world.UserView{"alice": {ID: 1, ClientToken: "ta"}, "bob": {ID: 2}},
		Apps:  map[string]world.AppView{"modbot": {ID: 3, BotUserID: 3}},
		Guilds: map[string]world.GuildView{
			"club":  {ID: 10, Roles: map[string]snowflake.ID{"mods": 11, "@everyone": 10}, Channels: map[string]snowflake.ID{"general": 12, "staff": 13}},
			"other": {ID: 20, Roles: map[string]snowflake.ID{}, Channels: map[string]snowflake.ID{"general": 22}},
		},
		DMs: map[string]snowflake.ID{"alice-bob": 30},
	}
}

func TestPlaceOf(t *testing.T) {
	v := testView()
	cases := []struct {
		in   string
		want Place
		code string
	}{
		{"staff", Place{ChannelID: 13, GuildID: 10, Guild: "club"}, ""},
		{"club/general", Place{ChannelID: 12, GuildID: 10, Guild: "club"}, ""},
		{"other/general", Place{ChannelID: 22, GuildID: 20, Guild: "other"}, ""},
		{"general", Place{}, "in: ACT_UNKNOWN_HANDLE"}, // two guilds have one
		{"alice-bob", Place{ChannelID: 30}, ""},
		{"12", Place{ChannelID: 12, GuildID: 10, Guild: "club"}, ""},
		{"999", Place{ChannelID: 999}, ""},
		{"nowhere", Place{}, "in: ACT_UNKNOWN_HANDLE"},
		{"other/staff", Place{}, "in: ACT_UNKNOWN_HANDLE"},
	}
	for _, c := range cases {
		got, err := PlaceOf(v, c.in)
		if c.code != "" {
			if l := leaves(err); len(l) != 1 || l[0] != c.code {
				t.Errorf("%s: error %v, want %s", c.in, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	v := testView()
	club := Place{ChannelID: 12, GuildID: 10, Guild: "club"}
	cases := []struct{ line, want string }{
		{`/ban user:@bob reason:"spam"`, `/ban user:2 reason:spam`},
		{`/x a:@modbot b:#staff c:@&mods d:@&@everyone`, `/x a:3 b:13 c:11 d:10`},
		{`/x a:@carol b:#nowhere c:@&admins d:<@2> e:123`, `/x a:@carol b:#nowhere c:@&admins d:<@2> e:123`},
		{`/group sub text:"@bob"`, `/group sub text:2`}, // a handle wherever it is typed: the option's type judges
	}
	for _, c := range cases {
		l, err := slashline.Parse(c.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := Substitute(v, club, l).String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.line, got, c.want)
		}
	}
	// In a DM no guild's channels or roles are handles.
	l, _ := slashline.Parse(`/x c:#staff r:@&mods u:@alice`)
	if got := Substitute(v, Place{ChannelID: 30}, l).String(); got != `/x c:#staff r:@&mods u:1` {
		t.Errorf("in a DM: %s", got)
	}
}

func TestUserOf(t *testing.T) {
	v := testView()
	for in, want := range map[string]snowflake.ID{"bob": 2, "modbot": 3, "77": 77} {
		if got, err := UserOf(v, in, "target"); err != nil || got != want {
			t.Errorf("%s: %d, %v", in, got, err)
		}
	}
	if _, err := UserOf(v, "carol", "target"); len(leaves(err)) != 1 {
		t.Errorf("carol: %v", err)
	}
}

const panel = `[{"type": 1, "components": [
   {"type": 2, "custom_id": "go", "label": "Go"},
   {"type": 2, "custom_id": "Go", "label": "Stop"},
   {"type": 2, "label": "Docs", "url": "https://example.com", "style": 5}]},
 {"type": 1, "components": [{"type": 3, "custom_id": "fruit", "placeholder": "A fruit"}]},
 {"type": 17, "components": [{"type": 9, "components": [], "accessory": {"type": 2, "custom_id": "deep", "label": "Deep"}}]}]`

func TestFindComponent(t *testing.T) {
	cases := []struct {
		name       string
		selectMenu bool
		want       string // custom_id; "" none
	}{
		{"go", false, "go"},
		{"Go", false, "Go"},   // a custom_id before a label
		{"Stop", false, "Go"}, // by label
		{"Docs", false, ""},   // a link button has no custom_id
		{"fruit", false, ""},  // not a button
		{"fruit", true, "fruit"},
		{"A fruit", true, "fruit"},
		{"go", true, ""},
		{"Deep", false, "deep"}, // in a section's accessory
		{"nope", false, ""},
	}
	for _, c := range cases {
		got, ok := FindComponent(json.RawMessage(panel), c.name, c.selectMenu)
		if ok != (c.want != "") || got.CustomID != c.want {
			t.Errorf("%q (select %v): %+v %v, want %q", c.name, c.selectMenu, got, ok, c.want)
		}
	}
}

func TestSubmission(t *testing.T) {
	modal := json.RawMessage(`{"custom_id": "feedback", "title": "F", "components": [
	  {"type": 1, "components": [{"type": 4, "custom_id": "opinion", "label": "O", "style": 1}]},
	  {"type": 18, "label": "L", "component": {"type": 3, "custom_id": "pick", "options": []}},
	  {"type": 10, "content": "text"}]}`)
	got, err := Submission(modal, map[string]string{"opinion": "great", "pick": "a,b"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	want := `{"components":[{"components":[{"custom_id":"opinion","type":4,"value":"great"}],"type":1},` +
		`{"component":{"custom_id":"pick","type":3,"values":["a","b"]},"type":18}],"custom_id":"feedback"}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
	_, err = Submission(modal, map[string]string{"nope": "x"})
	if l := leaves(err); len(l) != 1 || l[0] != "submit.nope: ACT_INVALID" {
		t.Errorf("unknown input: %v", err)
	}
	if _, err := Submission(json.RawMessage(`[]`), nil); err == nil || errors.As(err, new(*apierr.Error)) {
		t.Errorf("a stored modal that is not one: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"as": "alice", "in": "general", "run": "/ban user:@bob reason:\"spam\""}`)
	f.Add(`{"as": "a", "in": "club/general", "submit": {"f": "v"}, "values": ["x"], "wait": "1s"}`)
	f.Add(`{"as": "a", "in": "#x", "choose": "x", "message": "1"}`)
	v := testView()
	f.Fuzz(func(t *testing.T, body string) {
		var m map[string]any
		if json.Unmarshal([]byte(body), &m) != nil || m == nil {
			return
		}
		a, err := Decode(m)
		if err != nil {
			if _, ok := apierr.As(err); !ok {
				t.Fatalf("not an API error: %v", err)
			}
			return
		}
		if a.Kind == "" || a.As == "" || a.In == "" || a.Wait < 0 || a.Wait > MaxWait {
			t.Fatalf("decoded %+v", a)
		}
		p, err := PlaceOf(v, a.In)
		if err != nil {
			return
		}
		if l, err := slashline.Parse(a.Text); err == nil {
			s := Substitute(v, p, l)
			if len(s.Args) != len(l.Args) || strings.Join(s.Words, " ") != strings.Join(l.Words, " ") {
				t.Fatalf("substitute %q: %+v", a.Text, s)
			}
		}
	})
}

func FuzzFindComponent(f *testing.F) {
	f.Add(panel, "Go", false)
	f.Add(`[{"type":1,"components":[{"type":3,"custom_id":"a","placeholder":"b"}]}]`, "b", true)
	f.Fuzz(func(t *testing.T, components, name string, selectMenu bool) {
		c, ok := FindComponent(json.RawMessage(components), name, selectMenu)
		if !ok {
			return
		}
		if c.CustomID == "" || (c.CustomID != name && c.Label != name && c.Placeholder != name) {
			t.Fatalf("found %+v for %q", c, name)
		}
		if selectMenu != isSelect(c.Type) || (!selectMenu && c.Type != typeButton) {
			t.Fatalf("found %+v (select %v)", c, selectMenu)
		}
	})
}
