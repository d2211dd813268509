package browsertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testtool/chromium"
	"github.com/slashd/slashd/internal/ui"
)

// TestMain runs the tests where a Chromium is installed; elsewhere none
// (see chromium.Main). examples/bot is built first, outside every test's
// deadline; a failed build fails the tests that run it.
func TestMain(m *testing.M) {
	_ = exampleBot.Build()
	code := chromium.Main(m)
	exampleBot.Remove()
	os.Exit(code)
}

// TestChromiumInstalled is the check TestMain relies on.
func TestChromiumInstalled(t *testing.T) { chromium.Probe(t) }

// world is a server with the playground in front of the API, and the
// first run's demo world: an app installed in a guild with #general, its
// owner, and an admin token.
type world struct {
	url   string
	ui    *ui.Handler
	creds bootstrap.Credentials
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
	handler := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	w := &world{ui: ui.New(ui.Config{API: handler, Sessions: st, Events: handler.Events()})}
	handler.OnDelivery(w.ui.Record)
	srv := httptest.NewServer(w.ui)
	t.Cleanup(func() { w.ui.Close(); handler.Shutdown(context.Background()); srv.Close(); st.Close() })
	w.url = srv.URL
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	if w.creds, err = bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "demo", GuildName: "demo guild", BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if _, err := bootstrap.Furnish(ctx, env, &w.creds); err != nil {
		t.Fatal(err)
	}
	if w.creds.AdminToken, err = bootstrap.CreateAdminToken(ctx, env); err != nil {
		t.Fatal(err)
	}
	return w
}

// call makes one API request and decodes a 2xx answer into out (when
// set); it fails the test otherwise.
func (w *world) call(t *testing.T, method, path, authz string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, w.url+path, rd)
	req.Header.Set("Authorization", authz)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

func (w *world) admin(t *testing.T, method, path string, body, out any) {
	t.Helper()
	w.call(t, method, "/admin/v1"+path, "Admin "+w.creds.AdminToken, body, out)
}

// browser starts a headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	return chromium.Browser(t, 1280, 860, 5*time.Minute)
}

// run runs actions, failing the test with what on error.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// shot saves a screenshot of the page as name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SLASHD_UI_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// text is the text of the first element sel matches, once visible.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	run(t, ctx, "wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// waitText waits until the element sel matches contains want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	js := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.innerText.toLowerCase().includes(` + jsString(strings.ToLower(want)) + `); })()`
	var err error
	for range 5 { // a navigation ends a poll: poll again on the new page
		if _, err = chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(60*time.Second))); err == nil || !(strings.Contains(err.Error(), "navigated") || strings.Contains(err.Error(), "context with specified id")) {
			break
		}
	}
	if err != nil {
		var now string
		now, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("wait for %s to say %q: %v; the page says:\n%s", sel, want, err, now)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// login logs in through the form with token.
func login(t *testing.T, ctx context.Context, w *world, token string) {
	t.Helper()
	run(t, ctx, "log in", chromedp.Navigate(w.url+"/"), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), token), chromedp.Click(chromedp.ID("login")))
}

// TestLogin: the form refuses a wrong token and takes the admin token;
// the session cookie is HttpOnly and SameSite=Strict; a state-changing
// admin call without the CSRF token is refused, with it accepted; the
// one-time link works once; logging out ends the session.
func TestLogin(t *testing.T) {
	w := newWorld(t)
	ctx := browser(t)
	run(t, ctx, "open", chromedp.Navigate(w.url+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	shot(t, ctx, "01-login")
	login(t, ctx, w, "not-a-token")
	waitText(t, ctx, ".error", "not an admin token")
	shot(t, ctx, "02-login-refused")

	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-side", "demo guild")
	pageCookies, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`))
	if err != nil || pageCookies != "" {
		t.Fatalf("the page's scripts read the cookie %q", pageCookies)
	}

	// The admin API through the session: reads need no CSRF token,
	// writes do.
	js := `(async () => {
	  const get = await fetch("/ui/admin/v1/users");
	  const noCSRF = await fetch("/ui/admin/v1/users", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"username":"mallory"}'});
	  const s = await (await fetch("/ui/session")).json();
	  const withCSRF = await fetch("/ui/admin/v1/users", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": s.csrf_token}, body: '{"username":"carol"}'});
	  return [get.status, noCSRF.status, withCSRF.status];
	})()`
	statuses, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("admin calls: %v", err)
	}
	if len(statuses) != 3 || statuses[0] != 200 || statuses[1] != 403 || statuses[2] != 201 {
		t.Fatalf("GET, POST without and with the CSRF token: %v", statuses)
	}

	run(t, ctx, "log out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("token")))
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/ui/admin/v1/users").then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || status != 401 {
		t.Fatalf("the admin API after logout: %d", status)
	}

	// The banner's one-time link.
	link, err := w.ui.LoginLink(w.url, w.creds.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "one-time link", chromedp.Navigate(link))
	waitText(t, ctx, "#world-side", "demo guild")
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.Contains(loc, "code=") {
		t.Fatalf("the code stays in the address bar: %s", loc)
	}
	run(t, ctx, "log out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("token")))
	run(t, ctx, "the link again", chromedp.Navigate(link))
	waitText(t, ctx, ".error", "used or has expired")
}

// registerBotCommands registers examples/bot's guild commands (its
// -commands output) in the demo guild with the bot token, and returns
// their ids by name.
func (w *world) registerBotCommands(t *testing.T) map[string]string {
	t.Helper()
	defs, err := exec.Command(exampleBot.Path(t), "-commands").Output()
	if err != nil {
		t.Fatalf("examples/bot -commands: %v", err)
	}
	var body any
	if err := json.Unmarshal(defs, &body); err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ ID, Name string }
	w.call(t, "PUT", "/api/v10/applications/"+w.creds.ApplicationID+"/guilds/"+w.creds.GuildID+"/commands",
		"Bot "+w.creds.BotToken, body, &cmds)
	ids := map[string]string{}
	for _, c := range cmds {
		ids[c.Name] = c.ID
	}
	return ids
}

// hideFromEveryone denies a command to @everyone through the real
// permissions endpoint, with the owner's Bearer token.
func (w *world) hideFromEveryone(t *testing.T, cmdID string) {
	t.Helper()
	w.call(t, "PUT", "/api/v10/applications/"+w.creds.ApplicationID+"/guilds/"+w.creds.GuildID+"/commands/"+cmdID+"/permissions",
		"Bearer "+w.creds.OwnerBearerToken, map[string]any{"permissions": []any{
			map[string]any{"id": w.creds.GuildID, "type": 1, "permission": false}}}, nil)
}

// addMember creates a user and makes them a member of the demo guild.
func (w *world) addMember(t *testing.T, name string) string {
	t.Helper()
	var u struct{ ID string }
	w.admin(t, "POST", "/users", map[string]any{"username": name}, &u)
	w.admin(t, "PUT", "/guilds/"+w.creds.GuildID+"/members/"+u.ID, map[string]any{"roles": []string{}}, nil)
	return u.ID
}

// TestWorldBrowser: the app with its endpoint and commands (versions,
// overwrites), the guild with its channels and members, and the access
// explainer telling why a member cannot use a hidden command.
func TestWorldBrowser(t *testing.T) {
	w := newWorld(t)
	cmds := w.registerBotCommands(t)
	w.hideFromEveryone(t, cmds["slow"])
	bob := w.addMember(t, "bob")
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	waitText(t, ctx, "#world-pane", "Commands in demo guild")
	waitText(t, ctx, ".guild-commands", "/pick")
	waitText(t, ctx, ".guild-commands", "@everyone: deny")
	shot(t, ctx, "03-world-app")

	run(t, ctx, "open the guild", chromedp.Click(chromedp.CSS(`#world-side button[data-id="`+w.creds.GuildID+`"]`)))
	waitText(t, ctx, "#guild-channels", "#general")
	waitText(t, ctx, "#guild-members", "bob")
	run(t, ctx, "explain", chromedp.SetValue(chromedp.ID("explain-command"), cmds["slow"]),
		chromedp.SetValue(chromedp.ID("explain-member"), bob), chromedp.Click(chromedp.ID("explain-run")))
	waitText(t, ctx, "#explain-result", "cannot use")
	shot(t, ctx, "04-world-guild")

	run(t, ctx, "explain ping", chromedp.SetValue(chromedp.ID("explain-command"), cmds["ping"]),
		chromedp.Click(chromedp.ID("explain-run")))
	waitText(t, ctx, "#explain-result", "can use")

	run(t, ctx, "open bob", chromedp.Click(chromedp.CSS(`#world-side button[data-id="`+bob+`"]`)))
	waitText(t, ctx, "#world-pane", "No DM yet")
}
