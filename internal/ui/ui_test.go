package ui_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/ui"
)

// newAPI is a real API on a fresh SQLite store (rate limits off) and an
// admin token for it; both are closed when the test ends.
func newAPI(t *testing.T) (*api.Server, string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	ids := snowflake.NewGenerator(0, nil)
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	h := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	t.Cleanup(func() { h.Shutdown(ctx); st.Close() })
	tok, err := bootstrap.CreateAdminToken(ctx, bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	return h, tok
}

// newServer is the UI in front of a real API, plain or over TLS, and
// an admin token.
func newServer(t *testing.T, tls bool) (*httptest.Server, string) {
	t.Helper()
	h, tok := newAPI(t)
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(ui.New(ui.Config{API: h, Sessions: h.Store()}))
	} else {
		srv = httptest.NewServer(ui.New(ui.Config{API: h, Sessions: h.Store()}))
	}
	t.Cleanup(srv.Close)
	return srv, tok
}

func noRedirect(c *http.Client) *http.Client {
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// TestSessionCookie: a login sets an HttpOnly, SameSite=Strict cookie,
// Secure over TLS only.
func TestSessionCookie(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"plain", false}, {"tls", true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, tok := newServer(t, tc.tls)
			c := noRedirect(srv.Client())
			resp, err := c.PostForm(srv.URL+"/ui/login", url.Values{"token": {tok}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			cs := resp.Cookies()
			if resp.StatusCode != http.StatusSeeOther || len(cs) != 1 {
				t.Fatalf("login: %d, cookies %v", resp.StatusCode, cs)
			}
			c0 := cs[0]
			if c0.Name != ui.CookieName || !c0.HttpOnly || c0.SameSite != http.SameSiteStrictMode || c0.Secure != tc.tls {
				t.Fatalf("cookie %+v", c0)
			}
		})
	}
}

// TestAdminProxyNeedsSession: without a session the admin API is not
// reachable through the UI, whatever Authorization the request carries;
// the API's own paths still pass through.
func TestAdminProxyNeedsSession(t *testing.T) {
	srv, tok := newServer(t, false)
	for _, tc := range []struct {
		method, path, authz string
		want                int
	}{
		{"GET", "/ui/admin/v1/users", "", 401},
		{"GET", "/ui/admin/v1/users", "Admin " + tok, 401},
		{"POST", "/ui/logout", "", 401},
		{"GET", "/ui/session", "", 401},
		{"GET", "/admin/v1/users", "Admin " + tok, 200},
		{"GET", "/healthz", "", 200},
		{"GET", "/", "", 200},
		{"GET", "/ui/static/app.js", "", 200},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		if tc.authz != "" {
			req.Header.Set("Authorization", tc.authz)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

// TestLoginFormCrossSite: a login posted from another origin is refused.
func TestLoginFormCrossSite(t *testing.T) {
	srv, tok := newServer(t, false)
	req, _ := http.NewRequest("POST", srv.URL+"/ui/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := noRedirect(&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Fatalf("cross-site login: %d %v", resp.StatusCode, resp.Cookies())
	}
}

// TestInteractionLogBounded: the log keeps the last 200 deliveries,
// newest first, filtered by app and guild, for a session only.
func TestInteractionLogBounded(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	ids := snowflake.NewGenerator(0, nil)
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	h := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	u := ui.New(ui.Config{API: h, Sessions: h.Store()})
	srv := httptest.NewServer(u)
	t.Cleanup(func() { h.Shutdown(ctx); srv.Close(); st.Close() })
	tok, err := bootstrap.CreateAdminToken(ctx, bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 250; i++ {
		u.Record(api.Delivery{InteractionID: snowflake.ID(i), Type: 2, ApplicationID: snowflake.ID(1 + i%2),
			GuildID: snowflake.ID(10 + i%5), Payload: []byte(`{"n":1}`), Outcome: "answered"})
	}
	if r, err := http.Get(srv.URL + "/ui/interactions"); err != nil || r.StatusCode != 401 {
		t.Fatalf("without a session: %v %v", r, err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if r, err := c.PostForm(srv.URL+"/ui/login", url.Values{"token": {tok}}); err != nil || r.StatusCode != 200 {
		t.Fatalf("login: %v %v", r, err)
	}
	list := func(q string) []ui.LogEntry {
		t.Helper()
		r, err := c.Get(srv.URL + "/ui/interactions" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var out []ui.LogEntry
		if err := json.NewDecoder(r.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list("")
	if len(all) != 200 || all[0].InteractionID != 250 || all[199].InteractionID != 51 {
		t.Fatalf("%d entries, first %d, last %d", len(all), all[0].InteractionID, all[len(all)-1].InteractionID)
	}
	for _, e := range list("?application_id=1&guild_id=10") {
		if e.ApplicationID != 1 || e.GuildID == nil || *e.GuildID != 10 || e.InteractionID%10 != 0 {
			t.Fatalf("filtered: %+v", e)
		}
	}
	if n := len(list("?application_id=1&guild_id=10")); n != 20 {
		t.Fatalf("filtered: %d entries, want 20", n)
	}
}
