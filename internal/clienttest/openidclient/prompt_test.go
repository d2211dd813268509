package openidclient

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMaxAge: with a live session, max_age=0 (in the request, and as
// maxAge to authorizationCodeGrant, which then requires auth_time) shows
// the login page again, and the id_token after the new login passes
// openid-client's auth_time check; a max_age the session is younger than
// goes straight to the consent page, auth_time still the first login's; a
// max_age that is no number comes back as invalid_request.
func TestMaxAge(t *testing.T) {
	r := newRig(t)
	ctx := browser(t)
	first, _ := r.signIn(t, ctx, "first", request{Scope: "openid identify"})
	firstLogin := first.authTime(t)

	t.Run("0 logs in again", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "max-age-0", request{Scope: "openid identify",
			Params: map[string]string{"max_age": "0"}, MaxAge: intp(0)}))
		wantPage(t, ctx, "login", "max_age=0 with a live session")
		began := time.Now().Unix()
		r.logIn(t, ctx)
		approve(t, ctx)
		tok := r.signedIn(t, "max-age-0")
		if at := tok.authTime(t); at < began || at < firstLogin {
			t.Errorf("auth_time %d after logging in again at %d (the first login: %d)", at, began, firstLogin)
		}
		if tok.sub() != r.userID {
			t.Errorf("sub %q, want %s", tok.sub(), r.userID)
		}
	})

	t.Run("longer than the session's age", func(t *testing.T) {
		loginBefore := r.currentAuthTime(t, ctx)
		open(t, ctx, r.authorize(t, "max-age-3600", request{Scope: "openid identify",
			Params: map[string]string{"max_age": "3600"}, MaxAge: intp(3600)}))
		wantPage(t, ctx, "consent", "max_age=3600 with a session seconds old")
		approve(t, ctx)
		if at := r.signedIn(t, "max-age-3600").authTime(t); at != loginBefore {
			t.Errorf("auth_time %d, want the session's login %d (no new login)", at, loginBefore)
		}
	})

	t.Run("not a number", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "max-age-nan", request{Scope: "openid identify",
			Params: map[string]string{"max_age": "soon"}}))
		r.atCallback(t, ctx)
		r.refused(t, "max-age-nan", "invalid_request")
	})
}

// currentAuthTime is the auth_time of the browser's session: a prompt=none
// sign-in (the app is granted) reads it without a page.
func (r *rig) currentAuthTime(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	flow := "auth-time-" + t.Name()
	open(t, ctx, r.authorize(t, flow, request{Scope: "openid identify", Params: map[string]string{"prompt": "none"}}))
	r.atCallback(t, ctx)
	return r.signedIn(t, flow).authTime(t)
}

// TestPrompt drives each prompt value of OpenID Connect Core §3.1.2.1.
// none never shows a page: without a session it answers login_required,
// logged in without a grant consent_required, granted the code; combined
// with another value, invalid_request. login shows the login page despite
// the session; consent shows the consent page despite the grant;
// select_account offers to continue as alice, which keeps her session and
// goes on to the consent page.
func TestPrompt(t *testing.T) {
	r := newRig(t)
	openid := "openid identify"
	none := map[string]string{"prompt": "none"}

	t.Run("none without a session", func(t *testing.T) {
		ctx := browser(t)
		open(t, ctx, r.authorize(t, "none-no-session", request{Scope: openid, Params: none}))
		r.atCallback(t, ctx)
		r.refused(t, "none-no-session", "login_required")
	})

	ctx := browser(t)
	// alice logs in, and stops at the consent page: a session, no grant.
	open(t, ctx, r.authorize(t, "login-only", request{Scope: openid}))
	r.logIn(t, ctx)
	browse(t, ctx, "the consent page after logging in", chromedp.WaitVisible(chromedp.ID("approve")))

	t.Run("none logged in without a grant", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "none-no-grant", request{Scope: openid, Params: none}))
		r.atCallback(t, ctx)
		r.refused(t, "none-no-grant", "consent_required")
	})

	// alice grants the app (the session's consent page, no login).
	open(t, ctx, r.authorize(t, "grant", request{Scope: openid}))
	wantPage(t, ctx, "consent", "a session without a grant")
	approve(t, ctx)
	granted := r.signedIn(t, "grant")
	sessionLogin := granted.authTime(t)

	t.Run("none granted", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "none-granted", request{Scope: openid, Params: none}))
		r.atCallback(t, ctx)
		tok := r.signedIn(t, "none-granted")
		if tok.sub() != r.userID || tok.authTime(t) != sessionLogin {
			t.Errorf("claims %v, want alice's sub and auth_time %d (the session's login)", tok.Claims, sessionLogin)
		}
	})

	t.Run("none for scopes not granted", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "none-more-scopes", request{Scope: "openid identify guilds", Params: none}))
		r.atCallback(t, ctx)
		r.refused(t, "none-more-scopes", "consent_required")
	})

	t.Run("none with max_age=0", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "none-max-age-0", request{Scope: openid,
			Params: map[string]string{"prompt": "none", "max_age": "0"}, MaxAge: intp(0)}))
		r.atCallback(t, ctx)
		r.refused(t, "none-max-age-0", "login_required")
	})

	t.Run("none with login", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "none-login", request{Scope: openid, Params: map[string]string{"prompt": "none login"}}))
		r.atCallback(t, ctx)
		r.refused(t, "none-login", "invalid_request")
	})

	t.Run("consent", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "consent", request{Scope: openid, Params: map[string]string{"prompt": "consent"}}))
		wantPage(t, ctx, "consent", "prompt=consent with a grant")
		approve(t, ctx)
		if tok := r.signedIn(t, "consent"); tok.authTime(t) != sessionLogin {
			t.Errorf("auth_time %d, want the session's login %d", tok.authTime(t), sessionLogin)
		}
	})

	t.Run("select_account", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "select-account", request{Scope: openid, Params: map[string]string{"prompt": "select_account"}}))
		browse(t, ctx, "the account choice", chromedp.WaitVisible(chromedp.ID("continue-as")))
		wantPage(t, ctx, "login", "prompt=select_account") // the form to switch accounts is there too
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("continue-as")))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("#continue-as says %q", text)
		screenshot(t, ctx, "openidclient-select-account.png", "prompt=select_account login page")
		browse(t, ctx, "continue as alice", chromedp.Click(chromedp.ID("continue-as")))
		approve(t, ctx)
		tok := r.signedIn(t, "select-account")
		if tok.sub() != r.userID || tok.authTime(t) != sessionLogin {
			t.Errorf("claims %v, want alice's sub and auth_time %d (the account kept, no new login)", tok.Claims, sessionLogin)
		}
	})

	t.Run("login", func(t *testing.T) {
		open(t, ctx, r.authorize(t, "login", request{Scope: openid, Params: map[string]string{"prompt": "login"}}))
		wantPage(t, ctx, "login", "prompt=login with a live session")
		name, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("name")))
		if err != nil {
			t.Fatal(err)
		}
		if name != "alice" {
			t.Errorf("the login name field holds %q, want alice's login name filled in", name)
		}
		screenshot(t, ctx, "openidclient-prompt-login.png", "prompt=login login page")
		began := time.Now().Unix()
		r.logIn(t, ctx)
		approve(t, ctx)
		tok := r.signedIn(t, "login")
		if at := tok.authTime(t); at < began || at < sessionLogin {
			t.Errorf("auth_time %d after logging in again at %d (the previous login: %d)", at, began, sessionLogin)
		}
	})
}
