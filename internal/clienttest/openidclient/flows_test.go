package openidclient

import (
	"slices"
	"testing"
	"time"
)

// TestSignInRefreshRevoke is the happy path: openid-client's code flow
// with PKCE, state and nonce through the login and consent pages; its
// id_token checks pass and the claims name alice, the app and when she
// logged in; userinfo agrees on sub; the refresh token rotates; a revoked
// access token no longer reads userinfo (RFC 6750's challenge); and the
// spent refresh token is refused with invalid_grant.
func TestSignInRefreshRevoke(t *testing.T) {
	r := newRig(t)
	ctx := browser(t)

	tok, began := r.signIn(t, ctx, "sign-in", request{Scope: "openid identify"})
	if tok.sub() != r.userID {
		t.Errorf("sub %q, want alice's id %s", tok.sub(), r.userID)
	}
	if aud := tok.audience(); !slices.Contains(aud, r.clientID) {
		t.Errorf("aud %v, want the client id %s", aud, r.clientID)
	}
	if at := tok.authTime(t); at < began-1 || at > time.Now().Unix()+1 {
		t.Errorf("auth_time %d, want the login's time (it began at %d)", at, began)
	}
	if tok.RefreshToken == "" {
		t.Fatalf("no refresh token: %v", tok)
	}

	info := r.do(t, "userinfo", map[string]any{"access_token": tok.AccessToken, "sub": tok.sub()})
	if !info.OK || info.Userinfo["sub"] != r.userID {
		t.Fatalf("fetchUserInfo: %v, want alice's sub", info)
	}

	fresh := r.do(t, "refresh", map[string]any{"refresh_token": tok.RefreshToken})
	if !fresh.OK {
		t.Fatalf("refreshTokenGrant: %v", fresh)
	}
	if fresh.RefreshToken == "" || fresh.RefreshToken == tok.RefreshToken || fresh.AccessToken == tok.AccessToken {
		t.Fatalf("refreshTokenGrant did not rotate: %v", fresh)
	}
	if info := r.do(t, "userinfo", map[string]any{"access_token": fresh.AccessToken, "sub": r.userID}); !info.OK {
		t.Fatalf("fetchUserInfo with the refreshed access token: %v", info)
	}

	if rev := r.do(t, "revoke", map[string]any{"token": fresh.AccessToken}); !rev.OK {
		t.Fatalf("tokenRevocation: %v", rev)
	}
	after := r.do(t, "userinfo", map[string]any{"access_token": fresh.AccessToken, "sub": r.userID})
	wantChallenge(t, "fetchUserInfo with the revoked token", after, 401, "invalid_token")

	replay := r.do(t, "refresh", map[string]any{"refresh_token": tok.RefreshToken})
	wantInvalidGrant(t, "refreshTokenGrant with the spent refresh token", replay)
}

// wantChallenge checks that openid-client threw a
// WWWAuthenticateChallengeError for an HTTP status whose Bearer challenge
// names the error want (RFC 6750 §3).
func wantChallenge(t *testing.T, what string, o outcome, status int, want string) challenge {
	t.Helper()
	if o.OK || o.Name != "WWWAuthenticateChallengeError" || o.Status != status {
		t.Fatalf("%s: %v, want a WWWAuthenticateChallengeError for %d", what, o, status)
	}
	for _, c := range o.Challenges {
		if c.Scheme == "bearer" && c.Parameters["error"] == want {
			return c
		}
	}
	t.Fatalf("%s: challenges %v, want bearer with error=%s", what, o.Challenges, want)
	return challenge{}
}

// wantInvalidGrant checks that openid-client threw a ResponseBodyError
// for a 400 invalid_grant (RFC 6749 §5.2).
func wantInvalidGrant(t *testing.T, what string, o outcome) {
	t.Helper()
	if o.OK || o.Name != "ResponseBodyError" || o.Status != 400 || o.Error != "invalid_grant" {
		t.Fatalf("%s: %v, want a ResponseBodyError 400 invalid_grant", what, o)
	}
}
