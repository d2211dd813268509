package interaction

import (
	"encoding/json"
	"fmt"
	"testing"
)

func raws(t *testing.T, list string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	if err := json.Unmarshal([]byte(list), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestNormalizeComponents(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"ids in tree order, select defaults",
			`[{"type":1,"components":[{"type":2,"style":1,"custom_id":"a"},{"type":3,"custom_id":"s","options":[]}]}]`,
			`[{"type":1,"id":1,"components":[{"type":2,"id":2,"style":1,"custom_id":"a"},
			  {"type":3,"id":3,"custom_id":"s","options":[],"min_values":1,"max_values":1}]}]`},
		{"the app's ids are kept and skipped, 0 is empty, its select bounds kept",
			`[{"type":1,"id":2,"components":[{"type":2,"style":1,"custom_id":"a","id":0},{"type":5,"custom_id":"u","max_values":3}]}]`,
			`[{"type":1,"id":2,"components":[{"type":2,"id":1,"style":1,"custom_id":"a"},
			  {"type":5,"id":3,"custom_id":"u","min_values":1,"max_values":3}]}]`},
		{"layout components: a section's accessory, container and separator defaults",
			`[{"type":17,"components":[{"type":9,"components":[{"type":10,"content":"x"}],"accessory":{"type":2,"style":2,"custom_id":"o"}},{"type":14}]}]`,
			`[{"type":17,"id":1,"accent_color":null,"spoiler":false,"components":[
			  {"type":9,"id":2,"components":[{"type":10,"id":3,"content":"x"}],"accessory":{"type":2,"id":4,"style":2,"custom_id":"o"}},
			  {"type":14,"id":5,"spacing":1,"divider":true}]}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(normalizeComponents(raws(t, c.in)))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := canonical(t, got), canonical(t, []byte(c.want)); g != w {
				t.Fatalf("\n got  %s\n want %s", g, w)
			}
		})
	}
}

func TestNormalizeEmbedsAndPoll(t *testing.T) {
	embeds, _ := json.Marshal(normalizeEmbeds(raws(t, `[{"title":"t","fields":[{"name":"a","value":"b"},{"name":"c","value":"d","inline":true}]},{"type":"image"}]`)))
	want := `[{"type":"rich","title":"t","fields":[{"name":"a","value":"b","inline":false},{"name":"c","value":"d","inline":true}]},{"type":"image"}]`
	if g, w := canonical(t, embeds), canonical(t, []byte(want)); g != w {
		t.Errorf("embeds:\n got  %s\n want %s", g, w)
	}

	// The texts the real service trims (message.mdx, "Embed Limits").
	embeds, _ = json.Marshal(normalizeEmbeds(raws(t, `[{"title":" t\n","description":"\td ","url":" kept",
		"footer":{"text":" f "},"author":{"name":" a "},"fields":[{"name":" n","value":"v "}]}]`)))
	want = `[{"type":"rich","title":"t","description":"d","url":" kept","footer":{"text":"f"},"author":{"name":"a"},
		"fields":[{"name":"n","value":"v","inline":false}]}]`
	if g, w := canonical(t, embeds), canonical(t, []byte(want)); g != w {
		t.Errorf("trimmed embeds:\n got  %s\n want %s", g, w)
	}

	in := `{"question":{"text":"q"},"answers":[{"poll_media":{"text":"a"}},{"poll_media":{"text":"b"}}]}`
	want = `{"question":{"text":"q"},"answers":[{"answer_id":1,"poll_media":{"text":"a"}},{"answer_id":2,"poll_media":{"text":"b"}}],
	  "allow_multiselect":false,"layout_type":1,"results":{"answer_counts":[],"is_finalized":false}}`
	if g, w := canonical(t, normalizePoll(json.RawMessage(in))), canonical(t, []byte(want)); g != w {
		t.Errorf("poll:\n got  %s\n want %s", g, w)
	}
	if got := normalizePoll(nil); got != nil {
		t.Errorf("no poll: %s", got)
	}

	expiry := func(hours int64) string { return fmt.Sprintf("in %d hours", hours) }
	cases := []struct{ name, poll, want string }{
		{"24 hours by default", `{"answers":[]}`, `{"answers":[],"expiry":"in 24 hours"}`},
		{"duration becomes expiry", `{"answers":[],"duration":2}`, `{"answers":[],"expiry":"in 2 hours"}`},
		{"an expiry stays", `{"expiry":"then"}`, `{"expiry":"then"}`},
	}
	for _, c := range cases {
		m := Message{Poll: json.RawMessage(c.poll)}
		m.ExpirePoll(expiry)
		if g, w := canonical(t, m.Poll), canonical(t, []byte(c.want)); g != w {
			t.Errorf("ExpirePoll, %s:\n got  %s\n want %s", c.name, g, w)
		}
	}
	m := Message{}
	m.ExpirePoll(expiry)
	if m.Poll != nil {
		t.Errorf("ExpirePoll without a poll: %s", m.Poll)
	}
}

func TestCheckPollEdit(t *testing.T) {
	poll := json.RawMessage(`{"question":{"text":"q"}}`)
	set := func(keys ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range keys {
			m[k] = true
		}
		return m
	}
	for _, c := range []struct {
		name   string
		d      MessageData
		stored Message
		refuse bool
	}{
		{"fill a loading message with a poll", MessageData{Set: set("poll"), Poll: poll}, Message{Flags: FlagLoading}, false},
		{"edit a loading poll message", MessageData{Set: set("content")}, Message{Flags: FlagLoading, Poll: poll}, false},
		{"add a poll", MessageData{Set: set("poll"), Poll: poll}, Message{}, true},
		{"send a null poll", MessageData{Set: set("poll", "content"), Poll: json.RawMessage("null")}, Message{}, false},
		{"edit a poll message", MessageData{Set: set("content")}, Message{Poll: poll}, true},
		{"suppress a poll message's embeds", MessageData{Set: set("flags", "allowed_mentions")}, Message{Poll: poll}, false},
		{"edit a message without a poll", MessageData{Set: set("content", "embeds")}, Message{}, false},
	} {
		err := CheckPollEdit(c.d, c.stored)
		if refused := err == ErrCannotEditPoll; refused != c.refuse || (err != nil && !refused) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
