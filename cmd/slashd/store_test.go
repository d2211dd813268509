package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
)

func TestStoreFlag(t *testing.T) {
	t.Parallel()
	const env, flag = "postgres://env@db/slashd", "postgres://flag@db/slashd"
	cfg, err := parseServeFlags(nil, envMap(map[string]string{"SLASHD_STORE": env}))
	if err != nil || cfg.store != env {
		t.Errorf("SLASHD_STORE: store = %q, %v; want %q", cfg.store, err, env)
	}
	cfg, err = parseServeFlags([]string{"--store", flag}, envMap(map[string]string{"SLASHD_STORE": env}))
	if err != nil || cfg.store != flag {
		t.Errorf("--store over SLASHD_STORE: store = %q, %v; want %q", cfg.store, err, flag)
	}
}

func TestOpenStoreRejectsUnknownStores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := openStore(t.Context(), "mysql://root:hunter2@db/slashd", dir, secrets.Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), "mysql://root:xxxxx@db/slashd") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v, want the URL without its password", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "slashd.db")); !os.IsNotExist(err) {
		t.Errorf("a SQLite database was created: %v", err)
	}
}

// serve and the CLI verbs share a PostgreSQL store: the server's first
// run bootstraps into it, commands written over HTTP land in it, and the
// CLI (by flag or by SLASHD_STORE) adds to it.
func TestServeAndCLIOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	dataDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan string, 1)
	out := &syncBuffer{}
	go func() {
		done <- serve(ctx, serveConfig{addr: "127.0.0.1:0", dataDir: dataDir, store: dsn, logLevel: slog.LevelInfo},
			out, func(addr string) { ready <- addr })
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve returned before listening: %v", err)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("serve did not become ready")
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(stop)
	if !strings.Contains(out.String(), describeStore(dsn)) {
		t.Errorf("log does not name the store %s:\n%s", describeStore(dsn), out.String())
	}

	raw, err := os.ReadFile(filepath.Join(dataDir, bootstrap.FileName))
	if err != nil {
		t.Fatalf("first run wrote no credentials: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "slashd.db")); !os.IsNotExist(err) {
		t.Errorf("serve --store postgres created a SQLite database: %v", err)
	}
	var creds bootstrap.Credentials
	if err := json.Unmarshal(raw, &creds); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost,
		"http://"+addr+"/api/v10/applications/"+creds.ApplicationID+"/guilds/"+creds.GuildID+"/commands",
		strings.NewReader(`{"name":"ping","description":"Ping"}`))
	req.Header.Set("Authorization", "Bot "+creds.BotToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create command: %d %s", resp.StatusCode, body)
	}

	// The CLI writes to the same database while the server runs.
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"app", "create", "--data", t.TempDir(), "--store", dsn, "--name", "second", "--json"},
		envMap(nil), &stdout, io.Discard); err != nil {
		t.Fatalf("app create --store: %v", err)
	}
	stdout.Reset()
	if err := run(t.Context(), []string{"guild", "create", "--data", t.TempDir(), "--name", "by env", "--json"},
		envMap(map[string]string{"SLASHD_STORE": dsn}), &stdout, io.Discard); err != nil {
		t.Fatalf("guild create with SLASHD_STORE: %v", err)
	}
	var g struct {
		GuildID string `json:"guild_id"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &g); err != nil {
		t.Fatalf("guild create: %v: %s", err, stdout.String())
	}
	stop()

	st, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CountApplications(t.Context()); err != nil || n != 2 {
		t.Errorf("applications in PostgreSQL: %d, %v; want 2", n, err)
	}
	appID, _ := snowflake.Parse(creds.ApplicationID)
	guildID, _ := snowflake.Parse(creds.GuildID)
	cs, err := st.Commands(t.Context(), command.Scope{ApplicationID: appID, GuildID: guildID})
	if err != nil || len(cs) != 1 || cs[0].Name != "ping" {
		t.Errorf("commands in PostgreSQL: %+v, %v; want ping", cs, err)
	}
	gid, _ := snowflake.Parse(g.GuildID)
	if _, err := st.Guild(t.Context(), gid); err != nil {
		t.Errorf("guild made by the CLI: %v", err)
	}
}
