package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/realip"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines to write
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is one serve call running in a goroutine.
type server struct {
	addr   string
	base   string
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// dataDirWithStore returns a new data directory holding a fresh SQLite
// store copied from the migrated template, for tests of a running server
// rather than of serve's start on an empty directory: migrating costs
// about 0.4 s under -race. serve's first run (bootstrap.json, the demo
// world) depends on the store's contents, which are a fresh migration's.
func dataDirWithStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := sqlite.CreateFromTemplate(t.Context(), filepath.Join(dir, sqliteFile)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startServe runs serve on 127.0.0.1:0 with dataDir and waits until it
// listens.
func startServe(t *testing.T, dataDir string) *server {
	t.Helper()
	return startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dataDir, rateLimit: false, logLevel: slog.LevelWarn})
}

// startServeConfig runs serve with cfg and waits until it listens.
func startServeConfig(t *testing.T, cfg serveConfig) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{out: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		s.done <- serve(ctx, cfg, s.out, func(addr string) { ready <- addr })
	}()
	select {
	case s.addr = <-ready:
	case err := <-s.done:
		cancel()
		t.Fatalf("serve returned before listening: %v", err)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("serve did not become ready")
	}
	s.base = baseURLOf(s.addr)
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop cancels the server's context and checks serve returns nil.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve returned %v after cancel, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("serve did not return after cancel")
	}
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// call sends one request and returns status and body.
func call(t *testing.T, method, url, auth, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// credentialKeys is the contract of `app create --json`; bootstrap.json
// adds admin_token.
var credentialKeys = []string{"application_id", "base_url", "bot_token", "client_id", "client_secret",
	"guild_id", "owner_bearer_token", "owner_user_id", "public_key"}

var bootstrapKeys = []string{"admin_token", "application_id", "base_url", "bot_token", "channel_id", "client_id", "client_secret",
	"guild_id", "owner_bearer_token", "owner_client_token", "owner_user_id", "public_key"}

// worldKeys are the keys of bootstrap.json that name the demo world: a
// first start writes them, a data directory from before has none.
var worldKeys = []string{"world_id", "world_name"}

// checkCredentials asserts raw is a JSON object with exactly the
// credential keys (bootstrap.json's when what names it, with or without
// both worldKeys), all non-empty strings, and returns it.
func checkCredentials(t *testing.T, what string, raw []byte) map[string]string {
	t.Helper()
	want := credentialKeys
	if strings.Contains(what, "bootstrap.json") {
		want = bootstrapKeys
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: not a JSON object: %v\n%s", what, err, raw)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if _, ok := m["world_id"]; ok && strings.Contains(what, "bootstrap.json") {
		want = slices.Sorted(slices.Values(append(slices.Clone(want), worldKeys...)))
	}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: keys %v, want exactly %v", what, keys, want)
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok || s == "" {
			t.Errorf("%s: %s = %#v, want a non-empty string", what, k, v)
		}
		out[k] = s
	}
	return out
}

// createGuildCommand creates a command in a guild with a bot token.
func createGuildCommand(t *testing.T, base, appID, guildID, token, name string) string {
	t.Helper()
	status, body := call(t, "POST", base+"/api/v10/applications/"+appID+"/guilds/"+guildID+"/commands",
		"Bot "+token, `{"name":"`+name+`","description":"Created by the CLI test"}`)
	if status != http.StatusCreated {
		t.Fatalf("create %s in guild %s: %d %s", name, guildID, status, body)
	}
	var c struct {
		ID      string `json:"id"`
		GuildID string `json:"guild_id"`
	}
	if err := json.Unmarshal(body, &c); err != nil || c.ID == "" || c.GuildID != guildID {
		t.Fatalf("create %s: %s (%v)", name, body, err)
	}
	return c.ID
}

func listGuildCommands(t *testing.T, base, appID, guildID, token string) []string {
	t.Helper()
	status, body := call(t, "GET", base+"/api/v10/applications/"+appID+"/guilds/"+guildID+"/commands", "Bot "+token, "")
	if status != http.StatusOK {
		t.Fatalf("list guild %s: %d %s", guildID, status, body)
	}
	var cmds []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(body, &cmds); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	sort.Strings(names)
	return names
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServe(t, dir)

	// Health.
	if status, body := call(t, "GET", srv.base+"/healthz", "", ""); status != http.StatusOK {
		t.Fatalf("healthz: %d %s", status, body)
	}

	// First run: bootstrap.json with exactly the contract's keys, 0600.
	path := filepath.Join(dir, "bootstrap.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("bootstrap.json: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("bootstrap.json mode %o, want 600", perm)
	}
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	creds := checkCredentials(t, "bootstrap.json", original)
	if creds["base_url"] != srv.base {
		t.Errorf("base_url %q, want %q", creds["base_url"], srv.base)
	}
	if creds["client_id"] != creds["application_id"] {
		t.Errorf("client_id %q differs from application_id %q", creds["client_id"], creds["application_id"])
	}
	if out := srv.out.String(); !strings.Contains(out, path) || !strings.Contains(out, creds["bot_token"]) {
		t.Errorf("first-run output does not point at the credentials:\n%s", out)
	}

	// The bootstrapped bot token works, and so does the owner's Bearer token.
	app, guild, bot := creds["application_id"], creds["guild_id"], creds["bot_token"]
	cmdID := createGuildCommand(t, srv.base, app, guild, bot, "ping")
	status, body := call(t, "PUT", srv.base+"/api/v10/applications/"+app+"/guilds/"+guild+"/commands/"+cmdID+"/permissions",
		"Bearer "+creds["owner_bearer_token"], `{"permissions":[{"id":"`+guild+`","type":1,"permission":false}]}`)
	if status != http.StatusOK {
		t.Errorf("edit permissions with the owner's token: %d %s", status, body)
	}

	// The demo guild's #general, where the owner's client token sees the
	// command picker (with /ping in it).
	checkDemoChannel(t, srv.base, creds, "ping")

	// app create while the server runs: the new app works at once.
	getenv := envMap(map[string]string{"SLASHD_ADDR": srv.addr})
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"app", "create", "--data", dir, "--name", "second", "--json"}, getenv, &out, &errOut); err != nil {
		t.Fatalf("app create: %v (stderr %s)", err, errOut.String())
	}
	second := checkCredentials(t, "app create --json", out.Bytes())
	if second["base_url"] != srv.base {
		t.Errorf("app create: base_url %q, want %q (from SLASHD_ADDR)", second["base_url"], srv.base)
	}
	if second["application_id"] == app || second["guild_id"] == guild || second["bot_token"] == bot {
		t.Errorf("app create reused the first app's credentials: %v", second)
	}
	createGuildCommand(t, srv.base, second["application_id"], second["guild_id"], second["bot_token"], "second-ping")
	// The second app is not installed in the first app's guild.
	status, body = call(t, "GET", srv.base+"/api/v10/applications/"+second["application_id"]+"/guilds/"+guild+"/commands",
		"Bot "+second["bot_token"], "")
	if status < 400 {
		t.Errorf("second app in the first app's guild: %d %s", status, body)
	}

	// guild create --install: the running server lets the app use it at once.
	out.Reset()
	errOut.Reset()
	if err := run(context.Background(), []string{"guild", "create", "--data", dir, "--name", "g2", "--install", app, "--json"}, getenv, &out, &errOut); err != nil {
		t.Fatalf("guild create: %v (stderr %s)", err, errOut.String())
	}
	var g2 map[string]any
	if err := json.Unmarshal(out.Bytes(), &g2); err != nil {
		t.Fatalf("guild create output %q: %v", out.String(), err)
	}
	g2ID, ok := g2["guild_id"].(string)
	if len(g2) != 1 || !ok || g2ID == "" || g2ID == guild {
		t.Fatalf("guild create output %s, want {\"guild_id\": \"<new id>\"}", out.String())
	}
	g2Cmd := createGuildCommand(t, srv.base, app, g2ID, bot, "in-g2")
	// The app's owner owns the new guild, so their Bearer token may edit there.
	status, body = call(t, "PUT", srv.base+"/api/v10/applications/"+app+"/guilds/"+g2ID+"/commands/"+g2Cmd+"/permissions",
		"Bearer "+creds["owner_bearer_token"], `{"permissions":[{"id":"`+g2ID+`","type":1,"permission":true}]}`)
	if status != http.StatusOK {
		t.Errorf("edit permissions in the new guild: %d %s", status, body)
	}

	// Cancelling the context shuts serve down cleanly.
	srv.stop(t)
	if _, err := httpClient.Get(srv.base + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}

	// Restart on the same data dir: no second bootstrap, everything kept.
	again := startServe(t, dir)
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The restart listens on another port: base_url follows it, nothing
	// else changes.
	restarted := checkCredentials(t, "bootstrap.json after restart", now)
	if restarted["base_url"] != again.base {
		t.Errorf("base_url after restart %q, want %q", restarted["base_url"], again.base)
	}
	restarted["base_url"] = creds["base_url"]
	if !maps.Equal(restarted, creds) {
		t.Errorf("bootstrap.json changed beyond base_url on restart:\n%s\nwas\n%s", now, original)
	}
	if out := again.out.String(); strings.Contains(out, "created a demo application") {
		t.Errorf("restart bootstrapped again:\n%s", out)
	}
	if got := listGuildCommands(t, again.base, app, guild, bot); strings.Join(got, ",") != "ping" {
		t.Errorf("first guild after restart: %v, want [ping]", got)
	}
	if got := listGuildCommands(t, again.base, app, g2ID, bot); strings.Join(got, ",") != "in-g2" {
		t.Errorf("second guild after restart: %v, want [in-g2]", got)
	}
	if got := listGuildCommands(t, again.base, second["application_id"], second["guild_id"], second["bot_token"]); strings.Join(got, ",") != "second-ping" {
		t.Errorf("second app after restart: %v, want [second-ping]", got)
	}
	status, body = call(t, "GET", again.base+"/api/v10/applications/"+app+"/guilds/"+guild+"/commands/"+cmdID+"/permissions", "Bot "+bot, "")
	if status != http.StatusOK || !strings.Contains(string(body), `"permission":false`) {
		t.Errorf("permissions after restart: %d %s", status, body)
	}
	again.stop(t)
}

// checkDemoChannel checks the demo guild has a text channel #general,
// the one bootstrap.json names, and that the owner's client token sees
// the command picker there, listing the commands named.
func checkDemoChannel(t *testing.T, base string, creds map[string]string, commands ...string) {
	t.Helper()
	status, body := call(t, "GET", base+"/admin/v1/guilds/"+creds["guild_id"]+"/channels", "Admin "+creds["admin_token"], "")
	var chs []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type int    `json:"type"`
	}
	if err := json.Unmarshal(body, &chs); status != http.StatusOK || err != nil {
		t.Fatalf("channels of the demo guild: %d %s", status, body)
	}
	if len(chs) != 1 || chs[0].ID != creds["channel_id"] || chs[0].Name != "general" || chs[0].Type != 0 {
		t.Errorf("the demo guild's channels: %s, want #general (%s) alone", body, creds["channel_id"])
	}
	status, body = call(t, "GET", base+"/api/v10/channels/"+creds["channel_id"]+"/application-command-index", creds["owner_client_token"], "")
	var index struct {
		Commands []struct {
			Name string `json:"name"`
		} `json:"application_commands"`
	}
	if err := json.Unmarshal(body, &index); status != http.StatusOK || err != nil {
		t.Fatalf("the owner's command picker in #general: %d %s", status, body)
	}
	var names []string
	for _, c := range index.Commands {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != strings.Join(commands, ",") {
		t.Errorf("the owner's command picker in #general: %v, want %v", names, commands)
	}
}

func TestServeAddressInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr := ln.Addr().String()
	err = serve(ctx, serveConfig{addr: addr, dataDir: t.TempDir()}, io.Discard, func(string) {
		t.Error("ready called on a busy address")
	})
	want := "listen on " + addr + ": address already in use (by another slashd? `slashd healthcheck --addr " + addr +
		"` tells); choose another with --addr HOST:PORT (or SLASHD_ADDR)"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("serve on a busy address: %v\nwant %s", err, want)
	}
	// The side listeners name their own flags.
	err = serve(ctx, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), metricsAddr: addr}, io.Discard, func(string) {
		t.Error("ready called with a busy --metrics-addr")
	})
	if err == nil || !strings.Contains(err.Error(), "metrics: listen on "+addr+": address already in use") ||
		!strings.Contains(err.Error(), "choose another with --metrics-addr HOST:PORT (or SLASHD_METRICS_ADDR)") {
		t.Errorf("serve with a busy --metrics-addr: %v", err)
	}
}

// TestBinaryAddressInUse: the process's own words on a port a real
// listener holds.
func TestBinaryAddressInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	stdout, stderr, code := runBinary(t, []string{"SLASHD_ADDR=" + addr}, "serve", "--data", t.TempDir())
	want := "slashd: listen on " + addr + ": address already in use (by another slashd? `slashd healthcheck --addr " + addr +
		"` tells); choose another with --addr HOST:PORT (or SLASHD_ADDR)\n"
	if code != 1 || !strings.HasSuffix(stderr, want) || strings.Contains(stdout, "slashd listening") {
		t.Errorf("serve on a taken port: exit %d, stdout %q, stderr %q\nwant exit 1 and %q", code, stdout, stderr, want)
	}
}

func TestParseServeFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    serveConfig
		wantErr bool
	}{
		{name: "defaults", want: serveConfig{addr: "127.0.0.1:8080", dataDir: "./slashd-data", rateLimit: true, ui: true, journal: 10000, logLevel: slog.LevelInfo,
			natsPrefix: "slashd.events", nodeID: -1, logFormat: "text", limits: defaultAbuseLimits(),
			filesQuota: 1 << 30, uploadBudget: 250 << 20}},
		{
			name: "environment",
			env: map[string]string{"SLASHD_ADDR": "0.0.0.0:9999", "SLASHD_DATA": "/srv/slashd", "SLASHD_RATELIMIT": "false",
				"SLASHD_LOG_LEVEL": "debug", "SLASHD_NATS_PREFIX": "cluster2.events", "SLASHD_NODE_ID": "7",
				"SLASHD_LOG_FORMAT": "json", "SLASHD_METRICS_ADDR": "127.0.0.1:9090", "SLASHD_PPROF_ADDR": "127.0.0.1:6060",
				"SLASHD_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1", "SLASHD_PUBLIC_URL": "https://slashd.example.com",
				"SLASHD_FILES_QUOTA": "500MB", "SLASHD_UPLOAD_BUDGET": "64MiB"},
			want: serveConfig{addr: "0.0.0.0:9999", dataDir: "/srv/slashd", rateLimit: false, ui: true, journal: 10000, logLevel: slog.LevelDebug,
				natsPrefix: "cluster2.events", nodeID: 7, logFormat: "json", metricsAddr: "127.0.0.1:9090", pprofAddr: "127.0.0.1:6060",
				limits: defaultAbuseLimits(), trustedProxies: realip.Trusted{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")},
				publicURL: "https://slashd.example.com", filesQuota: 500e6, uploadBudget: 64 << 20},
		},
		{
			name: "flags beat environment",
			args: []string{"--addr", "127.0.0.1:1", "--data", "/tmp/x", "--ratelimit=true", "--log-level", "error",
				"--nats-prefix", "c3", "--node-id", "1023", "--log-format", "text", "--metrics-addr", "127.0.0.1:2",
				"--pprof-addr", "127.0.0.1:3", "--files-quota", "2GiB", "--public-url", "http://10.0.0.1:8080"},
			env: map[string]string{"SLASHD_ADDR": "0.0.0.0:9999", "SLASHD_DATA": "/srv/slashd", "SLASHD_RATELIMIT": "false",
				"SLASHD_LOG_FORMAT": "json", "SLASHD_METRICS_ADDR": "127.0.0.1:9090", "SLASHD_PPROF_ADDR": "127.0.0.1:6060",
				"SLASHD_FILES_QUOTA": "1MB", "SLASHD_PUBLIC_URL": "https://elsewhere.example.com"},
			want: serveConfig{addr: "127.0.0.1:1", dataDir: "/tmp/x", rateLimit: true, ui: true, journal: 10000, logLevel: slog.LevelError, natsPrefix: "c3", nodeID: 1023,
				logFormat: "text", metricsAddr: "127.0.0.1:2", pprofAddr: "127.0.0.1:3", limits: defaultAbuseLimits(),
				publicURL: "http://10.0.0.1:8080", filesQuota: 2 << 30, uploadBudget: 250 << 20},
		},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: true},
		{name: "bad SLASHD_LOG_FORMAT", env: map[string]string{"SLASHD_LOG_FORMAT": "JSON"}, wantErr: true},
		{name: "bad SLASHD_RATELIMIT", env: map[string]string{"SLASHD_RATELIMIT": "maybe"}, wantErr: true},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: true},
		{name: "node id too large", args: []string{"--node-id", "1024"}, wantErr: true},
		{name: "bad SLASHD_NODE_ID", env: map[string]string{"SLASHD_NODE_ID": "x"}, wantErr: true},
		{name: "unknown flag", args: []string{"--port", "1"}, wantErr: true},
		{name: "bad --trusted-proxies", args: []string{"--trusted-proxies", "10.0.0.0/8,proxy.local"}, wantErr: true},
		{name: "bad SLASHD_TRUSTED_PROXIES", env: map[string]string{"SLASHD_TRUSTED_PROXIES": "10.0.0.0/99"}, wantErr: true},
		{name: "bad --files-quota", args: []string{"--files-quota", "lots"}, wantErr: true},
		{name: "zero SLASHD_FILES_QUOTA", env: map[string]string{"SLASHD_FILES_QUOTA": "0"}, wantErr: true},
		{name: "bad --public-url", args: []string{"--public-url", "slashd.example.com"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServeFlags(tc.args, envMap(tc.env))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	getenv := envMap(nil)
	cases := []struct {
		name string
		args []string
		want string // substring of the error
	}{
		{"no command", nil, "no command"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"app without verb", []string{"app"}, "app: missing verb (one of create)"},
		{"app unknown verb", []string{"app", "delete"}, `app: unknown verb "delete"`},
		{"guild unknown verb", []string{"guild", "list"}, `guild: unknown verb "list"`},
		{"app create without name", []string{"app", "create", "--data", dir}, "--name: This field is required (BASE_TYPE_REQUIRED)"},
		{"guild create without name", []string{"guild", "create", "--data", dir}, "--name: This field is required"},
		{"guild create bad install id", []string{"guild", "create", "--data", dir, "--name", "gg", "--install", "abc"}, "--install"},
		{"guild create unknown app", []string{"guild", "create", "--data", dir, "--init", "--name", "gg", "--install", "123456789012345678"}, "--install"},
		{"serve bad flag", []string{"serve", "--nope"}, "nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tc.args, getenv, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run %q: %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}

	var out bytes.Buffer
	if err := run(context.Background(), []string{"help"}, getenv, &out, io.Discard); err != nil || !strings.Contains(out.String(), "\n  serve ") {
		t.Errorf("help: %v %q", err, out.String())
	}
}

// TestCLIWithoutServer: with --init, the admin verbs work on a data dir
// no server has opened yet, and the data dir is SLASHD_DATA when --data
// is left out.
func TestCLIWithoutServer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fresh")
	getenv := envMap(map[string]string{"SLASHD_DATA": dir})
	var out bytes.Buffer
	if err := run(context.Background(), []string{"app", "create", "--init", "--name", "solo", "--json"}, getenv, &out, io.Discard); err != nil {
		t.Fatalf("app create: %v", err)
	}
	creds := checkCredentials(t, "app create", out.Bytes())
	if creds["base_url"] != "http://127.0.0.1:8080" {
		t.Errorf("base_url %q, want the default address", creds["base_url"])
	}
	if _, err := os.Stat(filepath.Join(dir, "slashd.db")); err != nil {
		t.Errorf("SLASHD_DATA not used: %v", err)
	}
	// Human-readable output names the app.
	out.Reset()
	if err := run(context.Background(), []string{"guild", "create", "--name", "plain"}, getenv, &out, io.Discard); err != nil {
		t.Fatalf("guild create: %v", err)
	}
	if !strings.Contains(out.String(), "guild ") || !strings.Contains(out.String(), "created") {
		t.Errorf("guild create output %q", out.String())
	}

	// A server started later on this dir finds an app and does not
	// bootstrap, so it writes no bootstrap.json.
	srv := startServe(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "bootstrap.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bootstrap.json on a dir that already has an app: %v", err)
	}
	createGuildCommand(t, srv.base, creds["application_id"], creds["guild_id"], creds["bot_token"], "solo-ping")
	srv.stop(t)
}
