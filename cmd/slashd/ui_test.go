package main

import (
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var loginLinkRE = regexp.MustCompile(`http://\S+/ui/login\?code=[0-9a-f]{64}`)

// TestServeUI: serve puts the playground at / and prints a one-time
// login link on the first start; the link opens a session once.
func TestServeUI(t *testing.T) {
	s := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelWarn, ui: true})
	link := loginLinkRE.FindString(s.out.String())
	if link == "" || !strings.HasPrefix(link, s.base+"/") {
		t.Fatalf("no login link for %s in the banner:\n%s", s.base, s.out.String())
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(url string) (*http.Response, string) {
		t.Helper()
		resp, err := noRedirect.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get(s.base + "/")
	if resp.StatusCode != 200 || !strings.Contains(body, "slashd playground") || resp.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("GET /: %d %q", resp.StatusCode, body)
	}
	resp, _ = get(link)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("the login link: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	if resp, _ = get(link); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the login link again: %d, want 401", resp.StatusCode)
	}
}

// TestServeUISessionSurvivesRestart: a playground session made through
// the banner's link still works after serve stops and starts again on
// the same data directory (a new port: the cookie is sent as is).
func TestServeUISessionSurvivesRestart(t *testing.T) {
	cfg := serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelWarn, ui: true}
	first := startServeConfig(t, cfg)
	link := loginLinkRE.FindString(first.out.String())
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("the login link: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	cookie := resp.Cookies()[0]
	first.stop(t)

	second := startServeConfig(t, cfg)
	for _, path := range []string{"/ui/session", "/ui/admin/v1/users"} {
		req, _ := http.NewRequest("GET", second.base+path, nil)
		req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s with the session made before the restart: %d, want 200", path, resp.StatusCode)
		}
	}
}

// TestServeUIOff: with --ui=false, / is the API's 404 and no link is
// printed.
func TestServeUIOff(t *testing.T) {
	s := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelWarn, ui: false})
	if loginLinkRE.MatchString(s.out.String()) {
		t.Fatalf("a login link with the UI off:\n%s", s.out.String())
	}
	status, _ := call(t, "GET", s.base+"/", "", "")
	if status != http.StatusNotFound {
		t.Fatalf("GET / with the UI off: %d", status)
	}
}

func TestUIFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, true},
		{[]string{"--ui=false"}, nil, false},
		{nil, map[string]string{"SLASHD_UI": "false"}, false},
		{[]string{"--ui=true"}, map[string]string{"SLASHD_UI": "false"}, true},
	} {
		cfg, err := parseServeFlags(tc.args, envMap(tc.env))
		if err != nil || cfg.ui != tc.want {
			t.Errorf("%v %v: ui %v, %v; want %v", tc.args, tc.env, cfg.ui, err, tc.want)
		}
	}
}

// TestServeUILiveShutdown: an open live stream does not hold the
// server's shutdown up: serve ends it and returns nil at once (an
// http.Server.Shutdown waiting for it would give up after 10 s with an
// error).
func TestServeUILiveShutdown(t *testing.T) {
	s := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelWarn, ui: true})
	link := loginLinkRE.FindString(s.out.String())
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(link)
	if err != nil || len(resp.Cookies()) != 1 {
		t.Fatalf("log in: %v %v", resp, err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("GET", s.base+"/ui/live/log", nil)
	req.AddCookie(resp.Cookies()[0])
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	first := make([]byte, len("event: ready"))
	if _, err := io.ReadFull(stream.Body, first); err != nil || string(first) != "event: ready" {
		t.Fatalf("the stream begins %q, %v", first, err)
	}
	start := time.Now()
	s.stop(t)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("serve took %v to stop with a live stream open", took)
	}
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Logf("the stream ended with %v", err)
	}
}
