package authorize

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// S256Challenge returns the S256 code challenge of a PKCE verifier:
// BASE64URL-NOPAD(SHA256(ASCII(verifier))) (RFC 7636 §4.2).
func S256Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// randomToken returns 32 random bytes from crypto/rand, base64url-encoded
// without padding: 43 characters of [A-Za-z0-9-_].
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// isPKCEString: 43 to 128 characters of [A-Z] [a-z] [0-9] - . _ ~ (RFC 7636
// §4.1), the form of both verifiers and S256 challenges.
func isPKCEString(s string) bool {
	if len(s) < 43 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !isDigit(c) && c != '-' && c != '.' && c != '_' && c != '~' {
			return false
		}
	}
	return true
}
