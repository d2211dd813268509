package ui_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
	"github.com/slashd/slashd/internal/ui"
)

// clock is a settable clock for the UI.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// dataDir is a SQLite store on disk that a test can stop and start a
// server over, as `slashd serve` restarts on its data directory.
type dataDir struct {
	path  string
	admin string // an admin token made at the first start
	clock *clock
}

// instance is one run of the server: its store, API and UI.
type instance struct {
	srv  *httptest.Server
	st   *sqlstore.Store
	stop func() // ends the instance, as a server's process ends
}

func newDataDir(t testing.TB) *dataDir {
	t.Helper()
	d := &dataDir{path: filepath.Join(t.TempDir(), "slashd.db"), clock: &clock{t: time.Now()}}
	st, err := sqlite.Open(t.Context(), d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d.admin, err = bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: st, IDs: snowflake.NewGenerator(0, nil),
		Rand: rand.Reader, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// start opens the store and serves a new API and UI over it (maxSessions
// 0: the default cap).
func (d *dataDir) start(t testing.TB, maxSessions int) *instance {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, d.path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	h := api.New(cfg, api.Deps{Store: st, IDs: snowflake.NewGenerator(0, nil), Now: time.Now, Rand: rand.Reader})
	u := ui.New(ui.Config{API: h, Sessions: h.Store(), Now: d.clock.Now, MaxSessions: maxSessions})
	in := &instance{srv: httptest.NewServer(u), st: st}
	var once sync.Once
	in.stop = func() {
		once.Do(func() { u.Close(); in.srv.Close(); h.Shutdown(ctx); st.Close() })
	}
	t.Cleanup(in.stop)
	return in
}

// login posts the admin token to the login form and returns the session
// cookie's value.
func (in *instance) login(t testing.TB, token string) string {
	t.Helper()
	resp, err := noRedirect(&http.Client{}).PostForm(in.srv.URL+"/ui/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == ui.CookieName && resp.StatusCode == http.StatusSeeOther {
			return c.Value
		}
	}
	t.Fatalf("login: %d, cookies %v", resp.StatusCode, resp.Cookies())
	return ""
}

// call makes a request with the session cookie (and csrf, when set)
// and returns the status and body.
func (in *instance) call(t *testing.T, method, path, cookie, csrf string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, in.srv.URL+path, rd)
	req.AddCookie(&http.Cookie{Name: ui.CookieName, Value: cookie})
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// csrf is the session's CSRF token, or "" with the status when the
// session is not live.
func (in *instance) csrf(t *testing.T, cookie string) (string, int) {
	t.Helper()
	status, b := in.call(t, "GET", "/ui/session", cookie, "", nil)
	if status != http.StatusOK {
		return "", status
	}
	var s struct {
		CSRF string `json:"csrf_token"`
	}
	if err := json.Unmarshal(b, &s); err != nil || s.CSRF == "" {
		t.Fatalf("GET /ui/session: %v %s", err, b)
	}
	return s.CSRF, status
}

// works checks that the session reads and writes the world through the
// admin API, with its CSRF token.
func (in *instance) works(t *testing.T, cookie, csrf, username string) {
	t.Helper()
	if status, b := in.call(t, "GET", "/ui/admin/v1/users", cookie, "", nil); status != http.StatusOK {
		t.Fatalf("GET through the session: %d %s", status, b)
	}
	if status, b := in.call(t, "POST", "/ui/admin/v1/users", cookie, csrf, map[string]any{"username": username}); status != http.StatusCreated {
		t.Fatalf("POST through the session: %d %s", status, b)
	}
}

// TestSessionSurvivesRestart: a session made before a restart works
// after it (reads, writes with the same CSRF token, the app page), on a
// new UI over the same store; the row holds neither the cookie nor the
// admin token in clear; logging out deletes it, and the cookie then
// works on no later instance.
func TestSessionSurvivesRestart(t *testing.T) {
	d := newDataDir(t)
	first := d.start(t, 0)
	cookie := first.login(t, d.admin)
	csrf, _ := first.csrf(t, cookie)
	first.works(t, cookie, csrf, "before")
	first.stop()

	second := d.start(t, 0)
	got, status := second.csrf(t, cookie)
	if status != http.StatusOK || got != csrf {
		t.Fatalf("after a restart: GET /ui/session %d, csrf %q (was %q)", status, got, csrf)
	}
	second.works(t, cookie, csrf, "after")
	if status, b := second.call(t, "GET", "/", cookie, "", nil); status != 200 || !strings.Contains(string(b), "/ui/static/app.js") {
		t.Fatalf("GET / after a restart: %d, not the app", status)
	}

	// What is at rest.
	hash := sha256.Sum256([]byte(cookie))
	row, err := second.st.PlaygroundSession(t.Context(), hash[:])
	if err != nil {
		t.Fatal(err)
	}
	if !secrets.IsSealed(row.SealedAdminToken) || bytes.Contains(row.SealedAdminToken, []byte(d.admin)) ||
		!bytes.Equal(row.AdminTokenHash, auth.Hash(d.admin)) {
		t.Fatalf("stored admin token %q (hash %x): want it sealed, named by its hash", row.SealedAdminToken, row.AdminTokenHash)
	}
	var raw []byte
	if err := second.st.DB().QueryRowContext(t.Context(), `SELECT hash FROM playground_sessions`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(cookie)) || !bytes.Equal(raw, hash[:]) {
		t.Fatalf("stored session key %x: want the cookie's SHA-256", raw)
	}

	// Logging out deletes the row; the cookie is dead everywhere.
	if status, b := second.call(t, "POST", "/ui/logout", cookie, csrf, nil); status != http.StatusNoContent {
		t.Fatalf("logout: %d %s", status, b)
	}
	if _, err := second.st.PlaygroundSession(t.Context(), hash[:]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the session's row after logout: %v, want ErrNotFound", err)
	}
	second.stop()
	third := d.start(t, 0)
	if _, status := third.csrf(t, cookie); status != http.StatusUnauthorized {
		t.Fatalf("a logged-out session after a restart: %d, want 401", status)
	}
	if status, _ := third.call(t, "GET", "/ui/admin/v1/users", cookie, "", nil); status != http.StatusUnauthorized {
		t.Fatalf("the admin API through a logged-out session: %d, want 401", status)
	}
}

// TestSessionExpiresAcrossRestart: a session lasts 12 h from its login,
// restarts included: past that, the cookie gets 401 and its row goes.
func TestSessionExpiresAcrossRestart(t *testing.T) {
	d := newDataDir(t)
	first := d.start(t, 0)
	cookie := first.login(t, d.admin)
	first.stop()

	d.clock.Add(12*time.Hour - time.Second)
	second := d.start(t, 0)
	if _, status := second.csrf(t, cookie); status != http.StatusOK {
		t.Fatalf("a second before expiry: %d, want 200", status)
	}
	second.stop()

	d.clock.Add(time.Second)
	third := d.start(t, 0)
	if _, status := third.csrf(t, cookie); status != http.StatusUnauthorized {
		t.Fatalf("at expiry: %d, want 401", status)
	}
	hash := sha256.Sum256([]byte(cookie))
	if _, err := third.st.PlaygroundSession(t.Context(), hash[:]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired session's row once seen: %v, want ErrNotFound", err)
	}
}

// TestSessionsBounded: past MaxSessions, a login ends the session that
// expires first; malformed and unknown cookies are no session.
func TestSessionsBounded(t *testing.T) {
	d := newDataDir(t)
	in := d.start(t, 2)
	var cookies []string
	for range 3 {
		cookies = append(cookies, in.login(t, d.admin))
		d.clock.Add(time.Minute) // each login expires later than the one before
	}
	for i, want := range []int{401, 200, 200} {
		if _, status := in.csrf(t, cookies[i]); status != want {
			t.Errorf("session %d of 3 with room for 2: %d, want %d", i, status, want)
		}
	}
	for _, bad := range []string{"", "short", strings.Repeat("z", 64), strings.Repeat("0", 64)} {
		if _, status := in.csrf(t, bad); status != http.StatusUnauthorized {
			t.Errorf("cookie %q: %d, want 401", bad, status)
		}
	}
}

// TestRevokedAdminTokenEndsSessions: deleting the admin token's row (a
// revocation) ends the sessions made with it; another token's stay.
func TestRevokedAdminTokenEndsSessions(t *testing.T) {
	d := newDataDir(t)
	in := d.start(t, 0)
	other, err := bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: in.st, IDs: snowflake.NewGenerator(0, nil),
		Rand: rand.Reader, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	revoked, kept := in.login(t, d.admin), in.login(t, other)
	if _, err := in.st.DB().ExecContext(t.Context(), `DELETE FROM admin_tokens WHERE hash = $1`, auth.Hash(d.admin)); err != nil {
		t.Fatal(err)
	}
	if _, status := in.csrf(t, revoked); status != http.StatusUnauthorized {
		t.Errorf("a session of the revoked token: %d, want 401", status)
	}
	if status, _ := in.call(t, "GET", "/ui/admin/v1/users", kept, "", nil); status != http.StatusOK {
		t.Errorf("the other token's session: %d, want 200", status)
	}
}

// FuzzSessionCookie: whatever a request's session cookie holds, it is
// no session (401 in the API's JSON format), never an error or a crash;
// a real session's cookie with a byte changed is none either.
func FuzzSessionCookie(f *testing.F) {
	d := newDataDir(f)
	in := d.start(f, 0)
	real := in.login(f, d.admin)
	for _, seed := range []string{"", "x", real[:63], real + "0", strings.Repeat("0", 64), strings.ToUpper(real),
		real[:10] + "z" + real[11:], "%00", `"` + real} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if value == real || value == `"`+real+`"` { // a quoted cookie value is the value (RFC 6265)
			return
		}
		req, err := http.NewRequest("GET", in.srv.URL+"/ui/session", nil)
		if err != nil {
			t.Skip()
		}
		req.Header.Set("Cookie", ui.CookieName+"="+value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Skip() // a value no client can send (a newline in a header)
		}
		defer resp.Body.Close()
		var body struct {
			Message string `json:"message"`
		}
		if resp.StatusCode != http.StatusUnauthorized || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Message == "" {
			t.Fatalf("cookie %q: %d %q, want 401 with a message", value, resp.StatusCode, body.Message)
		}
	})
}
