package form

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decodeWithEncodingJSON is what DecodeJSON did before parseTree, and
// the reference it must agree with: encoding/json's Decoder with
// UseNumber, and nothing but white space after the one value.
func decodeWithEncodingJSON(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

var treeSeeds = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `"x"`, ` {"a" : [1, 2 ,{"b":null}] } `,
	`{"a":1,"a":2}`, `{"type":2,"data":{"id":"1","options":[{"type":3,"name":"text","value":"hello"}]}}`,
	`"\u00e9\u20ac\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`, `"\ud800x"`,
	`"\"\\\/\b\f\n\r\t"`, "\"\xff\xfe\"", "\"caf\xc3\xa9 \xe2\x82\"", "\"\xef\xbf\xbd\"", "\"\x7f\"",
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `tru`, `truex`, `nul`, `[1,]`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`,
	`[1 2]`, `{"a":1 "b":2}`, `{} {}`, `{}x`, `"\x"`, `"\u12G4"`, `"\ud800\u12G4"`, "\"a\tb\"", "\"a\nb\"",
	"\xef\xbb\xbf{}", `[[[[]]]]`, `{"a":{"b":{"c":[]}}}`, `"`, `{"a":"`, `[`, `{`, `9223372036854775808`,
	"\t\r\n[]\n",
}

// FuzzTreeParser: parseTree decodes exactly what encoding/json decodes
// into an `any` with UseNumber, and refuses exactly what it refuses.
func FuzzTreeParser(f *testing.F) {
	for _, s := range treeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gotOK := parseTree(body)
		want, wantOK := decodeWithEncodingJSON(body)
		if gotOK != wantOK {
			t.Fatalf("%q: parseTree ok=%v, encoding/json ok=%v (%#v)", body, gotOK, wantOK, want)
		}
		if gotOK && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nparseTree     %#v\nencoding/json %#v", body, got, want)
		}
	})
}

// Nesting is bounded where encoding/json bounds it: 10,000 levels.
func TestTreeParserDepth(t *testing.T) {
	for _, c := range []struct {
		depth int
		ok    bool
	}{{maxDepth, true}, {maxDepth + 1, false}} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			body := []byte(strings.Repeat(open, c.depth) + "1" + strings.Repeat(close, c.depth))
			_, ok := parseTree(body)
			_, ref := decodeWithEncodingJSON(body)
			if ok != c.ok || ref != c.ok {
				t.Errorf("%d levels of %s: parseTree ok=%v, encoding/json ok=%v, want %v", c.depth, open, ok, ref, c.ok)
			}
		}
	}
}

// BenchmarkDecodeJSON: an invocation's body, by parseTree and by
// encoding/json's Decoder.
func BenchmarkDecodeJSON(b *testing.B) {
	body := []byte(`{"type":2,"application_id":"1576472368425992192","channel_id":"1576472368446963712",` +
		`"guild_id":"1576472368438575105","data":{"id":"1576472368450000000","name":"echo","type":1,` +
		`"options":[{"type":3,"name":"text","value":"hello"}]}}`)
	b.Run("parseTree", func(b *testing.B) {
		for b.Loop() {
			if _, ok := parseTree(body); !ok {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, ok := decodeWithEncodingJSON(body); !ok {
				b.Fatal("invalid")
			}
		}
	})
}
