package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/store"
)

// CodeLifetime is how long an authorization code can be exchanged
// (RFC 6749 §4.1.2 recommends at most 10 minutes).
const CodeLifetime = 10 * time.Minute

// IssueCode records what the user approved on the consent page and
// returns the authorization code to send back to the client: it stores
// grant (an id from the server's generator and the current time when
// unset) and a code valid CodeLifetime (on the clock of the app's test
// world, if it has one). redirectURI is the redirect_uri
// parameter as the client sent it ("" if it sent none): the token request
// must repeat it. challenge and method are the PKCE parameters ("" and ""
// without PKCE; otherwise S256 only), nonce the OpenID Connect nonce
// echoed in the id_token. The grant's scopes must pass CheckScopes
// (store Expand's result, so that the grant names what the umbrella
// scopes stand for). A request error is an *Error. The id_token's
// auth_time is the time of the call: a code issued this way stands for a
// user who authenticated just now.
func (s *Server) IssueCode(ctx context.Context, grant store.Grant, redirectURI, challenge, method, nonce string) (string, error) {
	return s.issueCode(ctx, grant, codeRequest{redirectURI: redirectURI, challenge: challenge, method: method, nonce: nonce})
}

// codeRequest is what an authorization code keeps of the request that
// asked for it.
type codeRequest struct {
	redirectURI, challenge, method, nonce string
	// authTime is when the user last logged in (zero: now).
	authTime time.Time
}

func (s *Server) issueCode(ctx context.Context, grant store.Grant, req codeRequest) (string, error) {
	if e := CheckCodeChallenge(req.challenge, req.method); e != nil {
		return "", e
	}
	if e := CheckScopes(grant.Scopes); e != nil {
		return "", e
	}
	// A code of a test world's app lives on its world's clock.
	now := s.nowIn(s.withAppIDClock(ctx, grant.ApplicationID)).UTC()
	if grant.ID == 0 {
		grant.ID = s.ids.Next()
	}
	if grant.CreatedAt.IsZero() {
		grant.CreatedAt = now
	}
	if req.authTime.IsZero() {
		req.authTime = s.now() // the id_token's times are on the real clock
	}
	code, err := auth.NewAccessToken(s.rand)
	if err != nil {
		return "", err
	}
	if err := s.store.CreateGrant(ctx, grant); err != nil {
		return "", fmt.Errorf("record grant: %w", err)
	}
	s.logGrant(grant, "authorization_code")
	err = s.store.CreateCode(ctx, store.AuthCode{Hash: auth.Hash(code), GrantID: grant.ID, RedirectURI: req.redirectURI,
		CodeChallenge: req.challenge, CodeChallengeMethod: req.method, Nonce: req.nonce, ExpiresAt: now.Add(CodeLifetime),
		AuthTime: req.authTime.UTC()})
	if err != nil {
		s.revokeGrant(ctx, grant.ID, "its code could not be stored")
		return "", fmt.Errorf("record authorization code: %w", err)
	}
	return code, nil
}

// CheckCodeChallenge checks the PKCE parameters of an authorization
// request: none, or an S256 challenge (43 base64url characters, the
// length of a SHA-256). The real service supports S256 only.
func CheckCodeChallenge(challenge, method string) *Error {
	switch {
	case challenge == "" && method == "":
		return nil
	case challenge == "":
		return errInvalidRequest(`Missing "code_challenge"`)
	case method != "S256":
		return errInvalidRequest(`Unsupported "code_challenge_method"`)
	case len(challenge) != 43 || !unreserved(challenge, false):
		return errInvalidRequest(`Invalid "code_challenge"`)
	}
	return nil
}

// S256Challenge is the S256 code challenge of a verifier:
// BASE64URL-NOPAD(SHA256(verifier)) (RFC 7636 §4.2).
func S256Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// ValidCodeVerifier reports whether v is a well-formed PKCE code
// verifier: 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1).
func ValidCodeVerifier(v string) bool {
	return len(v) >= 43 && len(v) <= 128 && unreserved(v, true)
}

// verifierMatches compares a verifier's challenge with the stored one in
// constant time.
func verifierMatches(verifier, challenge string) bool {
	return subtle.ConstantTimeCompare([]byte(S256Challenge(verifier)), []byte(challenge)) == 1
}

// unreserved reports whether s is made of base64url characters
// ([A-Za-z0-9-_]), plus "." and "~" (RFC 3986's unreserved set) when
// dotTilde.
func unreserved(s string, dotTilde bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		case dotTilde && (c == '.' || c == '~'):
		default:
			return false
		}
	}
	return true
}
