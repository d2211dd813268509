package authorize

import (
	"regexp"
	"strings"
	"testing"
)

func TestS256Challenge(t *testing.T) {
	tests := []struct{ name, verifier, want string }{
		// RFC 7636 Appendix B.
		{"RFC 7636 appendix B", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
		// SHA-256 of "" is e3b0c442...; base64url without padding.
		{"empty", "", "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := S256Challenge(tt.verifier); got != tt.want {
				t.Errorf("S256Challenge(%q) = %q, want %q", tt.verifier, got, tt.want)
			}
		})
	}
}

var verifierRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

func TestCreateAuthorizationCodeVerifier(t *testing.T) {
	c := NewClient("http://127.0.0.1:1")
	seen := map[string]bool{}
	for range 100 {
		v, err := c.CreateAuthorizationCodeVerifier()
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Verifier) != 43 || !verifierRE.MatchString(v.Verifier) {
			t.Fatalf("verifier %q: want 43 characters of [A-Za-z0-9-._~]", v.Verifier)
		}
		if v.Challenge.Method != S256 || v.Challenge.Challenge != S256Challenge(v.Verifier) {
			t.Fatalf("challenge %+v does not match verifier %q", v.Challenge, v.Verifier)
		}
		if !isPKCEString(v.Challenge.Challenge) {
			t.Fatalf("challenge %q is not 43 unreserved characters", v.Challenge.Challenge)
		}
		if seen[v.Verifier] {
			t.Fatalf("verifier %q repeated", v.Verifier)
		}
		seen[v.Verifier] = true
	}
}

func TestIsPKCEString(t *testing.T) {
	a43 := "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	tests := []struct {
		s    string
		want bool
	}{
		{a43, true},
		{a43[:42], false},
		{a43 + "-._~ZZ09", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{a43 + "+", false},
		{a43 + "/", false},
		{a43 + "=", false},
		{a43 + " ", false},
	}
	for _, tt := range tests {
		if got := isPKCEString(tt.s); got != tt.want {
			t.Errorf("isPKCEString(%q) (len %d) = %v, want %v", tt.s, len(tt.s), got, tt.want)
		}
	}
}
