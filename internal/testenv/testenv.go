// Package testenv starts a real slashd API server on a fresh SQLite store
// for tests: the same handler `slashd serve` runs, behind a real
// httptest listener, with a bootstrapped application.
package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// Env is a running server with one bootstrapped app.
type Env struct {
	T      testing.TB
	URL    string // base URL, without /api
	Store  *sqlstore.Store
	IDs    *snowflake.Generator
	Server *httptest.Server
	API    *api.Server           // the handler, for its gateway
	App    bootstrap.Credentials // the first app, its guild and its owner
	Admin  string                // an admin API token (Authorization: Admin …)
	// Events is the server's event bus: Subscribe before a request to see
	// what it publishes.
	Events *event.Memory
	// OAuth is the server's OAuth2 server (IssueCode stands in for an
	// approval on the consent page).
	OAuth *oauth.Server
	// Clock is the server's clock (and bootstrap's): real time until a
	// test moves it with Advance.
	Clock *Clock
	cfg   api.Config
}

// Clock is real time plus an offset a test controls, so that it can step
// past the interaction answer window or token lifetime without waiting.
// The zero value is real time. Timers set with AfterFunc (the gateway's
// heartbeat watchdogs, an interaction's answer window) fire when the
// clock passes their deadline, be it real time passing or Advance moving
// it. A test that checks a deadline to the millisecond freezes the clock
// first: then only Advance moves it.
type Clock struct {
	mu       sync.Mutex
	offset   time.Duration
	frozen   bool
	frozenAt time.Time                // real time when frozen
	timers   map[*ClockTimer]struct{} // those not fired or stopped
}

// Now is time.Now plus the offset (or when the clock froze, plus it).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	if c.frozen {
		return c.frozenAt.Add(c.offset)
	}
	return time.Now().Add(c.offset)
}

// Freeze stops the clock: from now on only Advance moves it, and fires
// its timers.
func (c *Clock) Freeze() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return
	}
	c.frozen, c.frozenAt = true, time.Now()
	for t := range c.timers {
		t.real.Stop()
		t.real = nil
	}
}

// Advance moves the clock forward by d, firing the timers it passes
// (other timers the server started, outside this clock, keep running in
// real time).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	now := c.nowLocked()
	due := map[*ClockTimer]int{} // with their generation
	for t := range c.timers {
		switch left := t.due.Sub(now); {
		case left <= 0:
			due[t] = t.gen
		case !c.frozen:
			t.real.Reset(left) // its deadline came nearer in real time
		}
	}
	c.mu.Unlock()
	for t, gen := range due {
		t.fire(gen)
	}
}

// AfterFunc runs f in its own goroutine once the clock passes now+d.
func (c *Clock) AfterFunc(d time.Duration, f func()) gateway.Timer {
	t := &ClockTimer{c: c, f: f}
	t.Reset(d)
	return t
}

// ClockTimer is a timer on a Clock.
type ClockTimer struct {
	c    *Clock
	f    func()
	due  time.Time   // on the clock; guarded by c.mu, as are the others
	real *time.Timer // fires at due in real time (nil while frozen)
	gen  int         // counts Resets, so that a stale firing does nothing
}

// Reset makes the timer fire d from now on the clock; it reports whether
// it was still to fire.
func (t *ClockTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	active := t.stopLocked()
	t.gen++
	gen := t.gen
	t.due = t.c.nowLocked().Add(d)
	switch {
	case !t.c.frozen:
		t.real = time.AfterFunc(d, func() { t.fire(gen) })
	case d <= 0: // due at once
		t.real = nil
		go t.fire(gen)
	default:
		t.real = nil // Advance fires it
	}
	if t.c.timers == nil {
		t.c.timers = map[*ClockTimer]struct{}{}
	}
	t.c.timers[t] = struct{}{}
	return active
}

// Stop keeps the timer from firing; it reports whether it was still to.
func (t *ClockTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.stopLocked()
}

func (t *ClockTimer) stopLocked() bool {
	if _, active := t.c.timers[t]; !active {
		return false
	}
	delete(t.c.timers, t)
	if t.real != nil {
		t.real.Stop()
	}
	return true
}

// fire runs f unless the timer was stopped or reset since generation gen.
func (t *ClockTimer) fire(gen int) {
	t.c.mu.Lock()
	if t.gen != gen || !t.stopLocked() {
		t.c.mu.Unlock()
		return
	}
	t.c.mu.Unlock()
	go t.f()
}

// WaitFor polls ok until it holds, failing t if it does not within
// WaitTimeout: for a state the test can observe but not be told of.
func WaitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, WaitTimeout)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval, not a wait for the event
	}
}

// WaitTimeout bounds a wait for something the server does at once: ten
// times what it takes on a loaded machine, so that only a server that
// never does it fails.
const WaitTimeout = 20 * time.Second

// Option adjusts the server configuration.
type Option func(*api.Config)

// WithRateLimit turns rate limiting on with the given config changes.
func WithRateLimit(adjust func(*api.Config)) Option {
	return func(c *api.Config) {
		c.RateLimit = true
		if adjust != nil {
			adjust(c)
		}
	}
}

// New starts a server (rate limiting off unless asked) and bootstraps an app.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	return NewLogged(t, nil, opts...)
}

// NewLogged is New with the server logging to log (nil: nowhere).
func NewLogged(t testing.TB, log *slog.Logger, opts ...Option) *Env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	for _, o := range opts {
		o(&cfg)
	}
	ids := snowflake.NewGenerator(0, nil)
	events := event.NewMemory()
	clock := &Clock{}
	handler := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: clock.Now, AfterFunc: clock.AfterFunc, Rand: rand.Reader, Events: events, Logger: log})
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		handler.Shutdown(context.Background())
		srv.Close()
		st.Close()
	})
	e := &Env{T: t, URL: srv.URL, Store: st, IDs: ids, Server: srv, API: handler, Events: events, OAuth: handler.OAuth(),
		Clock: clock, cfg: cfg}
	e.App = e.NewApp(bootstrap.AppOptions{Name: "testapp"})
	if e.Admin, err = bootstrap.CreateAdminToken(ctx, e.Bootstrap()); err != nil {
		t.Fatalf("create admin token: %v", err)
	}
	return e
}

// Bootstrap returns the environment bootstrap functions need.
func (e *Env) Bootstrap() bootstrap.Env {
	// Through the server's store, so its caches see what bootstrap changes.
	return bootstrap.Env{Store: e.API.Store(), IDs: e.IDs, Rand: rand.Reader, Now: e.Clock.Now}
}

// NewApp creates another application (with owner and installed guild).
func (e *Env) NewApp(opt bootstrap.AppOptions) bootstrap.Credentials {
	e.T.Helper()
	opt.BaseURL = e.URL
	c, err := bootstrap.CreateApp(context.Background(), e.Bootstrap(), opt)
	if err != nil {
		e.T.Fatalf("create app: %v", err)
	}
	// Its world's changes go out now: a bot connecting next is not told
	// of them again after its GUILD_CREATE.
	e.API.PublishWorldEvents(context.Background())
	return c
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Do sends a request. auth is the whole Authorization value ("Bot …",
// "Bearer …" or ""); body is marshalled unless it is a string or []byte,
// which are sent as they are with Content-Type application/json.
func (e *Env) Do(method, path, auth string, body any) Response {
	e.T.Helper()
	return e.DoAs(e.T, method, path, auth, body)
}

// DoAs is Do failing t rather than the Env's test: for a subtest or a
// parallel one.
func (e *Env) DoAs(t testing.TB, method, path, auth string, body any) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Bot is the Authorization value of the first app's bot token.
func (e *Env) Bot() string { return "Bot " + e.App.BotToken }

// Owner is the Authorization value of the first app owner's Bearer token.
func (e *Env) Owner() string { return "Bearer " + e.App.OwnerBearerToken }

// AdminAuth is the Authorization value of the admin API token.
func (e *Env) AdminAuth() string { return "Admin " + e.Admin }

// PostForm sends a form-encoded POST (as OAuth2 clients do); user and
// pass, when user is set, go in HTTP Basic authentication.
func (e *Env) PostForm(path string, form url.Values, user, pass string) Response {
	e.T.Helper()
	req, err := http.NewRequest("POST", e.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.T.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		e.T.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatalf("read body: %v", err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// NewUser creates a person (not a bot) named name, with a consent-page
// login of the same name when password is set.
func (e *Env) NewUser(name, password string) store.User {
	e.T.Helper()
	ctx := context.Background()
	u := store.User{ID: e.IDs.Next(), Username: name, Locale: "en-US", CreatedAt: e.Clock.Now().UTC()}
	if err := e.Store.CreateUser(ctx, u); err != nil {
		e.T.Fatalf("create user %s: %v", name, err)
	}
	if password != "" {
		hash, err := oauth.HashPassword(rand.Reader, password)
		if err != nil {
			e.T.Fatalf("hash password: %v", err)
		}
		if err := e.Store.SetLogin(ctx, store.Login{UserID: u.ID, Name: name, PasswordHash: hash}); err != nil {
			e.T.Fatalf("set login %s: %v", name, err)
		}
	}
	return u
}

// SetOAuth replaces an app's OAuth2 settings.
func (e *Env) SetOAuth(appID snowflake.ID, public bool, redirectURIs ...string) {
	e.T.Helper()
	err := e.Store.SetOAuthSettings(context.Background(),
		store.OAuthSettings{ApplicationID: appID, RedirectURIs: redirectURIs, PublicClient: public})
	if err != nil {
		e.T.Fatalf("set OAuth2 settings of app %s: %v", appID, err)
	}
}

// Node starts another server on the same store and event bus, as a
// second node of a cluster would run; it shares the first app.
func (e *Env) Node() *Env {
	e.T.Helper()
	return e.NodeOn(e.Store)
}

// NodeOn is Node serving from st, which wraps e.Store (to count or
// fail some of its calls, say); the Env's Store stays e.Store.
func (e *Env) NodeOn(st store.Store) *Env {
	e.T.Helper()
	handler := api.New(e.cfg, api.Deps{Store: st, IDs: e.IDs, Now: e.Clock.Now, AfterFunc: e.Clock.AfterFunc, Rand: rand.Reader, Events: e.Events})
	srv := httptest.NewServer(handler)
	e.T.Cleanup(func() {
		handler.Shutdown(context.Background())
		srv.Close()
	})
	n := *e
	n.URL, n.Server, n.API, n.OAuth = srv.URL, srv, handler, handler.OAuth()
	return &n
}

// Restart starts a second server on e's store, as a restarted process
// would be: nothing held in memory carries over. The new Env shares e's
// store, ids, clock, app and admin token; e keeps running.
func (e *Env) Restart() *Env {
	e.T.Helper()
	events := event.NewMemory()
	handler := api.New(e.cfg, api.Deps{Store: e.Store, IDs: e.IDs, Now: e.Clock.Now, AfterFunc: e.Clock.AfterFunc, Rand: rand.Reader, Events: events})
	srv := httptest.NewServer(handler)
	e.T.Cleanup(func() {
		handler.Shutdown(context.Background())
		srv.Close()
	})
	r := *e
	r.URL, r.Server, r.API, r.Events, r.OAuth = srv.URL, srv, handler, events, handler.OAuth()
	return &r
}
