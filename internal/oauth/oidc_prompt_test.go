package oauth_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// loggedIn is an agent whose browser has a session of alice's (the
// login walked for the confidential client's request with scope) and
// the consent page it led to.
func (w *consentWorld) loggedIn(t *testing.T, scope string) (*agent, page) {
	t.Helper()
	a := newAgent(t, w.e.URL)
	return a, a.login(authPath("/api/v10", w.confParams(scope)), "alice", alicePassword)
}

// idTokenOf approves consent, exchanges the code the redirect carries
// for the confidential client and returns the verified id_token's claims.
func (w *consentWorld) idTokenOf(t *testing.T, redirect page) map[string]any {
	t.Helper()
	q := wantRedirect(t, redirect, confRedirect, map[string]string{"state": "xyz", "error": ""})
	tok := w.h.exchange(t, codeForm(q.Get("code"), confRedirect, ""), w.conf.id.String(), w.conf.secret)
	if tok.IDToken == "" {
		t.Fatalf("no id_token: %+v", tok)
	}
	return verifyIDToken(t, w.e, w.e.URL+"/api/v10/oauth2/keys", tok.IDToken)
}

// authTime is an id_token's auth_time.
func authTime(t *testing.T, claims map[string]any) time.Time {
	t.Helper()
	at, ok := claims["auth_time"].(float64)
	if !ok {
		t.Fatalf("no auth_time in %v", claims)
	}
	return time.Unix(int64(at), 0)
}

// relogin posts the login form p shows with alice's password, follows
// the redirect and returns the page it leads to.
func (a *agent) relogin(p page) page {
	a.t.Helper()
	if !p.isLogin() {
		a.t.Fatalf("%d, want the login form:\n%s", p.status, p.body)
	}
	f := p.hidden()
	f.Set("name", "alice")
	f.Set("password", alicePassword)
	r := a.post(p.action(a.t), f)
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("login: %d, want 303:\n%s", r.status, r.body)
	}
	return a.get(r.header.Get("Location"))
}

// TestAuthTime: every id_token says when its user logged in, to the
// second (OIDC Core §2), whether the code came from the consent page or
// from prompt=none.
func TestAuthTime(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	before := w.e.Clock.Now().Truncate(time.Second)
	a, consent := w.loggedIn(t, "openid identify")
	after := w.e.Clock.Now()
	claims := w.idTokenOf(t, a.submit(consent, "approve"))
	if at := authTime(t, claims); at.Before(before) || at.After(after) {
		t.Errorf("auth_time %v, want the login's time, between %v and %v", at, before, after)
	}

	// An hour later, prompt=none sends a code at once: its auth_time is
	// still the login's.
	w.e.Clock.Advance(time.Hour)
	p := a.get(authPath("/api/v10", w.confParams("openid identify"), "prompt", "none"))
	claims = w.idTokenOf(t, p)
	if at := authTime(t, claims); at.Before(before) || at.After(after) {
		t.Errorf("auth_time %v after prompt=none, want the login's, between %v and %v", at, before, after)
	}
}

// TestMaxAge: an OpenID Connect request's max_age sends a user whose
// login is older back to the login form; once logged in again the
// consent page follows (no loop, even for max_age=0), and auth_time is
// the new login's. Requests without openid ignore max_age, as the real
// service does.
func TestMaxAge(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a, _ := w.loggedIn(t, "openid")
	w.e.Clock.Advance(2 * time.Minute)

	for _, fresh := range []string{"3600", "200"} {
		if p := a.get(authPath("/api/v10", w.confParams("openid"), "max_age", fresh)); p.status != 200 || !p.isConsent() {
			t.Errorf("max_age=%s with a login 2 minutes old: %d, want the consent page:\n%s", fresh, p.status, p.body)
		}
	}
	if p := a.get(authPath("/api/v10", w.confParams("identify"), "max_age", "0")); p.status != 200 || !p.isConsent() {
		t.Errorf("max_age without openid: %d, want the consent page (ignored):\n%s", p.status, p.body)
	}

	for _, stale := range []string{"60", "0"} {
		t.Run("max_age="+stale, func(t *testing.T) {
			p := a.get(authPath("/api/v10", w.confParams("openid"), "max_age", stale))
			if p.status != 200 || !p.isLogin() {
				t.Fatalf("%d, want the login form:\n%s", p.status, p.body)
			}
			if !strings.Contains(p.body, `value="alice"`) || !strings.Contains(p.body, "Log in again") {
				t.Errorf("the login form does not ask alice to log in again:\n%s", p.body)
			}
			relogged := w.e.Clock.Now().Truncate(time.Second)
			consent := a.relogin(p)
			if !consent.isConsent() {
				t.Fatalf("after logging in again: %d, want the consent page:\n%s", consent.status, consent.body)
			}
			if at := authTime(t, w.idTokenOf(t, a.submit(consent, "approve"))); at.Before(relogged) {
				t.Errorf("auth_time %v, want the new login's (at or after %v)", at, relogged)
			}
		})
	}

	// A consent page left open past max_age asks for a login before the
	// code goes back.
	t.Run("consent page left open", func(t *testing.T) {
		consent := a.get(authPath("/api/v10", w.confParams("openid"), "max_age", "300"))
		if !consent.isConsent() || consent.hidden().Get("max_age") != "300" {
			t.Fatalf("%d, want the consent page carrying max_age:\n%s", consent.status, consent.body)
		}
		w.e.Clock.Advance(10 * time.Minute)
		p := a.submit(consent, "approve")
		if p.status != 200 || !p.isLogin() {
			t.Fatalf("approve after max_age: %d, want the login form:\n%s", p.status, p.body)
		}
		relogged := w.e.Clock.Now().Truncate(time.Second)
		consent = a.relogin(p)
		if !consent.isConsent() {
			t.Fatalf("after logging in again: %d, want the consent page:\n%s", consent.status, consent.body)
		}
		if at := authTime(t, w.idTokenOf(t, a.submit(consent, "approve"))); at.Before(relogged) {
			t.Errorf("auth_time %v, want the new login's (at or after %v)", at, relogged)
		}
	})

	for _, bad := range []string{"-1", "abc", "1.5"} {
		p := a.get(authPath("/api/v10", w.confParams("openid"), "max_age", bad))
		wantRedirect(t, p, confRedirect, map[string]string{"error": "invalid_request", "state": "xyz", "code": ""})
	}
}

// TestPromptNoneOpenID: for an OpenID Connect request, prompt=none never shows
// a page (OIDC Core §3.1.2.1): the code, or login_required,
// consent_required or interaction_required sent back (§3.1.2.6).
// Without openid the real service's behaviour stays: the page shows when
// no grant covers the request.
func TestPromptNoneOpenID(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	none := func(scope string, kv ...string) string {
		return authPath("/api/v10", w.confParams(scope), append([]string{"prompt", "none"}, kv...)...)
	}
	stranger := newAgent(t, w.e.URL)
	wantRedirect(t, stranger.get(none("openid")), confRedirect,
		map[string]string{"error": "login_required", "state": "xyz", "code": ""})
	if p := stranger.get(none("identify")); p.status != 200 || !p.isLogin() {
		t.Errorf("prompt=none without openid and no session: %d, want the login form", p.status)
	}

	a, consent := w.loggedIn(t, "openid identify")
	wantRedirect(t, a.get(none("openid identify")), confRedirect,
		map[string]string{"error": "consent_required", "state": "xyz", "code": ""})
	if p := a.get(none("identify")); p.status != 200 || !p.isConsent() {
		t.Errorf("prompt=none without openid and no grant: %d, want the consent page", p.status)
	}
	w.idTokenOf(t, a.submit(consent, "approve"))

	// Granted: the code comes straight back, for the scopes granted or fewer.
	for _, scope := range []string{"openid identify", "openid"} {
		w.idTokenOf(t, a.get(none(scope)))
	}
	wantRedirect(t, a.get(none("openid identify email")), confRedirect,
		map[string]string{"error": "consent_required", "code": ""})
	// An install needs a guild picked on the page.
	wantRedirect(t, a.get(none("openid applications.commands")), confRedirect,
		map[string]string{"error": "interaction_required", "code": ""})
	// A login older than max_age.
	w.e.Clock.Advance(2 * time.Minute)
	wantRedirect(t, a.get(none("openid identify", "max_age", "60")), confRedirect,
		map[string]string{"error": "login_required", "code": ""})
	w.idTokenOf(t, a.get(none("openid identify", "max_age", "600")))
	// none with another value.
	wantRedirect(t, a.get(none("openid identify", "prompt", "none login")), confRedirect,
		map[string]string{"error": "invalid_request", "code": ""})
}

// TestPromptLogin: prompt=login shows the login form to a logged-in user;
// the new login replaces the session, whose old cookie opens nothing.
func TestPromptLogin(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a, _ := w.loggedIn(t, "openid")
	oldCookie := a.sessionCookie()
	p := a.get(authPath("/api/v10", w.confParams("openid"), "prompt", "login consent"))
	if !p.isLogin() {
		t.Fatalf("prompt=login with a session: %d, want the login form:\n%s", p.status, p.body)
	}
	consent := a.relogin(p)
	if !consent.isConsent() {
		t.Fatalf("after the login: %d, want the consent page:\n%s", consent.status, consent.body)
	}
	if got := consent.hidden().Get("prompt"); got != "consent" {
		t.Errorf("the consent form carries prompt=%q, want what remains once logged in: consent", got)
	}
	if a.sessionCookie() == oldCookie {
		t.Fatal("the login kept the old session cookie")
	}
	b := newAgent(t, w.e.URL)
	u, _ := url.Parse(w.e.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "slashd_session", Value: oldCookie, Path: "/"}})
	if p := b.get(authPath("/api/v10", w.confParams("openid"))); !p.isLogin() {
		t.Errorf("the replaced session still opens the consent page: %d", p.status)
	}
	// Without openid, prompt=login changes nothing.
	if p := a.get(authPath("/api/v10", w.confParams("identify"), "prompt", "login")); !p.isConsent() {
		t.Errorf("prompt=login without openid: %d, want the consent page", p.status)
	}
}

// TestPromptSelectAccount: the login form offers to continue as the
// logged-in user, or to log in as another.
func TestPromptSelectAccount(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a, _ := w.loggedIn(t, "openid")
	p := a.get(authPath("/api/v10", w.confParams("openid"), "prompt", "select_account"))
	if !p.isLogin() || !strings.Contains(p.body, `id="continue-as"`) || !strings.Contains(p.body, "Continue as <strong>alice") {
		t.Fatalf("prompt=select_account: %d, want the login form with Continue as alice:\n%s", p.status, p.body)
	}
	m := continueAsRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no continue-as link:\n%s", p.body)
	}
	next := html.UnescapeString(m[1])
	if strings.Contains(next, "select_account") {
		t.Errorf("continue-as link %q asks again", next)
	}
	if c := a.get(next); !c.isConsent() {
		t.Errorf("continue-as: %d, want the consent page:\n%s", c.status, c.body)
	}
	// Logging in (as anyone) instead also leads to the consent page.
	if c := a.relogin(p); !c.isConsent() {
		t.Errorf("login under select_account: %d, want the consent page", c.status)
	}
}

// TestAuthorizeByPost: an authorization request sent as a form (OIDC
// Core §3.1.2.1) is answered as the same request by GET, on both paths.
func TestAuthorizeByPost(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	for _, path := range []string{"/oauth2/authorize", "/api/v10/oauth2/authorize"} {
		t.Run(path, func(t *testing.T) {
			a := newAgent(t, w.e.URL)
			p := a.post(path, w.confParams("openid identify"))
			if p.status != 200 || !p.isLogin() {
				t.Fatalf("POST without a session: %d, want the login form:\n%s", p.status, p.body)
			}
			if cont := p.hidden().Get("continue"); !strings.HasPrefix(cont, path+"?") {
				t.Errorf("login continues at %q, want %s?…", cont, path)
			}
			consent := a.relogin(p)
			if !consent.isConsent() {
				t.Fatalf("after the login: %d, want the consent page:\n%s", consent.status, consent.body)
			}
			w.idTokenOf(t, a.submit(consent, "approve"))
			// Logged in and granted: prompt=none by POST sends the code.
			f := w.confParams("openid identify")
			f.Set("prompt", "none")
			w.idTokenOf(t, a.post(path, f))
			// Errors go back as for GET.
			f.Set("response_type", "token")
			wantRedirect(t, a.post(path, f), confRedirect, map[string]string{"error": "unsupported_response_type"})
			f.Set("client_id", "nope")
			wantPage(t, a.post(path, f), http.StatusBadRequest, "Invalid client_id")
		})
	}
}

var continueAsRE = regexp.MustCompile(`<a class="account" id="continue-as" href="([^"]*)">`)
