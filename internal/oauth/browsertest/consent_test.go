package browsertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
	"github.com/slashd/slashd/internal/testtool/chromium"
	"github.com/slashd/slashd/sdk/authorize"
)

// TestMain runs the tests where a Chromium is installed; elsewhere none
// (see chromium.Main).
func TestMain(m *testing.M) { os.Exit(chromium.Main(m)) }

// TestChromiumInstalled is the check TestMain relies on.
func TestChromiumInstalled(t *testing.T) { chromium.Probe(t) }

// world is a server with an app that is a public OAuth2 client, and a
// user with a login who owns a guild where the app is not installed yet.
type world struct {
	url      string
	st       *sqlstore.Store
	app      bootstrap.Credentials
	appID    snowflake.ID
	userID   snowflake.ID
	guildID  snowflake.ID
	password string
}

func newWorld(t *testing.T) *world {
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
	w := &world{url: srv.URL, st: st, app: app, password: "correct horse battery staple"}
	w.appID, _ = snowflake.Parse(app.ApplicationID)
	if err := st.SetOAuthSettings(ctx, store.OAuthSettings{ApplicationID: w.appID,
		RedirectURIs: []string{"http://127.0.0.1/callback"}, PublicClient: true}); err != nil {
		t.Fatal(err)
	}
	w.userID = ids.Next()
	if err := st.CreateUser(ctx, store.User{ID: w.userID, Username: "alice", GlobalName: "Alice", Adult: true,
		Locale: "en-US", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	hash, err := oauth.HashPassword(rand.Reader, w.password)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetLogin(ctx, store.Login{UserID: w.userID, Name: "alice", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	if w.guildID, err = bootstrap.CreateGuild(ctx, env, "Alice's Guild", w.userID, 0); err != nil {
		t.Fatal(err)
	}
	return w
}

// call makes one API request and returns status and body.
func (w *world) call(t *testing.T, method, path, authz, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, w.url+path, bytes.NewBufferString(body))
	req.Header.Set("Authorization", authz)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// browser starts a headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	return chromium.Browser(t, 800, 900, 90*time.Second)
}

// startAuthorize runs the SDK's Authorize in the background; the SDK's
// browser opener hands the URL to the test, which drives Chromium. opts
// set more of the authorization's arguments.
func startAuthorize(t *testing.T, w *world, scopes string, opts ...func(*authorize.AuthorizationArgs)) (url string,
	verifier string, done <-chan authResult) {
	t.Helper()
	urls := make(chan string, 1)
	client := authorize.NewClient(w.url, authorize.WithBrowserOpener(func(u string) error { urls <- u; return nil }))
	client.SetApplicationID(uint64(w.appID))
	v, err := client.CreateAuthorizationCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	args := authorize.NewAuthorizationArgs()
	args.SetScopes(scopes)
	args.SetCodeChallenge(authorize.Some(v.Challenge))
	for _, o := range opts {
		o(&args)
	}
	out := make(chan authResult, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	go func() {
		res, err := client.Authorize(ctx, args)
		out <- authResult{res: res, err: err, client: client}
	}()
	select {
	case u := <-urls:
		return u, v.Verifier, out
	case r := <-out:
		t.Fatalf("Authorize ended before opening the browser: %v", r.err)
	}
	return "", "", nil
}

type authResult struct {
	res    authorize.AuthorizeResult
	err    error
	client *authorize.Client
}

func wait(t *testing.T, done <-chan authResult) authResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("the SDK never received the redirect")
	}
	return authResult{}
}

// screenshotPath is where a picture of the consent page goes (not
// committed): name in $SLASHD_SCREENSHOTS, else in the system's temporary
// directory.
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

func TestConsentApproveInstallsAndIssuesAUsableToken(t *testing.T) {
	w := newWorld(t)
	ctx := browser(t)
	guildCmds := "/api/v10/applications/" + w.app.ApplicationID + "/guilds/" + w.guildID.String() + "/commands"
	if status, body := w.call(t, "POST", guildCmds, "Bot "+w.app.BotToken, `{"name":"ping","description":"Ping"}`); status != 403 {
		t.Fatalf("before consent, the app is not installed: got %d %s, want 403 50001", status, body)
	}

	authURL, verifier, done := startAuthorize(t, w,
		"identify applications.commands applications.commands.permissions.update")
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), w.password),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.SetValue(chromedp.ID("guild_id"), w.guildID.String()),
	)
	if err != nil {
		t.Fatalf("drive the consent page: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))); err != nil {
		t.Fatalf("approve: %v", err)
	}
	path := screenshotPath(t, "consent.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("consent page screenshot: %s", path)

	r := wait(t, done)
	if r.err != nil {
		t.Fatalf("Authorize: %v", r.err)
	}
	tok, err := r.client.GetToken(context.Background(), uint64(w.appID), r.res.Code, verifier, r.res.RedirectURI)
	if err != nil {
		t.Fatalf("GetToken: %v", err)
	}
	if tok.TokenType != "Bearer" || tok.RefreshToken == "" {
		t.Fatalf("token: %+v", tok)
	}

	// The consent installed the app: the bot may now create guild commands.
	status, body := w.call(t, "POST", guildCmds, "Bot "+w.app.BotToken, `{"name":"ping","description":"Ping"}`)
	if status != 201 {
		t.Fatalf("after consent: %d %s", status, body)
	}
	var cmd struct{ ID string }
	_ = json.Unmarshal([]byte(body), &cmd)
	// And the user's token edits the command's permissions.
	status, body = w.call(t, "PUT", guildCmds+"/"+cmd.ID+"/permissions", "Bearer "+tok.AccessToken,
		`{"permissions":[{"id":"`+w.guildID.String()+`","type":1,"permission":false}]}`)
	if status != 200 {
		t.Fatalf("permission edit with the consent's token: %d %s", status, body)
	}
}

func TestConsentCancelGivesAccessDenied(t *testing.T) {
	w := newWorld(t)
	ctx := browser(t)
	authURL, _, done := startAuthorize(t, w, "identify")
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), w.password),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("cancel")),
		chromedp.Click(chromedp.ID("cancel")),
	)
	if err != nil {
		t.Fatalf("drive the consent page: %v", err)
	}
	r := wait(t, done)
	var e *authorize.Error
	if !errors.As(r.err, &e) || e.Kind != authorize.KindAborted || e.OAuthError != "access_denied" {
		t.Fatalf("Authorize after Cancel: %v, want an aborted error with access_denied", r.err)
	}
}

func TestLoginRejectsAWrongPassword(t *testing.T) {
	w := newWorld(t)
	ctx := browser(t)
	authURL, _, _ := startAuthorize(t, w, "identify")
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), "wrong password"),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.CSS(".error")),
	)
	if err != nil {
		t.Fatalf("drive the login page: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".error")))
	if err != nil {
		t.Fatalf("read the error: %v", err)
	}
	if text != "Login or password is invalid." {
		t.Fatalf("error text %q", text)
	}
}
