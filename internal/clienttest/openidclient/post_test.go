package openidclient

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAuthorizationRequestAsPOSTForm sends openid-client's authorization
// requests as form-encoded POSTs (OpenID Connect Core §3.1.2.1), from the
// RP's page that submits them on load: the same answers as GET. Without a
// session, the login page and consent, then a code; granted, prompt=none
// gives the code without a page; prompt=none for scopes not granted,
// consent_required; prompt=login, the login page again.
func TestAuthorizationRequestAsPOSTForm(t *testing.T) {
	r := newRig(t)
	ctx := browser(t)
	openid := "openid identify"

	open(t, ctx, r.authorize(t, "post", request{Scope: openid, Post: true}))
	browse(t, ctx, "the login page after the POSTed request", chromedp.WaitVisible(chromedp.ID("password")))
	// The parameters came in the body: the page's address has none.
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != r.url+"/oauth2/authorize" {
		t.Fatalf("the login page is at %q (%v), want %s/oauth2/authorize, reached by POST", loc, err, r.url)
	}
	r.logIn(t, ctx)
	approve(t, ctx)
	tok := r.signedIn(t, "post")
	if tok.sub() != r.userID {
		t.Fatalf("sub %q, want %s", tok.sub(), r.userID)
	}
	sessionLogin := tok.authTime(t)

	t.Run("prompt=none granted", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "post-none", request{Scope: openid, Post: true, Params: map[string]string{"prompt": "none"}}))
		browse(t, ctx, "the RP's callback", chromedp.WaitVisible(chromedp.ID("done")))
		r.atCallback(t, ctx)
		if tok := r.signedIn(t, "post-none"); tok.authTime(t) != sessionLogin {
			t.Errorf("auth_time %d, want the session's login %d", tok.authTime(t), sessionLogin)
		}
	})

	t.Run("prompt=none for scopes not granted", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "post-none-guilds", request{Scope: "openid guilds", Post: true,
			Params: map[string]string{"prompt": "none"}}))
		browse(t, ctx, "the RP's callback", chromedp.WaitVisible(chromedp.ID("done")))
		r.atCallback(t, ctx)
		r.refused(t, "post-none-guilds", "consent_required")
	})

	t.Run("prompt=login", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "post-login", request{Scope: openid, Post: true, Params: map[string]string{"prompt": "login"}}))
		browse(t, ctx, "the login page despite the session", chromedp.WaitVisible(chromedp.ID("password")))
		if page := pageShown(t, ctx); page != "login" {
			t.Fatalf("the browser shows %s, want the login page", page)
		}
		r.logIn(t, ctx)
		approve(t, ctx)
		r.signedIn(t, "post-login")
	})
}

// TestUserinfoErrors: what openid-client makes of userinfo's refusals
// (RFC 6750 §3): an unknown or revoked access token is a 401 whose Bearer
// challenge says invalid_token; a token granted neither openid nor
// identify is a 403 whose challenge says insufficient_scope and names
// openid. A token with identify alone reads userinfo, by GET and by POST
// (OpenID Connect Core §5.3).
func TestUserinfoErrors(t *testing.T) {
	r := newRig(t)
	ctx := browser(t)
	openidTok, _ := r.signIn(t, ctx, "openid", request{Scope: "openid identify"})

	open(t, ctx, r.authorize(t, "guilds", request{Scope: "guilds"}))
	approve(t, ctx)
	guildsTok := r.signedIn(t, "guilds")
	open(t, ctx, r.authorize(t, "identify", request{Scope: "identify"}))
	approve(t, ctx)
	identifyTok := r.signedIn(t, "identify")
	if guildsTok.Claims != nil || identifyTok.Claims != nil {
		t.Fatalf("an id_token for a request without openid: %v, %v", guildsTok.Claims, identifyTok.Claims)
	}

	if rev := r.do(t, "revoke", map[string]any{"token": openidTok.AccessToken}); !rev.OK {
		t.Fatalf("tokenRevocation: %v", rev)
	}

	for _, c := range []struct {
		name, action, token, method string
		status                      int
		error                       string
	}{
		{"fetchUserInfo, revoked token", "userinfo", openidTok.AccessToken, "", 401, "invalid_token"},
		{"fetchProtectedResource GET, revoked token", "resource", openidTok.AccessToken, "GET", 401, "invalid_token"},
		{"fetchUserInfo, unknown token", "userinfo", "not-a-token", "", 401, "invalid_token"},
		{"fetchUserInfo, guilds only", "userinfo", guildsTok.AccessToken, "", 403, "insufficient_scope"},
		{"fetchProtectedResource GET, guilds only", "resource", guildsTok.AccessToken, "GET", 403, "insufficient_scope"},
		{"fetchProtectedResource POST, guilds only", "resource", guildsTok.AccessToken, "POST", 403, "insufficient_scope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := r.do(t, c.action, map[string]any{"access_token": c.token, "method": c.method})
			ch := wantChallenge(t, c.name, o, c.status, c.error)
			if c.error == "insufficient_scope" && !strings.Contains(" "+ch.Parameters["scope"]+" ", " openid ") {
				t.Errorf("the challenge's scope is %q, want one naming openid", ch.Parameters["scope"])
			}
		})
	}

	for _, method := range []string{"GET", "POST"} {
		t.Run("identify only, "+method, func(t *testing.T) {
			o := r.do(t, "resource", map[string]any{"access_token": identifyTok.AccessToken, "method": method})
			if !o.OK || o.Status != 200 || o.Body["sub"] != r.userID {
				t.Fatalf("userinfo by %s with an identify token: %v, want 200 with alice's sub", method, o)
			}
		})
	}
}

// TestDoubleLoadedCallback redeems the callback's code with
// authorizationCodeGrant several times at once, as a callback page loaded
// twice does: at most one succeeds, every other gets 400 invalid_grant
// (RFC 6749 §5.2), never a 500.
func TestDoubleLoadedCallback(t *testing.T) {
	r := newRig(t)
	ctx := browser(t)
	for _, c := range []struct {
		flow  string
		times int
		login bool // the first flow logs in; the others have the session
	}{
		{"twice-after-login", 2, true},
		{"twice-with-a-session", 2, false},
		{"eight-times", 8, false},
	} {
		flow, times := c.flow, c.times
		t.Run(flow, func(t *testing.T) {
			open(t, ctx, r.authorize(t, flow, request{Scope: "openid identify", Redeem: times}))
			if c.login {
				r.logIn(t, ctx)
			}
			approve(t, ctx)
			ev := r.callbackOf(t, flow)
			if len(ev.Outcomes) != times {
				t.Fatalf("%d outcomes, want %d", len(ev.Outcomes), times)
			}
			succeeded := 0
			for _, o := range ev.Outcomes {
				if o.OK {
					succeeded++
					if o.sub() != r.userID {
						t.Errorf("the redemption that succeeded has sub %q, want %s", o.sub(), r.userID)
					}
					continue
				}
				wantInvalidGrant(t, "a concurrent redemption of the same code", o)
			}
			t.Logf("%d of %d redemptions succeeded", succeeded, times)
			if succeeded > 1 {
				t.Fatalf("%d redemptions of one code succeeded: %v", succeeded, ev.Outcomes)
			}
		})
	}
}
