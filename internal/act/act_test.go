package act

import (
	"encoding/json"
	"strings"
	"testing"
)

func lookup(k Kind, h string) (string, bool) {
	ids := map[Kind]map[string]string{User: {"bob": "11"}, Role: {"mods": "22"}, Channel: {"general": "33"}}
	id, ok := ids[k][h]
	return id, ok
}

func TestSubstitute(t *testing.T) {
	tests := []struct{ in, want string }{
		{`/ban user:@bob reason:"spam"`, `/ban user:11 reason:"spam"`},
		{`/x role:@&mods where:#general`, `/x role:22 where:33`},
		{`/x user:@nobody`, `/x user:@nobody`},             // unknown: kept
		{`/x user:<@123>`, `/x user:<@123>`},               // a mention stays
		{`/x text:"mail me@bob"`, `/x text:"mail me@bob"`}, // not after a colon
		{`/x user:@bob other:@bob`, `/x user:11 other:11`},
	}
	for _, tt := range tests {
		if got := Substitute(tt.in, lookup); got != tt.want {
			t.Errorf("Substitute(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func decode(t testing.TB, s string) []any {
	var v []any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFindComponent(t *testing.T) {
	comps := decode(t, `[{"type":1,"components":[{"type":2,"style":1,"label":"+1","custom_id":"counter:0"},
		{"type":2,"style":5,"label":"Docs","url":"https://x"}]},
		{"type":17,"components":[{"type":9,"components":[],"accessory":{"type":2,"label":"Accept","custom_id":"ok"}}]},
		{"type":1,"components":[{"type":3,"custom_id":"menu","options":[]}]}]`)
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{"counter:0", "counter:0", true},
		{"+1", "counter:0", true},
		{"accept", "ok", true}, // by label, any case, inside a container's section
		{"menu", "menu", true},
		{"Docs", "", false}, // a link button has no custom_id: nothing to click through slashd
		{"nothing", "", false},
	}
	for _, tt := range tests {
		c, ok := FindComponent(comps, tt.ref)
		if ok != tt.ok || c.CustomID != tt.want {
			t.Errorf("FindComponent(%q) = %+v, %v; want %q, %v", tt.ref, c, ok, tt.want, tt.ok)
		}
	}
}

func TestModalAnswer(t *testing.T) {
	modal := decode(t, `[{"type":18,"label":"Why","component":{"type":4,"custom_id":"reason","style":2}},
		{"type":1,"components":[{"type":4,"custom_id":"old","style":1}]},
		{"type":10,"content":"read me"},
		{"type":18,"label":"Pick","component":{"type":3,"custom_id":"pick","options":[]}}]`)
	got, _ := json.Marshal(ModalAnswer(modal, map[string]any{"reason": "spam", "pick": "a"}))
	want := `[{"component":{"custom_id":"reason","type":4,"value":"spam"},"type":18},` +
		`{"components":[{"custom_id":"old","type":4,"value":""}],"type":1},` +
		`{"component":{"custom_id":"pick","type":3,"values":["a"]},"type":18}]`
	if string(got) != want {
		t.Errorf("ModalAnswer = %s\nwant %s", got, want)
	}
}

func FuzzSubstitute(f *testing.F) {
	f.Add(`/ban user:@bob reason:"spam"`)
	f.Add(`/x role:@&mods where:#general`)
	f.Fuzz(func(t *testing.T, line string) {
		out := Substitute(line, lookup)
		// Only handles after a colon change, each into its id.
		if strings.Count(out, ":") != strings.Count(line, ":") {
			t.Errorf("Substitute(%q) = %q changed the colons", line, out)
		}
	})
}

func FuzzFindComponent(f *testing.F) {
	f.Add(`[{"type":1,"components":[{"type":2,"label":"+1","custom_id":"c"}]}]`, "+1")
	f.Fuzz(func(t *testing.T, doc, ref string) {
		var v []any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		if c, ok := FindComponent(v, ref); ok && c.CustomID == "" {
			t.Errorf("found a component without custom_id: %+v", c)
		}
		_ = ModalAnswer(v, map[string]any{ref: ref})
	})
}
