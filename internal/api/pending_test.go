package api

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

func TestTokenInteractionID(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	s := &Server{rand: bytes.NewReader(bytes.Repeat([]byte{7}, 48))}
	minted, err := s.newInteractionToken(1234567890123456789)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, token string
		id          snowflake.ID
		ok          bool
	}{
		{"minted", minted, 1234567890123456789, true},
		{"shaped by hand", enc("interaction:42:secret"), 42, true},
		{"empty", "", 0, false},
		{"not base64url", "not a token!", 0, false},
		{"padded base64", base64.URLEncoding.EncodeToString([]byte("interaction:42:s")), 0, false},
		{"other prefix", enc("webhook:42:secret"), 0, false},
		{"no secret", enc("interaction:42"), 0, false},
		{"id not a number", enc("interaction:4x2:secret"), 0, false},
		{"id empty", enc("interaction::secret"), 0, false},
		{"id negative", enc("interaction:-42:secret"), 0, false},
		{"id too large", enc("interaction:99999999999999999999:secret"), 0, false},
	}
	for _, c := range cases {
		id, ok := tokenInteractionID(c.token)
		if id != c.id || ok != c.ok {
			t.Errorf("%s: tokenInteractionID(%q) = %d, %v; want %d, %v", c.name, c.token, id, ok, c.id, c.ok)
		}
	}
}

// FuzzTokenInteractionID: any string is read without panicking, and a
// token read as an id names that id.
func FuzzTokenInteractionID(f *testing.F) {
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("interaction:42:secret")))
	f.Add("")
	f.Add("aW50ZXJhY3Rpb246")
	f.Fuzz(func(t *testing.T, token string) {
		id, ok := tokenInteractionID(token)
		if !ok {
			if id != 0 {
				t.Fatalf("tokenInteractionID(%q) = %d, false", token, id)
			}
			return
		}
		raw, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || !bytes.HasPrefix(raw, []byte("interaction:"+id.String()+":")) {
			t.Fatalf("tokenInteractionID(%q) = %d for %q", token, id, raw)
		}
	})
}
