package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// reference encodes v with encoding/json's own switch for HTML escaping,
// which Marshal must match byte for byte.
func reference(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestMarshalWritesNoHTMLEscapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"mention", map[string]string{"content": "hi <@123> & <#4>"}, `{"content":"hi <@123> & <#4>"}`},
		{"no escapes", []int{1, 2}, `[1,2]`},
		{"escaped backslash before u003c", `\u003c`, `"\\u003c"`},
		{"control characters stay escaped", "a\x00<\x1f", `"a\u0000<\u001f"`},
		{"line separators stay escaped", "\u2028&\u2029", `"\u2028&\u2029"`},
		{"quotes and backslashes", `"<\>"`, `"\"<\\>\""`},
		{"raw message recompacted", struct {
			R json.RawMessage `json:"r"`
		}{json.RawMessage(`{"a": "<b>&"}`)}, `{"r":{"a":"<b>&"}}`},
		{"keys", map[string]int{"<k>": 1}, `{"<k>":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("Marshal = %s, want %s", got, tc.want)
			}
			if ref := reference(t, tc.v); !bytes.Equal(got, ref) {
				t.Fatalf("Marshal = %s, encoding/json without HTML escaping = %s", got, ref)
			}
		})
	}
}

func TestMarshalIndentAndEncoder(t *testing.T) {
	got, err := MarshalIndent(map[string]string{"a": "<&>"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": \"<&>\"\n}"; string(got) != want {
		t.Fatalf("MarshalIndent = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode("<&>"); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "\"<&>\"\n" {
		t.Fatalf("Encoder wrote %q", buf.String())
	}
}

func TestMarshalError(t *testing.T) {
	if _, err := Marshal(make(chan int)); err == nil {
		t.Fatal("a channel encoded")
	}
}

// FuzzMarshal checks Marshal against encoding/json's own unescaped
// encoder for any string, alone, as a key and inside a raw message, and
// that a raw message's HTML escapes are undone.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"", "<@1>", `\u003c`, `\\u003c\`, "&amp;", "\x00\u2028", `"\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := map[string]any{s: []any{s, json.RawMessage(reference(t, s))}}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if ref := reference(t, v); !bytes.Equal(got, ref) {
			t.Fatalf("Marshal = %q, reference = %q", got, ref)
		}
		// A raw message written with HTML escapes (a body stored by an
		// older slashd) comes out without them, meaning the same.
		escaped, _ := json.Marshal(s)
		got, err = Marshal(json.RawMessage(escaped))
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, s); !bytes.Equal(got, want) {
			t.Fatalf("Marshal(raw %q) = %q, want %q", escaped, got, want)
		}
	})
}

func BenchmarkMarshal(b *testing.B) {
	v := map[string]any{"content": "an answer with no markup at all, as most are", "id": "1234567890123456789"}
	withMention := map[string]any{"content": "hello <@1234567890123456789> & welcome", "id": "1234567890123456789"}
	b.Run("plain/encoding-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(v)
		}
	})
	b.Run("plain/jsonenc", func(b *testing.B) {
		for b.Loop() {
			_, _ = Marshal(v)
		}
	})
	b.Run("mention/encoder-no-escape", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(withMention)
		}
	})
	b.Run("mention/jsonenc", func(b *testing.B) {
		for b.Loop() {
			_, _ = Marshal(withMention)
		}
	})
}

func TestUnescapeHTMLKeepsATrailingBackslash(t *testing.T) {
	if got := string(UnescapeHTML([]byte(`"\u0026\`))); got != `"&\` {
		t.Fatalf("got %q", got)
	}
}
