// Package openidclient holds the openid-client (npm, v6) tests: rp.js, a
// relying party written as openid-client's README shows, signs alice in
// through slashd's OpenID Connect provider, the login and consent pages
// driven in a headless Chromium, and reports what the library accepted or
// threw: id_token checks with auth_time and max_age, each prompt value, the
// authorization request sent as a POSTed form, userinfo's RFC 6750 errors
// and a callback redeemed twice at once.
package openidclient

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/chromium"
)

// TestMain runs the tests where Node, openid-client (`npm ci` here) and a
// Chromium are installed; elsewhere none runs ("[no tests to run]"), and
// under CI the package fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestOpenIDClientInstalled", findTools,
		"install Node 20+ and Chromium, and run `npm ci` in internal/clienttest/openidclient"))
}

func findTools() error {
	return errors.Join(drive.NodePackages("openid-client"), chromium.Find())
}

// TestOpenIDClientInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestOpenIDClientInstalled(t *testing.T) { testtool.Probe(t, findTools) }

// step bounds one browser step (a page to show, a form to submit): long
// enough for a loaded 2-core machine.
const step = 45 * time.Second

// rig is slashd (its API over SQLite, on httptest), an app that is a
// confidential OAuth2 client whose redirect URI is the relying party's
// callback, alice with a login, and rp.js, the relying party built on
// openid-client, already past discovery.
type rig struct {
	url      string // slashd's base URL, the issuer
	clientID string
	userID   string // alice's id, the sub of her id_tokens
	password string
	rp       *drive.Proc
	callback string // the RP's redirect URI
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	ids := snowflake.NewGenerator(0, nil)
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	srv := httptest.NewServer(api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader}))
	t.Cleanup(func() { srv.Close(); st.Close() })
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	app, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "Puzzle Quest", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	appID, err := snowflake.Parse(app.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	port := drive.FreePort(t)
	r := &rig{url: srv.URL, clientID: app.ClientID, password: "correct horse battery staple",
		callback: fmt.Sprintf("http://127.0.0.1:%d/callback", port)}
	if err := st.SetOAuthSettings(ctx, store.OAuthSettings{ApplicationID: appID, RedirectURIs: []string{r.callback}}); err != nil {
		t.Fatal(err)
	}
	userID := ids.Next()
	r.userID = userID.String()
	if err := st.CreateUser(ctx, store.User{ID: userID, Username: "alice", GlobalName: "Alice", Adult: true,
		Locale: "en-US", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	hash, err := oauth.HashPassword(rand.Reader, r.password)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetLogin(ctx, store.Login{UserID: userID, Name: "alice", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	r.rp = drive.StartNode(t, []string{"SLASHD_URL=" + srv.URL, "CLIENT_ID=" + app.ClientID,
		"CLIENT_SECRET=" + app.ClientSecret, fmt.Sprintf("RP_PORT=%d", port)}, "rp.js")
	r.rp.Wait(t, "ready", map[string]any{"issuer": srv.URL, "redirect_uri": r.callback}, nil)
	return r
}

// request is an authorization request as rp.js builds it: scope, the
// parameters beside openid-client's (prompt, max_age), the maxAge given to
// authorizationCodeGrant (nil: none), whether it goes as a POSTed form,
// and how many times the callback redeems the code at once (0: once).
type request struct {
	Scope  string            `json:"scope"`
	Params map[string]string `json:"params,omitempty"`
	MaxAge *int              `json:"maxAge,omitempty"`
	Post   bool              `json:"post,omitempty"`
	Redeem int               `json:"redeem,omitempty"`
}

// authorize has the RP start flow and returns the URL the browser opens.
func (r *rig) authorize(t *testing.T, flow string, req request) string {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"flow": flow}
	drive.Decode(t, raw, &args)
	var did struct {
		URL     string `json:"url"`
		Request string `json:"request"`
	}
	r.rp.Do(t, "authorize", args, &did)
	if did.URL == "" {
		t.Fatalf("authorize %s: no URL", flow)
	}
	return did.URL
}

// outcome is what an openid-client call gave: its result, or the error it
// threw (ok false), described by rp.js's describe.
type outcome struct {
	OK bool `json:"ok"`
	// Tokens (authorizationCodeGrant, refreshTokenGrant).
	Claims       map[string]any `json:"claims"`
	AccessToken  string         `json:"access_token"`
	RefreshToken string         `json:"refresh_token"`
	Scope        string         `json:"scope"`
	// fetchUserInfo's answer; fetchProtectedResource's status and body.
	Userinfo map[string]any `json:"userinfo"`
	Status   int            `json:"status"`
	Body     map[string]any `json:"body"`
	// The error: its class, code, OAuth error, and WWW-Authenticate
	// challenges.
	Name             string      `json:"name"`
	Code             string      `json:"code"`
	Message          string      `json:"message"`
	Error            string      `json:"error"`
	ErrorDescription string      `json:"error_description"`
	Challenges       []challenge `json:"challenges"`
}

// challenge is one WWW-Authenticate challenge as oauth4webapi parses it
// (scheme in lower case).
type challenge struct {
	Scheme     string            `json:"scheme"`
	Parameters map[string]string `json:"parameters"`
}

func (o outcome) String() string {
	b, _ := json.Marshal(o)
	return string(b)
}

// sub, authTime and aud read the id_token's claims.
func (o outcome) sub() string { s, _ := o.Claims["sub"].(string); return s }

func (o outcome) authTime(t *testing.T) int64 {
	t.Helper()
	at, ok := o.Claims["auth_time"].(float64)
	if !ok {
		t.Fatalf("the id_token has no numeric auth_time: %v", o.Claims)
	}
	return int64(at)
}

func (o outcome) audience() []string {
	switch aud := o.Claims["aud"].(type) {
	case string:
		return []string{aud}
	case []any:
		var out []string
		for _, a := range aud {
			s, _ := a.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// callbackEvent is what the RP reports once the browser reached its
// callback: the query slashd sent and each redemption's outcome.
type callbackEvent struct {
	Flow     string            `json:"flow"`
	Query    map[string]string `json:"query"`
	Outcomes []outcome         `json:"outcomes"`
}

// callbackOf waits for flow's callback.
func (r *rig) callbackOf(t *testing.T, flow string) callbackEvent {
	t.Helper()
	var ev callbackEvent
	r.rp.Wait(t, "callback", map[string]any{"flow": flow}, &ev)
	return ev
}

// signedIn waits for flow's callback, whose one redemption must succeed,
// and returns its tokens.
func (r *rig) signedIn(t *testing.T, flow string) outcome {
	t.Helper()
	ev := r.callbackOf(t, flow)
	if len(ev.Outcomes) != 1 || !ev.Outcomes[0].OK {
		t.Fatalf("%s: callback %v, openid-client: %v, want one successful authorizationCodeGrant", flow, ev.Query, ev.Outcomes)
	}
	return ev.Outcomes[0]
}

// refused waits for flow's callback, where openid-client must have thrown
// an AuthorizationResponseError with the OAuth error want.
func (r *rig) refused(t *testing.T, flow, want string) outcome {
	t.Helper()
	ev := r.callbackOf(t, flow)
	if len(ev.Outcomes) != 1 {
		t.Fatalf("%s: %d outcomes", flow, len(ev.Outcomes))
	}
	o := ev.Outcomes[0]
	if o.OK || o.Name != "AuthorizationResponseError" || o.Error != want {
		t.Fatalf("%s: callback %v, openid-client: %v, want an AuthorizationResponseError %s", flow, ev.Query, o, want)
	}
	return o
}

// do gives the RP an order and returns its outcome.
func (r *rig) do(t *testing.T, action string, args map[string]any) outcome {
	t.Helper()
	var o outcome
	r.rp.Do(t, action, args, &o)
	return o
}

// browser starts a headless Chromium for the test (no session yet).
func browser(t *testing.T) context.Context {
	t.Helper()
	return chromium.Browser(t, 800, 900, 5*time.Minute)
}

// browse runs browser steps, each bounded by step, failing the test with
// what they were for.
func browse(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for _, a := range actions {
		sctx, cancel := context.WithTimeout(ctx, step)
		err := chromedp.Do(sctx, a)
		cancel()
		if err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			t.Fatalf("%s: %v (the browser is at %s)", what, err, loc)
		}
	}
}

// open navigates to url (the load of the page it ends on, after
// redirects, included).
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	browse(t, ctx, "open "+url, chromedp.Navigate(url))
}

// logIn fills the login page that shows (with alice's name prefilled or
// not) and submits it.
func (r *rig) logIn(t *testing.T, ctx context.Context) {
	t.Helper()
	browse(t, ctx, "log in",
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.Clear(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), r.password),
		chromedp.Click(chromedp.ID("login")),
	)
}

// approve waits for the consent page, approves, and waits for the RP's
// page that tells the callback is done.
func approve(t *testing.T, ctx context.Context) {
	t.Helper()
	browse(t, ctx, "approve on the consent page",
		chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.Click(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("done")),
	)
}

// signIn runs flow in the browser from the start: the login page (no
// session yet), consent, the callback. It returns the tokens and when the
// login began (a lower bound of auth_time).
func (r *rig) signIn(t *testing.T, ctx context.Context, flow string, req request) (outcome, int64) {
	t.Helper()
	open(t, ctx, r.authorize(t, flow, req))
	began := time.Now().Unix()
	r.logIn(t, ctx)
	approve(t, ctx)
	return r.signedIn(t, flow), began
}

// atCallback checks that the browser went straight to the RP's callback
// (no page of slashd's on the way) and waits for the RP's page.
func (r *rig) atCallback(t *testing.T, ctx context.Context) {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(loc, r.callback+"?") {
		t.Fatalf("the browser is at %s, want the RP's callback %s without a page of slashd's", loc, r.callback)
	}
	browse(t, ctx, "the RP's callback page", chromedp.WaitVisible(chromedp.ID("done")))
}

// pageShown tells which page the browser shows now: slashd's "login"
// page (its password field; the select_account page has one too), its
// "consent" page, the RP's "callback" page, or else the location.
func pageShown(t *testing.T, ctx context.Context) string {
	t.Helper()
	page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("approve") ? "consent"
		: document.getElementById("password") ? "login"
		: document.getElementById("done") ? "callback"
		: location.href`))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	return page
}

// wantPage checks the page the browser shows now (see pageShown), for a
// navigation that has ended (open waits for it).
func wantPage(t *testing.T, ctx context.Context, want, why string) {
	t.Helper()
	if got := pageShown(t, ctx); got != want {
		t.Fatalf("%s: the browser shows %s, want the %s page", why, got, want)
	}
}

// screenshot saves the page the browser shows as name (a PNG) and logs
// where.
func screenshot(t *testing.T, ctx context.Context, name, what string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := screenshotPath(t, name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s screenshot: %s", what, path)
}

// screenshotPath is where a picture of a page goes (not committed): name
// in $SLASHD_SCREENSHOTS, else in the system's temporary directory.
func screenshotPath(t *testing.T, name string) string {
	dir := os.Getenv("SLASHD_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "slashd-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

func intp(n int) *int { return &n }
