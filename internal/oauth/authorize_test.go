package oauth_test

import (
	"context"
	"crypto/rand"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testenv"
)

// The consent page, driven over plain HTTP with a cookie jar: every
// error path of GET/POST /oauth2/authorize and POST …/login, and the
// happy paths end to end (code exchange, guild installation). The
// browser test (browsertest) drives the same page in Chromium.

const (
	alicePassword = "correct horse battery staple"
	loopbackPort  = "http://127.0.0.1:54321/callback" // the SDK's ephemeral listener
	customScheme  = "com.example.game:/cb"
)

// agent is a browser without JavaScript: a cookie jar, and redirects
// left for the test to read.
type agent struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newAgent(t *testing.T, base string) *agent {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &agent{t: t, base: base, c: &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is a response of the consent page's server.
type page struct {
	status int
	header http.Header
	body   string
	cookie map[string]*http.Cookie // Set-Cookie, by name
}

func (a *agent) do(req *http.Request) page {
	a.t.Helper()
	resp, err := a.c.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	p := page{status: resp.StatusCode, header: resp.Header, body: string(b), cookie: map[string]*http.Cookie{}}
	for _, c := range resp.Cookies() {
		p.cookie[c.Name] = c
	}
	return p
}

func (a *agent) url(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return a.base + path
}

func (a *agent) get(path string) page {
	a.t.Helper()
	req, err := http.NewRequest("GET", a.url(path), nil)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.do(req)
}

func (a *agent) post(path string, form url.Values) page {
	a.t.Helper()
	req, err := http.NewRequest("POST", a.url(path), strings.NewReader(form.Encode()))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return a.do(req)
}

// sessionCookie is the jar's session cookie ("" when there is none).
func (a *agent) sessionCookie() string {
	u, _ := url.Parse(a.base)
	for _, c := range a.c.Jar.Cookies(u) {
		if c.Name == "slashd_session" {
			return c.Value
		}
	}
	return ""
}

var (
	hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
	actionRE = regexp.MustCompile(`<form method="post" action="([^"]*)">`)
	optionRE = regexp.MustCompile(`<option value="([0-9]+)" ?(selected)?>`)
)

// hidden are the page's hidden inputs, as the browser would post them.
func (p page) hidden() url.Values {
	f := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		f.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return f
}

func (p page) action(t *testing.T) string {
	t.Helper()
	m := actionRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no form in the page (%d):\n%s", p.status, p.body)
	}
	return html.UnescapeString(m[1])
}

// guilds are the guild picker's options, and the selected one.
func (p page) guilds() (ids []string, selected string) {
	for _, m := range optionRE.FindAllStringSubmatch(p.body, -1) {
		ids = append(ids, m[1])
		if m[2] != "" {
			selected = m[1]
		}
	}
	return ids, selected
}

func (p page) isLogin() bool {
	return strings.Contains(p.body, `name="password"`) && strings.Contains(p.body, `name="continue"`)
}

func (p page) isConsent() bool {
	return strings.Contains(p.body, `id="approve"`)
}

// wantSecurityHeaders checks what every HTML page of the flow sends.
func wantSecurityHeaders(t *testing.T, p page) {
	t.Helper()
	if ct := p.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if xfo := p.header.Get("X-Frame-Options"); xfo != "DENY" {
		t.Errorf("X-Frame-Options %q, want DENY", xfo)
	}
	csp := p.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// wantPage checks an HTML page (never a redirect) with status that says msg.
func wantPage(t *testing.T, p page, status int, msg string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d; Location %q\n%s", p.status, status, p.header.Get("Location"), p.body)
	}
	if loc := p.header.Get("Location"); loc != "" {
		t.Errorf("a page with Location %q", loc)
	}
	wantSecurityHeaders(t, p)
	if !strings.Contains(p.body, html.EscapeString(msg)) {
		t.Errorf("the page does not say %q:\n%s", msg, p.body)
	}
	if _, ok := p.cookie["slashd_session"]; ok && p.cookie["slashd_session"].MaxAge >= 0 {
		t.Errorf("a session cookie was set: %v", p.cookie["slashd_session"])
	}
}

// wantRedirect checks a redirect to redirectURI (exactly, before the
// query) carrying want (a "" value: the parameter is absent), and
// returns its query.
func wantRedirect(t *testing.T, p page, redirectURI string, want map[string]string) url.Values {
	t.Helper()
	if p.status != http.StatusFound {
		t.Fatalf("status %d, want 302:\n%s", p.status, p.body)
	}
	loc := p.header.Get("Location")
	target, rawQuery, _ := strings.Cut(loc, "?")
	if target != redirectURI {
		t.Fatalf("redirect to %q, want %q", loc, redirectURI)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Fatalf("redirect %q: %v", loc, err)
	}
	for k, v := range want {
		if got, ok := q[k]; v == "" && ok {
			t.Errorf("redirect %q has %s", loc, k)
		} else if v != "" && (len(got) != 1 || got[0] != v) {
			t.Errorf("redirect %q: %s=%q, want %q", loc, k, got, v)
		}
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("redirect Cache-Control %q, want no-store", cc)
	}
	return q
}

// authPath is prefix/oauth2/authorize with the parameters of base,
// changed by kv (pairs; an empty value removes the parameter).
func authPath(prefix string, base url.Values, kv ...string) string {
	q := url.Values{}
	for k, v := range base {
		q[k] = slices.Clone(v)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	return prefix + "/oauth2/authorize?" + q.Encode()
}

// consentWorld is a server with OAuth2 clients, a user alice with a
// login, and three guilds alice is in.
type consentWorld struct {
	e     *testenv.Env
	h     *harness // for the token helpers
	conf  client   // confidential, confRedirect registered
	pub   client   // public: loopback (127.0.0.1, [::1]), localhost and a custom scheme registered
	none  client   // no redirect URI registered
	two   client   // two redirect URIs registered
	alice store.User
	// alice owns gOwn, is a plain member of gMember, and holds a role
	// granting MANAGE_GUILD (only) in gRole.
	gOwn, gMember, gRole snowflake.ID
}

func newConsentWorld(t *testing.T) *consentWorld {
	t.Helper()
	ctx := context.Background()
	e := testenv.New(t)
	w := &consentWorld{e: e, conf: clientOf(t, e.App)}
	w.h = &harness{e: e, conf: w.conf}
	w.pub = clientOf(t, e.NewApp(bootstrap.AppOptions{Name: "Puzzle Quest"}))
	w.none = clientOf(t, e.NewApp(bootstrap.AppOptions{Name: "No Redirects"}))
	w.two = clientOf(t, e.NewApp(bootstrap.AppOptions{Name: "Two Redirects"}))
	e.SetOAuth(w.conf.id, false, confRedirect)
	e.SetOAuth(w.pub.id, true, "http://127.0.0.1/callback", "http://[::1]/callback", "http://localhost/callback", customScheme)
	e.SetOAuth(w.none.id, true)
	e.SetOAuth(w.two.id, false, "https://a.example/callback", "https://b.example/callback")
	w.alice = e.NewUser("alice", alicePassword)
	bob, carol := e.NewUser("bob", ""), e.NewUser("carol", "")
	env := e.Bootstrap()
	var err error
	if w.gOwn, err = bootstrap.CreateGuild(ctx, env, "Alice's Guild", w.alice.ID, 0); err != nil {
		t.Fatal(err)
	}
	if w.gMember, err = bootstrap.CreateGuild(ctx, env, "Bob's Guild", bob.ID, 0); err != nil {
		t.Fatal(err)
	}
	if w.gRole, err = bootstrap.CreateGuild(ctx, env, "Carol's Guild", carol.ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.PutMember(ctx, guild.Member{GuildID: w.gMember, UserID: w.alice.ID, JoinedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	managers := guild.Role{ID: e.IDs.Next(), GuildID: w.gRole, Name: "Managers", Permissions: guild.ManageGuild, Position: 1}
	if err := e.Store.CreateRole(ctx, managers); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.PutMember(ctx, guild.Member{GuildID: w.gRole, UserID: w.alice.ID, Roles: []snowflake.ID{managers.ID},
		JoinedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return w
}

// pubParams are a public client's authorization request (the SDK's):
// loopback redirect on an ephemeral port, PKCE, state.
func (w *consentWorld) pubParams(scope string) url.Values {
	return url.Values{"client_id": {w.pub.id.String()}, "response_type": {"code"}, "redirect_uri": {loopbackPort},
		"scope": {scope}, "state": {"st4te"}, "code_challenge": {rfcChallenge}, "code_challenge_method": {"S256"}}
}

// confParams are a confidential client's request, without PKCE.
func (w *consentWorld) confParams(scope string) url.Values {
	return url.Values{"client_id": {w.conf.id.String()}, "response_type": {"code"}, "redirect_uri": {confRedirect},
		"scope": {scope}, "state": {"xyz"}}
}

// login walks the login form that GET path shows and returns the page
// its redirect leads to (the consent page).
func (a *agent) login(path, name, password string) page {
	a.t.Helper()
	p := a.get(path)
	if p.status != http.StatusOK || !p.isLogin() {
		a.t.Fatalf("GET %s: %d, want the login form:\n%s", path, p.status, p.body)
	}
	f := p.hidden()
	f.Set("name", name)
	f.Set("password", password)
	r := a.post(p.action(a.t), f)
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("login: %d, want 303:\n%s", r.status, r.body)
	}
	c := a.get(r.header.Get("Location"))
	if c.status != http.StatusOK || !c.isConsent() {
		a.t.Fatalf("after login: %d, want the consent page:\n%s", c.status, c.body)
	}
	return c
}

// submit posts the consent form with action (approve or cancel) and kv set.
func (a *agent) submit(consent page, action string, kv ...string) page {
	a.t.Helper()
	f := consent.hidden()
	f.Set("action", action)
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return a.post(consent.action(a.t), f)
}

// botCommand creates a guild command with app's bot token and returns
// the status and body.
func (w *consentWorld) botCommand(t *testing.T, app client, guildID snowflake.ID) testenv.Response {
	t.Helper()
	return w.e.Do("POST", "/api/v10/applications/"+app.id.String()+"/guilds/"+guildID.String()+"/commands",
		"Bot "+app.creds.BotToken, map[string]string{"name": "ping", "description": "Ping"})
}

func (w *consentWorld) wantNotInstalled(t *testing.T, app client, guildID snowflake.ID) {
	t.Helper()
	if inst, err := w.e.Store.Installation(context.Background(), guildID, app.id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("app %s installed in guild %s: %+v %v", app.id, guildID, inst, err)
	}
	if r := w.botCommand(t, app, guildID); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "50001") {
		t.Errorf("guild command of an app not installed: %d %s, want 403 50001", r.Status, r.Body)
	}
}

// TestAuthorizeErrorPages: a request whose client or redirect URI cannot
// be trusted gets an error page, never a redirect (RFC 6749 §4.1.2.1).
func TestAuthorizeErrorPages(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a := newAgent(t, w.e.URL)
	conf, pub := w.confParams("identify"), w.pubParams("identify")
	pubDefault := oauth.DefaultRedirectURI(w.pub.id)
	const badRedirect = "Invalid OAuth2 redirect_uri"
	cases := []struct {
		name, path, msg string
	}{
		{"no client_id", authPath("/api/v10", conf, "client_id", ""), "Invalid client_id"},
		{"client_id not a snowflake", authPath("/api/v10", conf, "client_id", "abc"), "Invalid client_id"},
		{"negative client_id", authPath("/api/v10", conf, "client_id", "-1"), "Invalid client_id"},
		{"unknown application", authPath("/api/v10", conf, "client_id", "123456789012345678"), "Unknown application"},
		{"unregistered redirect", authPath("/api/v10", conf, "redirect_uri", "https://evil.example/callback"), badRedirect},
		{"other path", authPath("/api/v10", conf, "redirect_uri", "https://game.example/other"), badRedirect},
		{"sub-path", authPath("/api/v10", conf, "redirect_uri", "https://game.example/callback/x"), badRedirect},
		{"trailing slash", authPath("/api/v10", conf, "redirect_uri", "https://game.example/callback/"), badRedirect},
		{"other host", authPath("/api/v10", conf, "redirect_uri", "https://game.example.evil/callback"), badRedirect},
		{"userinfo", authPath("/api/v10", conf, "redirect_uri", "https://game.example@evil.example/callback"), badRedirect},
		{"other scheme", authPath("/api/v10", conf, "redirect_uri", "http://game.example/callback"), badRedirect},
		{"other port", authPath("/api/v10", conf, "redirect_uri", "https://game.example:8443/callback"), badRedirect},
		{"added query", authPath("/api/v10", conf, "redirect_uri", "https://game.example/callback?next=evil"), badRedirect},
		{"fragment", authPath("/api/v10", conf, "redirect_uri", "https://game.example/callback#x"), badRedirect},
		{"relative", authPath("/api/v10", conf, "redirect_uri", "/callback"), badRedirect},
		{"javascript", authPath("/api/v10", conf, "redirect_uri", "javascript:alert(1)"), badRedirect},
		{"custom scheme without PKCE", authPath("/api/v10", pub, "redirect_uri", customScheme,
			"code_challenge", "", "code_challenge_method", ""), badRedirect},
		{"default scheme without PKCE", authPath("/api/v10", pub, "redirect_uri", pubDefault,
			"code_challenge", "", "code_challenge_method", ""), badRedirect},
		{"default scheme of a confidential client", authPath("/api/v10", conf, "redirect_uri",
			oauth.DefaultRedirectURI(w.conf.id), "code_challenge", rfcChallenge, "code_challenge_method", "S256"), badRedirect},
		{"default scheme of another app", authPath("/api/v10", pub, "redirect_uri", oauth.DefaultRedirectURI(w.conf.id)), badRedirect},
		{"no redirect, none registered", authPath("/api/v10", pub, "client_id", w.none.id.String(), "redirect_uri", ""), badRedirect},
		{"no redirect, two registered", authPath("/api/v10", conf, "client_id", w.two.id.String(), "redirect_uri", ""), badRedirect},
		{"localhost on another port", authPath("/api/v10", pub, "redirect_uri", "http://localhost:54321/callback"), badRedirect},
		{"loopback, other path", authPath("/api/v10", pub, "redirect_uri", "http://127.0.0.1:54321/other"), badRedirect},
		{"loopback over https", authPath("/api/v10", pub, "redirect_uri", "https://127.0.0.1:54321/callback"), badRedirect},
		{"another loopback address", authPath("/api/v10", pub, "redirect_uri", "http://127.0.0.2:54321/callback"), badRedirect},
		// The redirect URI is checked before anything that would be sent to it.
		{"bad redirect and bad response_type", authPath("/api/v10", conf, "redirect_uri", "https://evil.example/callback",
			"response_type", "token"), badRedirect},
		{"bad redirect and bad scope", authPath("/api/v10", conf, "redirect_uri", "https://evil.example/callback",
			"scope", "nope"), badRedirect},
		{"unknown app and bad scope", authPath("/api/v10", conf, "client_id", "123456789012345678", "scope", ""),
			"Unknown application"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantPage(t, a.get(c.path), http.StatusBadRequest, c.msg)
		})
	}

	// Accepted redirects: the login form shows (no session yet).
	accepted := []struct{ name, path string }{
		{"exact https", authPath("/api/v10", conf)},
		{"the only registered one, when none is sent", authPath("/api/v10", conf, "redirect_uri", "")},
		{"loopback on any port", authPath("/api/v10", pub)},
		{"loopback on any port without PKCE", authPath("/api/v10", pub, "code_challenge", "", "code_challenge_method", "")},
		{"loopback on the registered (default) port", authPath("/api/v10", pub, "redirect_uri", "http://127.0.0.1/callback")},
		{"IPv6 loopback on any port", authPath("/api/v10", pub, "redirect_uri", "http://[::1]:54321/callback")},
		{"localhost exactly as registered", authPath("/api/v10", pub, "redirect_uri", "http://localhost/callback")},
		{"registered custom scheme with PKCE", authPath("/api/v10", pub, "redirect_uri", customScheme)},
		{"default custom scheme of a public client with PKCE", authPath("/api/v10", pub, "redirect_uri", pubDefault)},
		{"default custom scheme with no URI registered", authPath("/api/v10", pub, "client_id", w.none.id.String(),
			"redirect_uri", oauth.DefaultRedirectURI(w.none.id))},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			p := a.get(c.path)
			if p.status != http.StatusOK || !p.isLogin() {
				t.Fatalf("%d, want the login form:\n%s", p.status, p.body)
			}
			wantSecurityHeaders(t, p)
		})
	}
}

// TestAuthorizeRedirectErrors: with a trusted client and redirect URI,
// every other problem goes back to the client, with its state.
func TestAuthorizeRedirectErrors(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	conf, pub := w.confParams("identify"), w.pubParams("identify")
	cases := []struct {
		name     string
		path     string
		redirect string // where the error goes
		code     string
		state    string
	}{
		{"response_type token", authPath("/api/v10", conf, "response_type", "token"), confRedirect, "unsupported_response_type", "xyz"},
		{"response_type id_token", authPath("/api/v10", conf, "response_type", "code id_token"), confRedirect, "unsupported_response_type", "xyz"},
		{"no response_type", authPath("/api/v10", conf, "response_type", ""), confRedirect, "unsupported_response_type", "xyz"},
		{"plain PKCE", authPath("/api/v10", pub, "code_challenge", rfcVerifier, "code_challenge_method", "plain"), loopbackPort, "invalid_request", "st4te"},
		{"method without challenge", authPath("/api/v10", pub, "code_challenge", ""), loopbackPort, "invalid_request", "st4te"},
		{"challenge without method", authPath("/api/v10", pub, "code_challenge_method", ""), loopbackPort, "invalid_request", "st4te"},
		{"short challenge", authPath("/api/v10", pub, "code_challenge", rfcChallenge[:42]), loopbackPort, "invalid_request", "st4te"},
		{"challenge with bad characters", authPath("/api/v10", pub, "code_challenge", "+"+rfcChallenge[1:]), loopbackPort, "invalid_request", "st4te"},
		{"no scope", authPath("/api/v10", conf, "scope", ""), confRedirect, "invalid_scope", "xyz"},
		{"blank scope", authPath("/api/v10", conf, "scope", "   "), confRedirect, "invalid_scope", "xyz"},
		{"unknown scope", authPath("/api/v10", conf, "scope", "identify nope"), confRedirect, "invalid_scope", "xyz"},
		{"client-credentials-only scope", authPath("/api/v10", conf, "scope", "applications.commands.update"), confRedirect, "invalid_scope", "xyz"},
		{"integration_type 2", authPath("/api/v10", conf, "integration_type", "2"), confRedirect, "invalid_request", "xyz"},
		{"integration_type word", authPath("/api/v10", conf, "integration_type", "guild"), confRedirect, "invalid_request", "xyz"},
		{"permissions word", authPath("/api/v10", conf, "scope", "bot", "permissions", "all"), confRedirect, "invalid_request", "xyz"},
		{"negative permissions", authPath("/api/v10", conf, "scope", "bot", "permissions", "-8"), confRedirect, "invalid_request", "xyz"},
		{"unknown permission bits", authPath("/api/v10", conf, "scope", "bot", "permissions", "18446744073709551615"), confRedirect, "invalid_request", "xyz"},
		{"guild_id word", authPath("/api/v10", conf, "scope", "bot", "guild_id", "mine"), confRedirect, "invalid_request", "xyz"},
		// Without state, none comes back.
		{"no state", authPath("/api/v10", conf, "scope", "nope", "state", ""), confRedirect, "invalid_scope", ""},
		// The error goes where the request pointed: the fallback URI, the port asked for, a custom scheme.
		{"fallback redirect", authPath("/api/v10", conf, "redirect_uri", "", "scope", "nope"), confRedirect, "invalid_scope", "xyz"},
		{"IPv6 loopback port", authPath("/api/v10", pub, "redirect_uri", "http://[::1]:40000/callback", "scope", "nope"),
			"http://[::1]:40000/callback", "invalid_scope", "st4te"},
		{"custom scheme", authPath("/api/v10", pub, "redirect_uri", customScheme, "response_type", "token"), customScheme,
			"unsupported_response_type", "st4te"},
		{"unprefixed", authPath("", conf, "scope", "nope"), confRedirect, "invalid_scope", "xyz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAgent(t, w.e.URL)
			q := wantRedirect(t, a.get(c.path), c.redirect, map[string]string{"error": c.code, "state": c.state, "code": ""})
			if q.Get("error_description") == "" {
				t.Errorf("no error_description: %v", q)
			}
		})
	}

	// A logged-in user gets the same redirects (checked before the session).
	a := newAgent(t, w.e.URL)
	a.login(authPath("/api/v10", conf), "alice", alicePassword)
	wantRedirect(t, a.get(authPath("/api/v10", conf, "scope", "nope")), confRedirect,
		map[string]string{"error": "invalid_scope", "state": "xyz"})
	wantPage(t, a.get(authPath("/api/v10", conf, "redirect_uri", "https://evil.example/")), http.StatusBadRequest,
		"Invalid OAuth2 redirect_uri")
}

// TestLogin covers the login form: CSRF, the continuation, wrong
// credentials, the session cookie, and the consent page it leads to.
func TestLogin(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	evil := clientOf(t, w.e.NewApp(bootstrap.AppOptions{Name: `<script>alert("pwn")</script> & Co`}))
	w.e.SetOAuth(evil.id, false, confRedirect)
	authURL := authPath("/api/v10", w.confParams("identify email sdk.social_layer_presence"))

	a := newAgent(t, w.e.URL)
	form := a.get(authURL)
	wantPage(t, form, http.StatusOK, "Log in")
	if !form.isLogin() {
		t.Fatalf("not the login form:\n%s", form.body)
	}
	if !strings.Contains(form.body, "testapp") {
		t.Error("the login form does not name the app")
	}
	csrfCookie := form.cookie["slashd_login_csrf"]
	if csrfCookie == nil || !csrfCookie.HttpOnly || csrfCookie.Value == "" || csrfCookie.Path != "/" {
		t.Fatalf("login CSRF cookie %v", csrfCookie)
	}
	if _, ok := form.cookie["slashd_session"]; ok {
		t.Error("a session before logging in")
	}
	fields := form.hidden()
	if fields.Get("csrf") != csrfCookie.Value {
		t.Errorf("form CSRF %q, cookie %q: not a double submit", fields.Get("csrf"), csrfCookie.Value)
	}
	if fields.Get("continue") != authURL {
		t.Errorf("continue %q, want %q", fields.Get("continue"), authURL)
	}
	loginPath := form.action(t)
	if loginPath != "/api/v10/oauth2/authorize/login" {
		t.Errorf("login form action %q", loginPath)
	}
	creds := func(kv ...string) url.Values {
		f := url.Values{"csrf": {csrfCookie.Value}, "continue": {authURL}, "name": {"alice"}, "password": {alicePassword}}
		for i := 0; i+1 < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f
	}

	// CSRF: the posted token must be the cookie's, which must be there.
	t.Run("wrong CSRF", func(t *testing.T) {
		wantPage(t, a.post(loginPath, creds("csrf", "forged")), http.StatusForbidden, "This form has expired")
	})
	t.Run("no CSRF", func(t *testing.T) {
		f := creds()
		f.Del("csrf")
		wantPage(t, a.post(loginPath, f), http.StatusForbidden, "This form has expired")
	})
	t.Run("no CSRF cookie", func(t *testing.T) {
		wantPage(t, newAgent(t, w.e.URL).post(loginPath, creds()), http.StatusForbidden, "This form has expired")
	})
	// The continuation cannot lead anywhere but the authorize page.
	for _, cont := range []string{
		"https://evil.example/api/v10/oauth2/authorize?x=1",
		"//evil.example/api/v10/oauth2/authorize",
		"http:/api/v10/oauth2/authorize",
		"/api/v10/applications/@me",
		"/api/v10/oauth2/authorize/login",
		"/oauth2/authorize?" + strings.SplitN(authURL, "?", 2)[1], // another prefix than the form's
		"/api/v9/oauth2/authorize?" + strings.SplitN(authURL, "?", 2)[1],
		"",
	} {
		t.Run("continue "+cont, func(t *testing.T) {
			wantPage(t, a.post(loginPath, creds("continue", cont)), http.StatusBadRequest, "Invalid continuation")
		})
	}
	t.Run("continue with an untrusted redirect", func(t *testing.T) {
		wantPage(t, a.post(loginPath, creds("continue", authPath("/api/v10", w.confParams("identify"),
			"redirect_uri", "https://evil.example/"))), http.StatusBadRequest, "Invalid OAuth2 redirect_uri")
	})
	// Wrong credentials: the form again, the same message either way.
	for _, c := range []struct{ name, login, password string }{
		{"wrong password", "alice", "wrong horse battery staple"},
		{"empty password", "alice", ""},
		{"unknown login", "mallory", alicePassword},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := a.post(loginPath, creds("name", c.login, "password", c.password))
			wantPage(t, p, http.StatusUnauthorized, "Login or password is invalid.")
			if !p.isLogin() {
				t.Fatalf("not the login form again:\n%s", p.body)
			}
			if got := p.hidden().Get("continue"); got != authURL {
				t.Errorf("continue %q, want %q", got, authURL)
			}
			if p.cookie["slashd_login_csrf"] == nil || p.hidden().Get("csrf") != p.cookie["slashd_login_csrf"].Value {
				t.Errorf("the form again without a fresh double-submit token")
			}
			csrfCookie = p.cookie["slashd_login_csrf"] // the jar holds the new one
			if !strings.Contains(p.body, `value="`+html.EscapeString(c.login)+`"`) {
				t.Errorf("the login name is not kept")
			}
		})
	}
	if a.sessionCookie() != "" {
		t.Fatal("a session after failed logins")
	}

	// Success: back to the authorize URL with a session.
	ok := a.post(loginPath, creds())
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != authURL {
		t.Fatalf("login: %d Location %q, want 303 to %q\n%s", ok.status, ok.header.Get("Location"), authURL, ok.body)
	}
	sess := ok.cookie["slashd_session"]
	if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || len(sess.Value) < 32 {
		t.Fatalf("session cookie %v", sess)
	}
	if sess.Expires.IsZero() || time.Until(sess.Expires) > 12*time.Hour+time.Minute {
		t.Errorf("session cookie expires %v", sess.Expires)
	}
	if c := ok.cookie["slashd_login_csrf"]; c == nil || c.MaxAge >= 0 {
		t.Errorf("login CSRF cookie not cleared: %v", c)
	}
	// The spent login CSRF token no longer logs in.
	wantPage(t, a.post(loginPath, creds()), http.StatusForbidden, "This form has expired")

	consent := a.get(authURL)
	wantPage(t, consent, http.StatusOK, "testapp")
	if !consent.isConsent() || consent.isLogin() {
		t.Fatalf("not the consent page:\n%s", consent.body)
	}
	for _, d := range oauth.DescribeScopes([]string{"identify", "email", "sdk.social_layer_presence"}) {
		if !strings.Contains(consent.body, "<li>"+html.EscapeString(d)+"</li>") {
			t.Errorf("the consent page does not list %q", d)
		}
	}
	if strings.Contains(hiddenRE.ReplaceAllString(consent.body, ""), "sdk.social_layer_presence") {
		t.Error("the consent page shows a scope name instead of plain words")
	}
	if !strings.Contains(consent.body, "game.example") {
		t.Error("the consent page does not say where it redirects")
	}
	if consent.action(t) != "/api/v10/oauth2/authorize" {
		t.Errorf("consent form action %q", consent.action(t))
	}
	hidden := consent.hidden()
	for _, k := range []string{"client_id", "response_type", "redirect_uri", "scope", "state"} {
		if hidden.Get(k) != w.confParams("identify email sdk.social_layer_presence").Get(k) {
			t.Errorf("hidden %s = %q", k, hidden.Get(k))
		}
	}
	if hidden.Get("csrf") == "" || hidden.Get("csrf") == a.sessionCookie() {
		t.Errorf("consent CSRF %q (must be set, and not the session cookie)", hidden.Get("csrf"))
	}
	if strings.Contains(consent.body, `<select`) {
		t.Error("a guild picker without applications.commands or bot")
	}

	// HTML is escaped: in the login form and on the consent page.
	evilURL := authPath("/api/v10", w.confParams("identify"), "client_id", evil.id.String(),
		"state", `"><script>alert(2)</script>`)
	for _, p := range []page{newAgent(t, w.e.URL).get(evilURL), a.get(evilURL)} {
		if p.status != http.StatusOK {
			t.Fatalf("%d:\n%s", p.status, p.body)
		}
		if strings.Contains(p.body, "<script>") {
			t.Errorf("unescaped HTML:\n%s", p.body)
		}
		if !strings.Contains(p.body, "&lt;script&gt;alert(&#34;pwn&#34;)&lt;/script&gt; &amp; Co") {
			t.Errorf("the app's name is not shown escaped:\n%s", p.body)
		}
	}
	if got := a.get(evilURL).hidden().Get("state"); got != `"><script>alert(2)</script>` {
		t.Errorf("state carried as %q", got)
	}
}

// TestConsentDecisions covers POST /oauth2/authorize: session, CSRF,
// Cancel, and Approve through to a working token.
func TestConsentDecisions(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	params := w.pubParams("identify")
	a := newAgent(t, w.e.URL)
	consent := a.login(authPath("/api/v10", params), "alice", alicePassword)
	if consent.action(t) != "/api/v10/oauth2/authorize" {
		t.Fatalf("consent form action %q", consent.action(t))
	}
	approveForm := consent.hidden()
	approveForm.Set("action", "approve")

	t.Run("no session", func(t *testing.T) {
		wantPage(t, newAgent(t, w.e.URL).post("/api/v10/oauth2/authorize", approveForm), http.StatusUnauthorized,
			"Your session has expired")
	})
	t.Run("unknown session", func(t *testing.T) {
		b := newAgent(t, w.e.URL)
		u, _ := url.Parse(w.e.URL)
		b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "slashd_session", Value: "forged", Path: "/"}})
		wantPage(t, b.post("/api/v10/oauth2/authorize", approveForm), http.StatusUnauthorized, "Your session has expired")
	})
	t.Run("wrong CSRF", func(t *testing.T) {
		wantPage(t, a.submit(consent, "approve", "csrf", "forged"), http.StatusForbidden, "This form has expired")
	})
	t.Run("no CSRF", func(t *testing.T) {
		// Without csrf the form is an authorization request sent by POST
		// (OIDC Core §3.1.2.1): it shows the consent page again and
		// decides nothing, whatever "action" says.
		f := url.Values(maps(approveForm))
		f.Del("csrf")
		p := a.post("/api/v10/oauth2/authorize", f)
		if p.status != http.StatusOK || p.header.Get("Location") != "" || !p.isConsent() {
			t.Fatalf("status %d, Location %q, want the consent page again:\n%s", p.status, p.header.Get("Location"), p.body)
		}
	})
	t.Run("another session's CSRF", func(t *testing.T) {
		b := newAgent(t, w.e.URL)
		other := b.login(authPath("/api/v10", params), "alice", alicePassword)
		if other.hidden().Get("csrf") == consent.hidden().Get("csrf") {
			t.Fatal("two sessions share a CSRF token")
		}
		wantPage(t, b.submit(consent, "approve"), http.StatusForbidden, "This form has expired")
	})
	t.Run("tampered redirect", func(t *testing.T) {
		wantPage(t, a.submit(consent, "approve", "redirect_uri", "https://evil.example/callback"), http.StatusBadRequest,
			"Invalid OAuth2 redirect_uri")
	})
	t.Run("tampered scope", func(t *testing.T) {
		wantRedirect(t, a.submit(consent, "approve", "scope", "applications.commands.update"), loopbackPort,
			map[string]string{"error": "invalid_scope", "state": "st4te", "code": ""})
	})
	t.Run("cancel", func(t *testing.T) {
		wantRedirect(t, a.submit(consent, "cancel"), loopbackPort,
			map[string]string{"error": "access_denied", "state": "st4te", "code": ""})
	})
	t.Run("approve", func(t *testing.T) {
		q := wantRedirect(t, a.submit(consent, "approve"), loopbackPort, map[string]string{"state": "st4te", "error": "",
			"guild_id": "", "permissions": ""})
		code := q.Get("code")
		if len(code) < 30 {
			t.Fatalf("code %q", code)
		}
		// A wrong verifier fails (and revokes the grant), so exchange once, rightly.
		tok := w.h.exchange(t, codeForm(code, loopbackPort, rfcVerifier, "client_id", w.pub.id.String()), "", "")
		if tok.Scope != "identify" || tok.RefreshToken == "" {
			t.Errorf("token %+v", tok)
		}
		status, me := w.h.me(t, tok.AccessToken)
		if status != http.StatusOK {
			t.Fatalf("@me: %d %v", status, me)
		}
		user, _ := me["user"].(map[string]any)
		if user["id"] != w.alice.ID.String() || user["username"] != "alice" {
			t.Errorf("@me user %v, want alice", me["user"])
		}
		app, _ := me["application"].(map[string]any)
		if app["id"] != w.pub.id.String() {
			t.Errorf("@me application %v", me["application"])
		}
		// The code is single-use.
		r := w.h.post(tokenPath, codeForm(code, loopbackPort, rfcVerifier, "client_id", w.pub.id.String()), "", "")
		wantOAuthError(t, r, http.StatusBadRequest, "invalid_grant", "")
	})
	t.Run("approve for a confidential client", func(t *testing.T) {
		b := newAgent(t, w.e.URL)
		c := b.login(authPath("/api/v10", w.confParams("identify openid"), "nonce", "n0nce"), "alice", alicePassword)
		q := wantRedirect(t, b.submit(c, "approve"), confRedirect, map[string]string{"state": "xyz"})
		tok := w.h.exchange(t, codeForm(q.Get("code"), confRedirect, ""), w.conf.id.String(), w.conf.secret)
		if tok.IDToken == "" {
			t.Fatal("no id_token for openid")
		}
		_, claims, _, _ := jwtParts(t, tok.IDToken)
		if claims["nonce"] != "n0nce" || claims["sub"] != w.alice.ID.String() {
			t.Errorf("id_token claims %v", claims)
		}
	})
}

// maps copies form values.
func maps(v url.Values) map[string][]string {
	out := make(map[string][]string, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// TestConsentGuildInstall covers the guild picker and the installation
// applications.commands and bot make.
func TestConsentGuildInstall(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a := newAgent(t, w.e.URL)
	// Each scenario uses its own app, so installations do not mix.
	newApp := func(t *testing.T, name string) (client, url.Values) {
		t.Helper()
		c := clientOf(t, w.e.NewApp(bootstrap.AppOptions{Name: name}))
		w.e.SetOAuth(c.id, true, "http://127.0.0.1/callback")
		p := w.pubParams("identify applications.commands")
		p.Set("client_id", c.id.String())
		return c, p
	}
	a.login(authPath("/api/v10", w.pubParams("identify")), "alice", alicePassword)
	consentFor := func(t *testing.T, path string) page {
		t.Helper()
		p := a.get(path)
		if p.status != http.StatusOK || !p.isConsent() {
			t.Fatalf("%d, want the consent page:\n%s", p.status, p.body)
		}
		wantSecurityHeaders(t, p)
		return p
	}
	all := []snowflake.ID{w.gOwn, w.gMember, w.gRole}

	t.Run("applications.commands", func(t *testing.T) {
		app, params := newApp(t, "Commands App")
		for _, g := range all {
			w.wantNotInstalled(t, app, g)
		}
		c := consentFor(t, authPath("/api/v10", params))
		ids, selected := c.guilds()
		if want := []string{w.gOwn.String(), w.gRole.String()}; !slices.Equal(ids, want) {
			t.Fatalf("guild picker %v, want %v (owned and role-granted, not the plain member's)", ids, want)
		}
		if selected != "" {
			t.Errorf("guild %s preselected", selected)
		}
		if !strings.Contains(c.body, "Alice&#39;s Guild") || strings.Contains(c.body, "Bob&#39;s Guild") {
			t.Error("guild names")
		}
		if !strings.Contains(c.body, "<li>"+html.EscapeString(oauth.DescribeScopes([]string{"applications.commands"})[0])+"</li>") {
			t.Error("applications.commands not described")
		}
		// Guilds that cannot be picked are refused, and nothing is installed.
		for _, bad := range []struct {
			name, guildID string
			status        int
			msg           string
		}{
			{"plain member", w.gMember.String(), http.StatusForbidden, "You need the Manage Server permission there."},
			{"unknown guild", "123456789012345678", http.StatusForbidden, "That server does not exist."},
			{"not a member", w.conf.creds.GuildID, http.StatusForbidden, "You need the Manage Server permission there."},
			{"no guild", "", http.StatusBadRequest, "Choose a server to add the app to."},
			{"not a snowflake", "mine", http.StatusBadRequest, "Choose a server to add the app to."},
		} {
			t.Run(bad.name, func(t *testing.T) {
				f := c.hidden()
				f.Set("action", "approve")
				if bad.guildID != "" {
					f.Set("guild_id", bad.guildID)
				}
				p := a.post(c.action(t), f)
				wantPage(t, p, bad.status, bad.msg)
				if !p.isConsent() {
					t.Errorf("not the consent page again:\n%s", p.body)
				}
				if ids, _ := p.guilds(); len(ids) != 2 {
					t.Errorf("picker of the page again %v", ids)
				}
			})
		}
		for _, g := range all {
			w.wantNotInstalled(t, app, g)
		}
		q := wantRedirect(t, a.submit(c, "approve", "guild_id", w.gOwn.String()), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": "", "permissions": ""})
		if q.Get("code") == "" {
			t.Fatal("no code")
		}
		if r := w.botCommand(t, app, w.gOwn); r.Status != http.StatusCreated {
			t.Fatalf("guild command after consent: %d %s", r.Status, r.Body)
		}
		inst, err := w.e.Store.Installation(context.Background(), w.gOwn, app.id)
		if err != nil || !slices.Equal(inst.Scopes, []string{"applications.commands"}) {
			t.Errorf("installation %+v %v", inst, err)
		}
		if _, err := w.e.Store.Member(context.Background(), w.gOwn, app.id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the bot joined without the bot scope: %v", err)
		}
		w.wantNotInstalled(t, app, w.gRole)
		// The grant records the guild; the token carries the scopes.
		tok := w.h.exchange(t, codeForm(q.Get("code"), loopbackPort, rfcVerifier, "client_id", app.id.String()), "", "")
		if tok.Scope != "identify applications.commands" {
			t.Errorf("scope %q", tok.Scope)
		}
		// A role granting MANAGE_GUILD is enough.
		c = consentFor(t, authPath("/api/v10", params))
		wantRedirect(t, a.submit(c, "approve", "guild_id", w.gRole.String()), loopbackPort, map[string]string{"state": "st4te"})
		if r := w.botCommand(t, app, w.gRole); r.Status != http.StatusCreated {
			t.Fatalf("guild command after consent in the role-granted guild: %d %s", r.Status, r.Body)
		}
		w.wantNotInstalled(t, app, w.gMember)
	})

	t.Run("bot with permissions", func(t *testing.T) {
		app, params := newApp(t, "Bot App")
		params.Set("scope", "bot applications.commands")
		params.Set("permissions", "8")
		c := consentFor(t, authPath("/api/v10", params))
		if ids, _ := c.guilds(); !slices.Equal(ids, []string{w.gOwn.String(), w.gRole.String()}) {
			t.Fatalf("guild picker %v", ids)
		}
		q := wantRedirect(t, a.submit(c, "approve", "guild_id", w.gOwn.String()), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": w.gOwn.String(), "permissions": "8"})
		if q.Get("code") == "" {
			t.Fatal("no code")
		}
		ctx := context.Background()
		m, err := w.e.Store.Member(ctx, w.gOwn, app.id)
		if err != nil {
			t.Fatalf("the bot is not a member: %v", err)
		}
		var managed []guild.Role
		for _, id := range m.Roles {
			r, err := w.e.Store.Role(ctx, w.gOwn, id)
			if err != nil {
				t.Fatal(err)
			}
			if r.Managed {
				managed = append(managed, r)
			}
		}
		if len(managed) != 1 || managed[0].Permissions.String() != "8" || managed[0].Name != "Bot App" {
			t.Fatalf("the bot's managed roles %+v, want one carrying 8", managed)
		}
		inst, err := w.e.Store.Installation(ctx, w.gOwn, app.id)
		if err != nil || !slices.Contains(inst.Scopes, "bot") || !slices.Contains(inst.Scopes, "applications.commands") {
			t.Errorf("installation %+v %v", inst, err)
		}
		if r := w.botCommand(t, app, w.gOwn); r.Status != http.StatusCreated {
			t.Errorf("guild command after consent: %d %s", r.Status, r.Body)
		}
		// Without permissions, the redirect still says 0.
		c = consentFor(t, authPath("/api/v10", params, "permissions", "", "scope", "bot"))
		wantRedirect(t, a.submit(c, "approve", "guild_id", w.gRole.String()), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": w.gRole.String(), "permissions": "0"})
		if _, err := w.e.Store.Member(ctx, w.gRole, app.id); err != nil {
			t.Errorf("the bot is not a member of the role-granted guild: %v", err)
		}
	})

	t.Run("bot permissions the user does not have", func(t *testing.T) {
		// alice holds MANAGE_GUILD only in gRole: she cannot hand the bot
		// ADMINISTRATOR there (privilege escalation through her own app).
		app, params := newApp(t, "Greedy Bot")
		params.Set("scope", "bot")
		params.Set("permissions", "8")
		c := consentFor(t, authPath("/api/v10", params))
		p := a.submit(c, "approve", "guild_id", w.gRole.String())
		wantPage(t, p, http.StatusForbidden, "permissions you do not have")
		w.wantNotInstalled(t, app, w.gRole)
		if _, err := w.e.Store.Member(context.Background(), w.gRole, app.id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the bot joined: %v", err)
		}
		// What she has herself she may give.
		c = consentFor(t, authPath("/api/v10", params, "permissions", guild.ManageGuild.String()))
		wantRedirect(t, a.submit(c, "approve", "guild_id", w.gRole.String()), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": w.gRole.String(), "permissions": guild.ManageGuild.String()})
	})

	t.Run("guild_id preselects", func(t *testing.T) {
		_, params := newApp(t, "Preselect App")
		c := consentFor(t, authPath("/api/v10", params, "guild_id", w.gRole.String()))
		ids, selected := c.guilds()
		if len(ids) != 2 || selected != w.gRole.String() {
			t.Errorf("picker %v selected %q, want both with %s selected", ids, selected, w.gRole)
		}
		if strings.Contains(c.body, "disabled>") || strings.Contains(c.body, `name="guild_id" disabled`) {
			t.Error("picker locked without disable_guild_select")
		}
		// disable_guild_select without guild_id locks nothing.
		c = consentFor(t, authPath("/api/v10", params, "disable_guild_select", "true"))
		if ids, _ := c.guilds(); len(ids) != 2 {
			t.Errorf("picker %v", ids)
		}
		// disable_guild_select=false does not lock.
		c = consentFor(t, authPath("/api/v10", params, "guild_id", w.gRole.String(), "disable_guild_select", "false"))
		if ids, _ := c.guilds(); len(ids) != 2 {
			t.Errorf("picker %v", ids)
		}
	})

	t.Run("disable_guild_select locks the guild", func(t *testing.T) {
		app, params := newApp(t, "Locked App")
		path := authPath("/api/v10", params, "guild_id", w.gRole.String(), "disable_guild_select", "true")
		c := consentFor(t, path)
		if ids, selected := c.guilds(); !slices.Equal(ids, []string{w.gRole.String()}) || selected != w.gRole.String() {
			t.Fatalf("picker %v selected %q, want only %s", ids, selected, w.gRole)
		}
		if !strings.Contains(c.body, `name="guild_id" disabled`) {
			t.Error("the picker is not disabled")
		}
		if got := c.hidden()["guild_id"]; !slices.Equal(got, []string{w.gRole.String()}) {
			t.Errorf("hidden guild_id %v", got)
		}
		// Another guild, even one alice manages, is refused.
		p := a.submit(c, "approve", "guild_id", w.gOwn.String())
		if p.status < 400 {
			t.Fatalf("another guild than the locked one: %d Location %q", p.status, p.header.Get("Location"))
		}
		wantPage(t, p, http.StatusBadRequest, "Choose a server")
		w.wantNotInstalled(t, app, w.gOwn)
		w.wantNotInstalled(t, app, w.gRole)
		// The page again is still locked.
		if ids, _ := p.guilds(); !slices.Equal(ids, []string{w.gRole.String()}) {
			t.Errorf("picker of the page again %v", ids)
		}
		wantRedirect(t, a.submit(c, "approve"), loopbackPort, map[string]string{"state": "st4te"})
		if r := w.botCommand(t, app, w.gRole); r.Status != http.StatusCreated {
			t.Errorf("guild command in the locked guild: %d %s", r.Status, r.Body)
		}
		w.wantNotInstalled(t, app, w.gOwn)
	})

	t.Run("locked to a guild the user cannot manage", func(t *testing.T) {
		app, params := newApp(t, "Locked Out App")
		c := consentFor(t, authPath("/api/v10", params, "guild_id", w.gMember.String(), "disable_guild_select", "true"))
		if ids, _ := c.guilds(); len(ids) != 0 {
			t.Errorf("picker %v, want none", ids)
		}
		if !strings.Contains(c.body, "You do not manage any server") || !strings.Contains(c.body, `id="approve" disabled`) {
			t.Errorf("approve is not blocked:\n%s", c.body)
		}
		p := a.submit(c, "approve", "guild_id", w.gMember.String())
		wantPage(t, p, http.StatusForbidden, "Manage Server")
		w.wantNotInstalled(t, app, w.gMember)
		// Cancel still works.
		wantRedirect(t, a.submit(c, "cancel"), loopbackPort, map[string]string{"error": "access_denied", "state": "st4te"})
	})

	t.Run("integration_type 1", func(t *testing.T) {
		app, params := newApp(t, "User App")
		c := consentFor(t, authPath("/api/v10", params, "integration_type", "1"))
		if strings.Contains(c.body, "<select") || strings.Contains(c.body, "Add to server") {
			t.Errorf("a guild picker for a user install:\n%s", c.body)
		}
		q := wantRedirect(t, a.submit(c, "approve", "guild_id", w.gOwn.String()), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": "", "permissions": ""})
		if q.Get("code") == "" {
			t.Fatal("no code")
		}
		for _, g := range all {
			w.wantNotInstalled(t, app, g)
		}
		// integration_type 0 is a guild install.
		c = consentFor(t, authPath("/api/v10", params, "integration_type", "0"))
		if ids, _ := c.guilds(); len(ids) != 2 {
			t.Errorf("picker %v for integration_type 0", ids)
		}
	})
}

// TestAuthorizePrefixes: the page works unprefixed and under each API
// prefix, and one session serves them all.
func TestAuthorizePrefixes(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	params := w.pubParams("identify")
	var shared *agent
	for _, prefix := range []string{"", "/api/v10", "/api/v9", "/api"} {
		t.Run("prefix "+prefix, func(t *testing.T) {
			a := newAgent(t, w.e.URL)
			form := a.get(authPath(prefix, params))
			if !form.isLogin() {
				t.Fatalf("%d, not the login form:\n%s", form.status, form.body)
			}
			if got := form.action(t); got != prefix+"/oauth2/authorize/login" {
				t.Errorf("login action %q", got)
			}
			c := a.login(authPath(prefix, params), "alice", alicePassword)
			if got := c.action(t); got != prefix+"/oauth2/authorize" {
				t.Errorf("consent action %q", got)
			}
			q := wantRedirect(t, a.submit(c, "approve"), loopbackPort, map[string]string{"state": "st4te"})
			tok := w.h.exchange(t, codeForm(q.Get("code"), loopbackPort, rfcVerifier, "client_id", w.pub.id.String()), "", "")
			if status, _ := w.h.me(t, tok.AccessToken); status != http.StatusOK {
				t.Errorf("@me: %d", status)
			}
			wantRedirect(t, a.submit(c, "cancel"), loopbackPort, map[string]string{"error": "access_denied", "state": "st4te"})
			shared = a
		})
	}
	// The session cookie is for the whole site: another prefix shows the consent page directly.
	for _, prefix := range []string{"", "/api/v10", "/api/v9"} {
		if p := shared.get(authPath(prefix, params)); p.status != http.StatusOK || !p.isConsent() {
			t.Errorf("prefix %q with a session: %d, not the consent page", prefix, p.status)
		}
	}
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestSessionExpiry runs a server on a clock the test moves: a session
// lasts 12 hours, then the login form shows again and forms are refused.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	ids := snowflake.NewGenerator(0, nil)
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	srv := httptest.NewServer(api.New(cfg, api.Deps{Store: st, IDs: ids, Now: clk.Now, Rand: rand.Reader}))
	t.Cleanup(func() { srv.Close(); st.Close() })
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: clk.Now}
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "Clockwork", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	app := clientOf(t, creds)
	if err := st.SetOAuthSettings(ctx, store.OAuthSettings{ApplicationID: app.id,
		RedirectURIs: []string{"http://127.0.0.1/callback"}, PublicClient: true}); err != nil {
		t.Fatal(err)
	}
	user := store.User{ID: ids.Next(), Username: "alice", Locale: "en-US", CreatedAt: clk.Now()}
	if err := st.CreateUser(ctx, user); err != nil {
		t.Fatal(err)
	}
	hash, err := oauth.HashPassword(rand.Reader, alicePassword)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetLogin(ctx, store.Login{UserID: user.ID, Name: "alice", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	params := url.Values{"client_id": {app.id.String()}, "response_type": {"code"}, "redirect_uri": {loopbackPort},
		"scope": {"identify"}, "state": {"s"}, "code_challenge": {rfcChallenge}, "code_challenge_method": {"S256"}}
	path := authPath("/api/v10", params)

	a := newAgent(t, srv.URL)
	consent := a.login(path, "alice", alicePassword)
	clk.Advance(12*time.Hour - time.Second)
	if p := a.get(path); !p.isConsent() {
		t.Fatalf("just before 12 hours: %d, not the consent page", p.status)
	}
	clk.Advance(time.Second)
	if p := a.get(path); p.status != http.StatusOK || !p.isLogin() {
		t.Fatalf("after 12 hours: %d, want the login form:\n%s", p.status, p.body)
	}
	wantPage(t, a.submit(consent, "approve"), http.StatusUnauthorized, "Your session has expired")
	// Logging in again works on.
	consent = a.login(path, "alice", alicePassword)
	wantRedirect(t, a.submit(consent, "approve"), loopbackPort, map[string]string{"state": "s"})
}

// prompt=none skips the page when a live grant already covers the
// scopes, and shows it otherwise (never for installs).
func TestPromptNone(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a := newAgent(t, w.e.URL)
	consent := a.login(authPath("/api/v10", w.pubParams("identify")), "alice", alicePassword)
	wantRedirect(t, a.submit(consent, "approve"), loopbackPort, map[string]string{"state": "st4te"})

	again := a.get(authPath("/api/v10", w.pubParams("identify"), "prompt", "none"))
	q := wantRedirect(t, again, loopbackPort, map[string]string{"state": "st4te"})
	if q.Get("code") == "" {
		t.Fatalf("prompt=none with an existing grant: no code in %v", q)
	}
	if p := a.get(authPath("/api/v10", w.pubParams("identify email"), "prompt", "none")); !p.isConsent() {
		t.Fatalf("prompt=none for a scope never granted: %d, want the consent page", p.status)
	}
	if p := a.get(authPath("/api/v10", w.pubParams("identify"))); !p.isConsent() {
		t.Fatalf("without prompt=none: %d, want the consent page", p.status)
	}
	if p := a.get(authPath("/api/v10", w.pubParams("applications.commands"), "prompt", "none")); !p.isConsent() {
		t.Fatalf("prompt=none for an install: %d, want the consent page", p.status)
	}
}
