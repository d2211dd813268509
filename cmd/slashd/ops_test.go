package main

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/buildinfo"
)

// TestVersionCommand: `slashd version` says which build runs; under go
// test the toolchain records no version and no revision, and it says so.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, code, err := runCLI(t, nil, "version")
	if code != 0 || err != nil || stderr != "" {
		t.Fatalf("exit %d, %v, stderr %q", code, err, stderr)
	}
	info := currentBuild()
	if stdout != describeBuild(info) {
		t.Errorf("version printed %q, want %q", stdout, describeBuild(info))
	}
	if !strings.HasPrefix(stdout, "slashd "+buildinfo.Devel+"\n") || !strings.Contains(stdout, "revision unknown") {
		t.Errorf("under go test: %q, want the devel version and an unknown revision", stdout)
	}
	stdout, _, code, _ = runCLI(t, nil, "version", "--json")
	var got buildinfo.Info
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || got != info {
		t.Errorf("version --json: exit %d, %s (%v), want %+v", code, stdout, err, info)
	}
}

func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	cases := []struct {
		info buildinfo.Info
		want string
	}{
		{buildinfo.Info{Version: "v1.2.3", Go: "go1.26.8", Platform: "linux/arm64", Revision: "abc", Time: "2026-01-02T03:04:05Z"},
			"slashd v1.2.3\n  built with go1.26.8 for linux/arm64\n  revision abc (2026-01-02T03:04:05Z)\n"},
		{buildinfo.Info{Version: "v1.2.3", Go: "go1.26.8", Platform: "windows/amd64", Revision: "abc", Modified: true},
			"slashd v1.2.3\n  built with go1.26.8 for windows/amd64\n  revision abc with uncommitted changes\n"},
		{buildinfo.Info{Version: "(devel)", Go: "go1.26.8", Platform: "darwin/arm64"},
			"slashd (devel)\n  built with go1.26.8 for darwin/arm64\n  revision unknown: this build recorded none (go run, go test, go build -buildvcs=false, or go install of a module)\n"},
	}
	for _, tc := range cases {
		if got := describeBuild(tc.info); got != tc.want {
			t.Errorf("describeBuild(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestHealthzReportsTheBuild: GET /healthz keeps "status": "ok" and adds
// the build's fields.
func TestHealthzReportsTheBuild(t *testing.T) {
	t.Parallel()
	srv := startServe(t, dataDirWithStore(t))
	status, body := call(t, "GET", srv.base+"/healthz", "", "")
	var got map[string]any
	if status != http.StatusOK || json.Unmarshal(body, &got) != nil {
		t.Fatalf("healthz: %d %s", status, body)
	}
	info := currentBuild()
	want := map[string]any{"status": "ok", "version": info.Version, "go": info.Go, "platform": info.Platform}
	if !maps.Equal(got, want) {
		t.Errorf("healthz: %s, want %v", body, want)
	}
}

// TestHealthcheckCommand: healthcheck exits 0 on a healthy server and 1
// on anything else: nothing listening, an error status, a body that is
// not healthy, no answer in time.
func TestHealthcheckCommand(t *testing.T) {
	t.Parallel()
	srv := startServe(t, dataDirWithStore(t))
	stdout, stderr, code, err := runCLI(t, nil, "healthcheck", "--addr", srv.addr)
	if code != 0 || err != nil || stderr != "" {
		t.Fatalf("healthy server: exit %d, %v, stderr %q", code, err, stderr)
	}
	if want := "ok: " + srv.base + "/healthz (slashd " + currentBuild().Version + ")\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	// SLASHD_ADDR, as the container sets it, finds the server too.
	if _, _, code, err := runCLI(t, map[string]string{"SLASHD_ADDR": srv.addr}, "healthcheck"); code != 0 {
		t.Errorf("with SLASHD_ADDR: exit %d, %v", code, err)
	}

	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"status":"broken"}`, http.StatusServiceUnavailable)
	}))
	defer sick.Close()
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"starting"}`))
	}))
	defer starting.Close()
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"error status", []string{"--addr", sick.Listener.Addr().String()}, "status 503"},
		{"not ok", []string{"--addr", starting.Listener.Addr().String()}, `not healthy: {"status":"starting"}`},
		{"nothing listening", []string{"--addr", closed}, "connection refused"},
		{"no answer in time", []string{"--addr", silent.Listener.Addr().String(), "--timeout", "200ms"}, "deadline exceeded"},
	} {
		_, _, code, err := runCLI(t, nil, append([]string{"healthcheck"}, tc.args...)...)
		if code != 1 || err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: exit %d, %v; want exit 1 and %q", tc.name, code, err, tc.err)
		}
	}
}

// TestBootstrapFollowsAddress: a restart on another address rewrites
// bootstrap.json's base_url, and nothing else, in place.
func TestBootstrapFollowsAddress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := serveConfig{addr: "127.0.0.1:0", dataDir: dir, logLevel: slog.LevelInfo}
	first := startServeConfig(t, cfg)
	path := filepath.Join(dir, "bootstrap.json")
	before := readCredentials(t, path)
	if before["base_url"] != first.base {
		t.Fatalf("base_url %q, want %q", before["base_url"], first.base)
	}
	first.stop(t)

	second := startServeConfig(t, cfg)
	after := readCredentials(t, path)
	if after["base_url"] != second.base || second.base == first.base {
		t.Fatalf("after a restart on %s: base_url %q", second.base, after["base_url"])
	}
	after["base_url"] = before["base_url"]
	if !maps.Equal(after, before) {
		t.Errorf("bootstrap.json changed beyond base_url:\n%v\nwas\n%v", after, before)
	}
	if !strings.Contains(second.out.String(), "bootstrap.json follows the new address") {
		t.Errorf("the move is not logged:\n%s", second.out.String())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("bootstrap.json after the rewrite: %v, %v; want mode 600", fi, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".bootstrap.json") {
			t.Errorf("the rewrite left %s behind", e.Name())
		}
	}
}

func readCredentials(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return checkCredentials(t, "bootstrap.json", raw)
}

// TestServeSaysItStarts: the first line serve writes comes before the
// store is opened, so a slow start (a migration, an unreachable
// database) is never silent.
func TestServeSaysItStarts(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	err := serve(t.Context(), serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelInfo,
		store: "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"}, out, func(string) { t.Error("listening without a store") })
	if err == nil {
		t.Fatal("serve on an unreachable store: no error")
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.Contains(first, `msg="slashd starting"`) || !strings.Contains(first, "version=") ||
		!strings.Contains(first, "postgres://nobody@127.0.0.1:1/none") {
		t.Errorf("first line %q, want the start line with the version and the store", first)
	}

	srv := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dataDirWithStore(t), logLevel: slog.LevelInfo})
	log := srv.out.String()
	first, _, _ = strings.Cut(log, "\n")
	if !strings.Contains(first, `msg="slashd starting"`) || !strings.Contains(log, `msg="slashd listening"`) {
		t.Errorf("the start line is not first, before listening:\n%s", log)
	}
}

// TestServeOnEveryInterface: serve told 0.0.0.0 (as in a container)
// answers on a non-loopback address too, and bootstrap.json points at
// the loopback one.
func TestServeOnEveryInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServeConfig(t, serveConfig{addr: "0.0.0.0:0", dataDir: dir, logLevel: slog.LevelWarn})
	host, port, err := net.SplitHostPort(srv.addr)
	if err != nil || !net.ParseIP(host).IsUnspecified() {
		t.Fatalf("listening on %q, want the wildcard address", srv.addr)
	}
	if got := readCredentials(t, filepath.Join(dir, "bootstrap.json"))["base_url"]; got != "http://127.0.0.1:"+port {
		t.Errorf("base_url %q, want http://127.0.0.1:%s", got, port)
	}
	urls := []string{"http://127.0.0.1:" + port}
	if ip := nonLoopbackIPv4(t); ip != "" {
		urls = append(urls, "http://"+net.JoinHostPort(ip, port))
	} else {
		t.Log("no non-loopback IPv4 address on this machine: checked the loopback one only")
	}
	for _, u := range urls {
		if status, body := call(t, "GET", u+"/healthz", "", ""); status != http.StatusOK {
			t.Errorf("GET %s/healthz: %d %s", u, status, body)
		}
	}
}

func nonLoopbackIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
