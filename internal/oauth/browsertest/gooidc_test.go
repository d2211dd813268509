package browsertest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testtool/chromium"
)

// These tests are a relying party as Go programs write one: go-oidc
// discovers slashd and verifies its id_tokens, golang.org/x/oauth2 builds
// the authorization URL and redeems codes, and Chromium is the user on
// the login and consent pages (issue 27: max_age, each prompt, the POST
// form, userinfo's errors, a code redeemed twice at once).

// relyingParty is a confidential client of the world's app with its own
// callback server on 127.0.0.1.
type relyingParty struct {
	w         *world
	provider  *oidc.Provider
	conf      oauth2.Config
	verifier  *oidc.IDTokenVerifier
	callbacks chan callback
	// browser is the Chromium the user signs in with, for diagnostics.
	browser context.Context
	// callbackURL is the registered redirect URI, the callback server's
	// /callback.
	callbackURL string
	base        string // the callback server's URL
}

// callback is what came back to the redirect URI.
type callback struct {
	code, state, err, errDescription string
}

// callbackPage is what the browser shows once back at the client.
const callbackPage = `<!doctype html><title>Back at the app</title><p id="done">Back at the app.</p>`

// postPage submits an authorization request as a form-encoded POST (OIDC
// Core §3.1.2.1) as soon as it loads.
var postPage = template.Must(template.New("post").Parse(`<!doctype html><title>Signing in</title>
<body onload="document.forms[0].submit()">
<form method="post" action="{{.Action}}">
{{range $k, $vs := .Params}}{{range $vs}}<input type="hidden" name="{{$k}}" value="{{.}}">
{{end}}{{end}}<noscript><button type="submit">Continue</button></noscript>
</form>`))

// newRelyingParty starts the client's callback server, registers its
// URL with the app, and discovers the world's provider.
func newRelyingParty(t *testing.T, w *world, browser context.Context) *relyingParty {
	t.Helper()
	rp := &relyingParty{w: w, callbacks: make(chan callback, 16), browser: browser}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", rp.receive)
	mux.HandleFunc("GET /post", rp.servePost)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rp.base = srv.URL
	rp.callbackURL = srv.URL + "/callback"

	ctx := t.Context()
	settings, err := w.st.OAuthSettings(ctx, w.appID)
	if err != nil {
		t.Fatal(err)
	}
	settings.RedirectURIs = append(settings.RedirectURIs, rp.callbackURL)
	if err := w.st.SetOAuthSettings(ctx, store.OAuthSettings{ApplicationID: w.appID,
		RedirectURIs: settings.RedirectURIs, PublicClient: settings.PublicClient}); err != nil {
		t.Fatal(err)
	}

	// The provider's context lives as long as the test: go-oidc fetches
	// the key set with it when it first verifies a token.
	rp.provider, err = oidc.NewProvider(ctx, w.url)
	if err != nil {
		t.Fatalf("oidc.NewProvider(%s): %v", w.url, err)
	}
	endpoint := rp.provider.Endpoint()
	// Discovery lists client_secret_basic; naming it spares x/oauth2's
	// probe, which would send a refused code a second time in the form.
	endpoint.AuthStyle = oauth2.AuthStyleInHeader
	rp.conf = oauth2.Config{
		ClientID:     w.app.ClientID,
		ClientSecret: w.app.ClientSecret,
		Endpoint:     endpoint,
		RedirectURL:  rp.callbackURL,
		Scopes:       []string{oidc.ScopeOpenID, "identify"},
	}
	if rp.conf.ClientID == "" || rp.conf.ClientSecret == "" {
		t.Fatalf("the world's app has no client credentials: %+v", w.app)
	}
	rp.verifier = rp.provider.Verifier(&oidc.Config{ClientID: rp.conf.ClientID})
	return rp
}

// receive is the redirect URI: it hands what came back to the test.
func (rp *relyingParty) receive(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cb := callback{code: q.Get("code"), state: q.Get("state"), err: q.Get("error"),
		errDescription: q.Get("error_description")}
	select {
	case rp.callbacks <- cb:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, callbackPage)
}

// servePost is /post?request=<authorization URL>: a page that POSTs that
// request's parameters to the provider's authorization endpoint.
func (rp *relyingParty) servePost(w http.ResponseWriter, r *http.Request) {
	u, err := url.Parse(r.URL.Query().Get("request"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	data := struct {
		Action string
		Params url.Values
	}{Action: rp.provider.Endpoint().AuthURL, Params: u.Query()}
	if err := postPage.Execute(w, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// postURL is the page that sends authURL's request as a POST.
func (rp *relyingParty) postURL(authURL string) string {
	return rp.base + "/post?" + url.Values{"request": {authURL}}.Encode()
}

// flow is one authorization request: its URL and the secrets the client
// keeps to check what comes back.
type flow struct {
	url, state, nonce, verifier string
	conf                        *oauth2.Config
}

// start builds an authorization request as the x/oauth2 and go-oidc
// READMEs do: state, PKCE S256, nonce, and opts (prompt, max_age).
func (rp *relyingParty) start(opts ...oauth2.AuthCodeOption) flow {
	return rp.startWith(&rp.conf, opts...)
}

// startWith is start with another configuration (other scopes).
func (rp *relyingParty) startWith(conf *oauth2.Config, opts ...oauth2.AuthCodeOption) flow {
	f := flow{state: rand.Text(), nonce: rand.Text(), verifier: oauth2.GenerateVerifier(), conf: conf}
	opts = append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.verifier), oidc.Nonce(f.nonce)}, opts...)
	f.url = conf.AuthCodeURL(f.state, opts...)
	return f
}

func prompt(v string) oauth2.AuthCodeOption { return oauth2.SetAuthURLParam("prompt", v) }

func maxAge(seconds int) oauth2.AuthCodeOption {
	return oauth2.SetAuthURLParam("max_age", fmt.Sprint(seconds))
}

// await is what came back to the redirect URI for f; its state must be
// f's.
func (rp *relyingParty) await(t *testing.T, f flow) callback {
	t.Helper()
	select {
	case cb := <-rp.callbacks:
		if cb.state != f.state {
			t.Fatalf("callback state %q, want %q (%+v)", cb.state, f.state, cb)
		}
		return cb
	case <-time.After(60 * time.Second):
		t.Fatalf("nothing came back to the redirect URI\n%s", whereIs(rp.browser))
	}
	return callback{}
}

// awaitCode is await for a callback that must carry a code.
func (rp *relyingParty) awaitCode(t *testing.T, f flow) string {
	t.Helper()
	cb := rp.await(t, f)
	if cb.err != "" || cb.code == "" {
		t.Fatalf("callback without a code: %+v", cb)
	}
	return cb.code
}

// awaitError is await for a callback that must carry error want.
func (rp *relyingParty) awaitError(t *testing.T, f flow, want string) {
	t.Helper()
	cb := rp.await(t, f)
	if cb.err != want || cb.code != "" {
		t.Fatalf("callback %+v, want error=%s and no code", cb, want)
	}
}

// idClaims are the claims go-oidc's IDToken leaves to Claims.
type idClaims struct {
	AuthTime int64  `json:"auth_time"`
	Nonce    string `json:"nonce"`
}

// signIn is what a redeemed code gave the client, verified.
type signIn struct {
	token   *oauth2.Token
	idToken *oidc.IDToken
	claims  idClaims
}

// redeem exchanges code with f's PKCE verifier and verifies the id_token
// as go-oidc's README does: signature, issuer, audience, expiry, then
// nonce and at_hash.
func (rp *relyingParty) redeem(t *testing.T, f flow, code string) signIn {
	t.Helper()
	ctx := t.Context()
	tok, err := f.conf.Exchange(ctx, code, oauth2.VerifierOption(f.verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	return rp.verify(t, f.nonce, tok)
}

// verify checks tok's id_token; nonce is the request's ("" for a
// refresh, whose id_token need not carry one).
func (rp *relyingParty) verify(t *testing.T, nonce string, tok *oauth2.Token) signIn {
	t.Helper()
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		t.Fatalf("no id_token in the token response: %+v", tok)
	}
	idTok, err := rp.verifier.Verify(t.Context(), raw)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := idTok.VerifyAccessToken(tok.AccessToken); err != nil {
		t.Fatalf("VerifyAccessToken (at_hash): %v", err)
	}
	var c idClaims
	if err := idTok.Claims(&c); err != nil {
		t.Fatalf("Claims: %v", err)
	}
	if nonce != "" && (c.Nonce != nonce || idTok.Nonce != nonce) {
		t.Fatalf("id_token nonce %q (%q), want %q", c.Nonce, idTok.Nonce, nonce)
	}
	if idTok.Subject != rp.w.userID.String() {
		t.Fatalf("id_token sub %q, want the user %s", idTok.Subject, rp.w.userID)
	}
	if c.AuthTime == 0 {
		t.Fatalf("id_token without auth_time")
	}
	return signIn{token: tok, idToken: idTok, claims: c}
}

// oidcBrowser is browser with a ceiling for tests that run several
// sign-ins in one Chromium: a bound for a loaded machine, not a wait.
func oidcBrowser(t *testing.T) context.Context {
	t.Helper()
	return chromium.Browser(t, 800, 900, 240*time.Second)
}

// drive runs steps in Chromium, the whole bounded by a ceiling for a
// loaded machine (not a wait); when they fail, it says where Chromium is
// and what the page shows, which tells a missing page from a wrong one.
func drive(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	stepsCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(stepsCtx, steps...); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, whereIs(ctx))
	}
}

// whereIs is Chromium's location and the text of its page.
func whereIs(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return fmt.Sprintf("(no location: %v)", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return fmt.Sprintf("Chromium is at %s (no text: %v)", loc, err)
	}
	return fmt.Sprintf("Chromium is at %s, showing:\n%s", loc, text)
}

// logIn fills the login page (the name may be filled in already, when
// the page asks the user to log in again) and waits for the consent page.
func logIn(w *world) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.Clear(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), w.password),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	)
}

// approve approves on the consent page and waits for the client's page.
func approve() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("done")),
	)
}

// loggedIn is a login window: auth_time must fall inside it.
type loggedIn struct{ from, to int64 }

// signInInBrowser runs f in Chromium from a browser without a session:
// login, consent, approve. It returns the redeemed sign-in and when the
// login happened.
func (rp *relyingParty) signInInBrowser(t *testing.T, ctx context.Context, f flow) (signIn, loggedIn) {
	t.Helper()
	drive(t, ctx, "open the login page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("name")))
	window := rp.logInAndApprove(t, ctx)
	return rp.redeem(t, f, rp.awaitCode(t, f)), window
}

// logInAndApprove logs in on the login page Chromium shows and approves.
func (rp *relyingParty) logInAndApprove(t *testing.T, ctx context.Context) loggedIn {
	t.Helper()
	from := time.Now().Unix()
	drive(t, ctx, "log in", logIn(rp.w))
	to := time.Now().Unix()
	drive(t, ctx, "approve", approve())
	return loggedIn{from: from, to: to}
}

// checkAuthTime: auth_time is within the login window.
func checkAuthTime(t *testing.T, s signIn, window loggedIn) {
	t.Helper()
	if s.claims.AuthTime < window.from || s.claims.AuthTime > window.to {
		t.Fatalf("auth_time %d outside the login window [%d, %d]", s.claims.AuthTime, window.from, window.to)
	}
}

// saveScreenshot writes a picture of the page Chromium shows.
func saveScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := screenshotPath(t, name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// atClient checks that Chromium is on the client's page (the redirect
// came straight back, no page of slashd's in between).
func (rp *relyingParty) atClient(t *testing.T, ctx context.Context) {
	t.Helper()
	drive(t, ctx, "the client's page", chromedp.WaitVisible(chromedp.ID("done")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(loc, rp.callbackURL+"?") {
		t.Fatalf("Chromium is at %s, want the redirect URI %s", loc, rp.callbackURL)
	}
}

// TestGoOIDCSignIn: discovery lists the prompts and auth_time; code +
// PKCE + nonce, the id_token and its at_hash verified by go-oidc,
// auth_time the login's, userinfo's sub the id_token's, and a refresh
// through x/oauth2's TokenSource once the token has expired (as far as
// the client knows).
func TestGoOIDCSignIn(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)

	var discovery struct {
		Prompts []string `json:"prompt_values_supported"`
		Claims  []string `json:"claims_supported"`
	}
	if err := rp.provider.Claims(&discovery); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"none", "login", "consent", "select_account"} {
		if !slices.Contains(discovery.Prompts, p) {
			t.Errorf("discovery's prompt_values_supported %q lacks %s", discovery.Prompts, p)
		}
	}
	if !slices.Contains(discovery.Claims, "auth_time") {
		t.Errorf("discovery's claims_supported %q lacks auth_time", discovery.Claims)
	}

	f := rp.start()
	s, window := rp.signInInBrowser(t, ctx, f)
	checkAuthTime(t, s, window)
	if s.token.RefreshToken == "" || s.token.Expiry.IsZero() || s.token.Type() != "Bearer" {
		t.Fatalf("token: %+v", s.token)
	}

	info, err := rp.provider.UserInfo(t.Context(), oauth2.StaticTokenSource(s.token))
	if err != nil {
		t.Fatalf("UserInfo: %v", err)
	}
	if info.Subject != s.idToken.Subject {
		t.Fatalf("userinfo sub %q, id_token sub %q", info.Subject, s.idToken.Subject)
	}
	var profile struct {
		PreferredUsername string `json:"preferred_username"`
	}
	if err := info.Claims(&profile); err != nil || profile.PreferredUsername != "alice" {
		t.Fatalf("userinfo preferred_username %q, %v", profile.PreferredUsername, err)
	}

	expired := *s.token
	expired.Expiry = time.Now().Add(-time.Minute)
	refreshed, err := rp.conf.TokenSource(t.Context(), &expired).Token()
	if err != nil {
		t.Fatalf("refresh through TokenSource: %v", err)
	}
	if refreshed.AccessToken == s.token.AccessToken || refreshed.RefreshToken == "" ||
		refreshed.RefreshToken == s.token.RefreshToken {
		t.Fatalf("refresh: access %q → %q, refresh %q → %q: want new tokens (rotation)",
			s.token.AccessToken, refreshed.AccessToken, s.token.RefreshToken, refreshed.RefreshToken)
	}
	if _, ok := refreshed.Extra("id_token").(string); ok {
		r := rp.verify(t, "", refreshed)
		if r.claims.AuthTime != s.claims.AuthTime {
			t.Fatalf("refreshed id_token auth_time %d, want the login's %d", r.claims.AuthTime, s.claims.AuthTime)
		}
	}
	info, err = rp.provider.UserInfo(t.Context(), oauth2.StaticTokenSource(refreshed))
	if err != nil || info.Subject != s.idToken.Subject {
		t.Fatalf("UserInfo with the refreshed token: %+v, %v", info, err)
	}
}

// TestGoOIDCMaxAge: with a live session, max_age=0 asks for the login
// again and auth_time moves to it; max_age=3600 keeps the session and
// goes straight to the consent page; with prompt=none a login older than
// max_age is login_required; a max_age that is not a whole number of
// seconds is invalid_request.
func TestGoOIDCMaxAge(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	first, _ := rp.signInInBrowser(t, ctx, rp.start())

	f := rp.start(maxAge(0))
	drive(t, ctx, "max_age=0 with a live session: no login page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("name")))
	window := rp.logInAndApprove(t, ctx)
	second := rp.redeem(t, f, rp.awaitCode(t, f))
	checkAuthTime(t, second, window)
	if second.claims.AuthTime < first.claims.AuthTime {
		t.Fatalf("auth_time went back: %d after %d", second.claims.AuthTime, first.claims.AuthTime)
	}

	f = rp.start(maxAge(3600))
	drive(t, ctx, "max_age=3600 with a fresh session: no consent page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("approve")))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#name, #password").length`)); err != nil || n != 0 {
		t.Fatalf("max_age=3600 shows a login form (%d fields, %v)", n, err)
	}
	drive(t, ctx, "approve", approve())
	third := rp.redeem(t, f, rp.awaitCode(t, f))
	if third.claims.AuthTime != second.claims.AuthTime {
		t.Fatalf("auth_time %d, want the session's login %d", third.claims.AuthTime, second.claims.AuthTime)
	}

	// Without pages, a login older than max_age is login_required,
	// although a grant covers the request.
	f = rp.start(prompt("none"), maxAge(0))
	drive(t, ctx, "prompt=none max_age=0", chromedp.Navigate(f.url))
	rp.awaitError(t, f, "login_required")
	rp.atClient(t, ctx)

	for _, bad := range []string{"-1", "soon", "1.5"} {
		f = rp.start(oauth2.SetAuthURLParam("max_age", bad))
		drive(t, ctx, "max_age="+bad, chromedp.Navigate(f.url))
		rp.awaitError(t, f, "invalid_request")
		rp.atClient(t, ctx)
	}
}

// TestGoOIDCPromptConsent: prompt=consent shows the consent page although
// a grant covers the request (prompt=none gives the code without it),
// and keeps the session's login.
func TestGoOIDCPromptConsent(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	first, _ := rp.signInInBrowser(t, ctx, rp.start())

	f := rp.start(prompt("none"))
	drive(t, ctx, "prompt=none with a grant", chromedp.Navigate(f.url))
	rp.redeem(t, f, rp.awaitCode(t, f))
	rp.atClient(t, ctx)

	f = rp.start(prompt("consent"))
	drive(t, ctx, "prompt=consent with a grant: no consent page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("approve")))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#name, #password").length`)); err != nil || n != 0 {
		t.Fatalf("prompt=consent shows a login form (%d fields, %v)", n, err)
	}
	drive(t, ctx, "approve", approve())
	s := rp.redeem(t, f, rp.awaitCode(t, f))
	if s.claims.AuthTime != first.claims.AuthTime {
		t.Fatalf("auth_time %d, want the session's login %d", s.claims.AuthTime, first.claims.AuthTime)
	}
}

// TestGoOIDCPromptNone: no page ever; login_required without a session,
// consent_required without a grant for the scopes, a code when both
// exist, and invalid_request for none with another value.
func TestGoOIDCPromptNone(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)

	f := rp.start(prompt("none"))
	drive(t, ctx, "prompt=none without a session", chromedp.Navigate(f.url))
	rp.awaitError(t, f, "login_required")
	rp.atClient(t, ctx)

	// Logged in, no grant yet: the user logs in and cancels.
	f = rp.start()
	drive(t, ctx, "log in and cancel",
		chromedp.Navigate(f.url),
		logIn(w),
		chromedp.Click(chromedp.ID("cancel")),
		chromedp.WaitVisible(chromedp.ID("done")),
	)
	rp.awaitError(t, f, "access_denied")
	f = rp.start(prompt("none"))
	drive(t, ctx, "prompt=none without a grant", chromedp.Navigate(f.url))
	rp.awaitError(t, f, "consent_required")
	rp.atClient(t, ctx)

	// A grant of openid identify.
	f = rp.start()
	drive(t, ctx, "consent", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("approve")), approve())
	granted := rp.redeem(t, f, rp.awaitCode(t, f))

	f = rp.start(prompt("none"))
	drive(t, ctx, "prompt=none with a grant", chromedp.Navigate(f.url))
	code := rp.awaitCode(t, f)
	rp.atClient(t, ctx)
	again := rp.redeem(t, f, code)
	if again.claims.AuthTime != granted.claims.AuthTime {
		t.Fatalf("prompt=none auth_time %d, want the login's %d", again.claims.AuthTime, granted.claims.AuthTime)
	}

	// A scope the grant does not cover.
	wider := rp.conf
	wider.Scopes = []string{oidc.ScopeOpenID, "identify", "guilds"}
	f = rp.startWith(&wider, prompt("none"))
	drive(t, ctx, "prompt=none for a scope not granted", chromedp.Navigate(f.url))
	rp.awaitError(t, f, "consent_required")
	rp.atClient(t, ctx)

	f = rp.start(prompt("none login"))
	drive(t, ctx, `prompt="none login"`, chromedp.Navigate(f.url))
	rp.awaitError(t, f, "invalid_request")
	rp.atClient(t, ctx)
}

// TestGoOIDCPromptLogin: the login page although the session is live,
// then the consent page; auth_time is the new login's.
func TestGoOIDCPromptLogin(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	rp.signInInBrowser(t, ctx, rp.start())

	f := rp.start(prompt("login"))
	drive(t, ctx, "prompt=login with a live session: no login page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("name")))
	saveScreenshot(t, ctx, "oidc-prompt-login.png")
	window := rp.logInAndApprove(t, ctx)
	s := rp.redeem(t, f, rp.awaitCode(t, f))
	checkAuthTime(t, s, window)
}

// TestGoOIDCPromptSelectAccount: the login page offers to continue as
// the logged-in user; continuing keeps the session (and its auth_time)
// and leads to the consent page.
func TestGoOIDCPromptSelectAccount(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	first, _ := rp.signInInBrowser(t, ctx, rp.start())

	f := rp.start(prompt("select_account"))
	drive(t, ctx, "prompt=select_account: no account choice",
		chromedp.Navigate(f.url),
		chromedp.WaitVisible(chromedp.ID("continue-as")),
		chromedp.WaitVisible(chromedp.ID("name")),
	)
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("continue-as")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Continue as") || !strings.Contains(text, "Alice") {
		t.Fatalf("#continue-as says %q, want Continue as Alice", text)
	}
	saveScreenshot(t, ctx, "oidc-select-account.png")
	drive(t, ctx, "continue as alice and approve",
		chromedp.Click(chromedp.ID("continue-as")),
		chromedp.WaitVisible(chromedp.ID("approve")),
		approve(),
	)
	s := rp.redeem(t, f, rp.awaitCode(t, f))
	if s.claims.AuthTime != first.claims.AuthTime {
		t.Fatalf("auth_time %d, want the kept session's %d", s.claims.AuthTime, first.claims.AuthTime)
	}
}

// TestGoOIDCPostForm: the authorization request sent as a form-encoded
// POST works as by GET, with prompt=none's error as well as the pages.
func TestGoOIDCPostForm(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)

	f := rp.start(prompt("none"))
	drive(t, ctx, "POSTed prompt=none", chromedp.Navigate(rp.postURL(f.url)), chromedp.WaitVisible(chromedp.ID("done")))
	rp.awaitError(t, f, "login_required")
	rp.atClient(t, ctx)

	f = rp.start()
	drive(t, ctx, "POSTed request: no login page", chromedp.Navigate(rp.postURL(f.url)), chromedp.WaitVisible(chromedp.ID("name")))
	window := rp.logInAndApprove(t, ctx)
	s := rp.redeem(t, f, rp.awaitCode(t, f))
	checkAuthTime(t, s, window)

	f = rp.start(prompt("none"))
	drive(t, ctx, "POSTed prompt=none after a grant", chromedp.Navigate(rp.postURL(f.url)), chromedp.WaitVisible(chromedp.ID("done")))
	code := rp.awaitCode(t, f)
	rp.atClient(t, ctx)
	rp.redeem(t, f, code)
}

// TestGoOIDCUserinfoErrors: a revoked token fails go-oidc's UserInfo,
// and the 401 carries RFC 6750's challenge; userinfo by POST answers a
// good token, in the header or the form body.
func TestGoOIDCUserinfoErrors(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	revoked, _ := rp.signInInBrowser(t, ctx, rp.start())
	f := rp.start(prompt("none"))
	drive(t, ctx, "prompt=none with a grant", chromedp.Navigate(f.url))
	good := rp.redeem(t, f, rp.awaitCode(t, f))

	rp.revoke(t, revoked.token.AccessToken)
	if info, err := rp.provider.UserInfo(t.Context(), oauth2.StaticTokenSource(revoked.token)); err == nil {
		t.Fatalf("UserInfo with a revoked token: %+v, want an error", info)
	} else {
		t.Logf("UserInfo with a revoked token: %v", err)
	}

	req, _ := http.NewRequestWithContext(t.Context(), "GET", rp.provider.UserInfoEndpoint(), nil)
	req.Header.Set("Authorization", "Bearer "+revoked.token.AccessToken)
	status, challenge, body := do(t, req)
	if status != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer ") ||
		!strings.Contains(challenge, `error="invalid_token"`) {
		t.Fatalf("GET userinfo with a revoked token: %d, WWW-Authenticate %q, %s", status, challenge, body)
	}

	for _, tc := range []struct {
		name string
		req  func() *http.Request
	}{
		{"header", func() *http.Request {
			req, _ := http.NewRequestWithContext(t.Context(), "POST", rp.provider.UserInfoEndpoint(), nil)
			req.Header.Set("Authorization", "Bearer "+good.token.AccessToken)
			return req
		}},
		{"form body", func() *http.Request {
			form := url.Values{"access_token": {good.token.AccessToken}}.Encode()
			req, _ := http.NewRequestWithContext(t.Context(), "POST", rp.provider.UserInfoEndpoint(), strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return req
		}},
	} {
		t.Run("POST with the token in the "+tc.name, func(t *testing.T) {
			status, _, body := do(t, tc.req())
			if status != http.StatusOK || !strings.Contains(body, `"sub":"`+good.idToken.Subject+`"`) {
				t.Fatalf("POST userinfo: %d %s, want 200 with sub %s", status, body, good.idToken.Subject)
			}
		})
	}
}

// revoke revokes token at the provider's revocation endpoint (RFC 7009),
// the client authenticated by HTTP Basic.
func (rp *relyingParty) revoke(t *testing.T, token string) {
	t.Helper()
	var doc struct {
		RevocationEndpoint string `json:"revocation_endpoint"`
	}
	if err := rp.provider.Claims(&doc); err != nil || doc.RevocationEndpoint == "" {
		t.Fatalf("discovery's revocation_endpoint %q: %v", doc.RevocationEndpoint, err)
	}
	if want := rp.w.url + "/api/v10/oauth2/token/revoke"; doc.RevocationEndpoint != want {
		t.Fatalf("revocation_endpoint %s, want %s", doc.RevocationEndpoint, want)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", doc.RevocationEndpoint,
		strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(rp.conf.ClientID), url.QueryEscape(rp.conf.ClientSecret))
	if status, _, body := do(t, req); status != http.StatusOK {
		t.Fatalf("revoke: %d %s", status, body)
	}
}

// do sends req and returns the status, the WWW-Authenticate header and
// the body.
func do(t *testing.T, req *http.Request) (int, string, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// TestGoOIDCDoubleLoadedCallback: a callback page loaded twice (or a
// client retrying in a loop) redeems its code several times at once; at
// most one Exchange succeeds and every other gets x/oauth2's
// RetrieveError with invalid_grant, never a 500. A replay revokes the
// grant, so each round consents again for a fresh code.
func TestGoOIDCDoubleLoadedCallback(t *testing.T) {
	w := newWorld(t)
	ctx := oidcBrowser(t)
	rp := newRelyingParty(t, w, ctx)
	for round, loads := range []int{2, 12} {
		f := rp.start()
		if round == 0 {
			drive(t, ctx, "open the login page", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("name")))
			rp.logInAndApprove(t, ctx)
		} else {
			drive(t, ctx, "consent again", chromedp.Navigate(f.url), chromedp.WaitVisible(chromedp.ID("approve")), approve())
		}
		code := rp.awaitCode(t, f)
		t.Run(fmt.Sprintf("%d exchanges", loads), func(t *testing.T) {
			toks, errs := exchangeAtOnce(t, rp, f, code, loads)
			won := 0
			for i, err := range errs {
				if err == nil {
					won++
					rp.verify(t, f.nonce, toks[i])
					continue
				}
				var re *oauth2.RetrieveError
				if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" || re.Response.StatusCode != http.StatusBadRequest {
					t.Errorf("Exchange %d: %v, want a 400 RetrieveError with invalid_grant", i, err)
				}
			}
			if won > 1 {
				t.Fatalf("%d exchanges of one code succeeded", won)
			}
			t.Logf("%d of %d exchanges succeeded", won, loads)
		})
	}
}

// exchangeAtOnce redeems code n times concurrently, released together.
func exchangeAtOnce(t *testing.T, rp *relyingParty, f flow, code string, n int) ([]*oauth2.Token, []error) {
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		toks  = make([]*oauth2.Token, n)
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			toks[i], errs[i] = f.conf.Exchange(t.Context(), code, oauth2.VerifierOption(f.verifier))
		})
	}
	close(start)
	wg.Wait()
	return toks, errs
}
