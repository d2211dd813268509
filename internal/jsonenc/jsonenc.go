// Package jsonenc encodes JSON the way other servers write it: like
// encoding/json, but without HTML escaping. encoding/json writes <, > and
// & inside strings as \u003c, \u003e and \u0026 (to make JSON safe inside
// an HTML <script>), which no other chat server does; a bot that checks
// an interaction's signature over JSON it re-serialized (slash-create)
// then sees other bytes than the ones signed. Everything slashd writes as
// JSON (API answers, deliveries, gateway frames, stored bodies served
// later as they are) goes through here.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"io"
)

// Marshal is json.Marshal without HTML escaping. It costs one scan of the
// encoded bytes for a backslash-u, and an in-place rewrite only when an
// escaped <, > or & is there.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return UnescapeHTML(b), nil
}

// MarshalIndent is json.MarshalIndent without HTML escaping.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	b, err := json.MarshalIndent(v, prefix, indent)
	if err != nil {
		return nil, err
	}
	return UnescapeHTML(b), nil
}

// NewEncoder returns a json.Encoder writing to w without HTML escaping.
func NewEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// UnescapeHTML rewrites, in place, the \u003c, \u003e and \u0026 escapes
// of valid JSON b back into <, > and &, and returns the shortened slice.
// Other escapes stay as they are: a backslash in JSON only ever starts an
// escape inside a string, so reading escapes pairwise from the left never
// mistakes an escaped backslash followed by "u003c" for an escape.
func UnescapeHTML(b []byte) []byte {
	i := bytes.Index(b, []byte(`\u00`))
	if i < 0 {
		return b
	}
	// The first backslash-u00 may follow an escaped backslash ("\\u00"):
	// start from the first backslash of all, so that pairs are read
	// from an escape's start.
	r := bytes.IndexByte(b, '\\')
	w := r
	for r < len(b) {
		// b[r] is a backslash; valid JSON never ends inside an escape,
		// but a lone final backslash is kept rather than read past.
		if r+1 == len(b) {
			b[w] = b[r]
			w, r = w+1, r+1
			break
		}
		if ch, ok := htmlEscape(b[r+1:]); ok {
			b[w] = ch
			w, r = w+1, r+6
		} else {
			b[w], b[w+1] = b[r], b[r+1]
			w, r = w+2, r+2
		}
		next := bytes.IndexByte(b[r:], '\\')
		if next < 0 {
			next = len(b) - r
		}
		w += copy(b[w:], b[r:r+next])
		r += next
	}
	return b[:w]
}

// htmlEscape reports whether rest (what follows a backslash) is one of
// the HTML escapes, and the byte it stands for.
func htmlEscape(rest []byte) (byte, bool) {
	if len(rest) < 5 || rest[0] != 'u' {
		return 0, false
	}
	switch string(rest[1:5]) { // the three escapes encoding/json's HTML escaping adds
	case "003c":
		return '<', true
	case "003e":
		return '>', true
	case "0026":
		return '&', true
	}
	return 0, false
}
