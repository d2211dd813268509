package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event/natsbus/natstest"
)

func TestParseServeFlagsNATS(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags(nil, envMap(map[string]string{"SLASHD_NATS": "nats://a:4222"}))
	if err != nil || cfg.nats != "nats://a:4222" {
		t.Errorf("SLASHD_NATS: got %q, %v", cfg.nats, err)
	}
	cfg, err = parseServeFlags([]string{"--nats", "nats://b:4222,nats://c:4222"}, envMap(map[string]string{"SLASHD_NATS": "nats://a:4222"}))
	if err != nil || cfg.nats != "nats://b:4222,nats://c:4222" {
		t.Errorf("--nats beats SLASHD_NATS: got %q, %v", cfg.nats, err)
	}
	if cfg, _ := parseServeFlags(nil, envMap(nil)); cfg.nats != "" {
		t.Errorf("default: got %q, want in-process", cfg.nats)
	}
}

// TestServeWithNATS: serve --nats connects, serves, and drains on
// shutdown.
func TestServeWithNATS(t *testing.T) {
	url := natstest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), logLevel: slog.LevelInfo, nats: url},
			out, func(addr string) { ready <- addr })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("serve returned before listening: %v\n%s", err, out.String())
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not become ready")
	}
	if !strings.Contains(out.String(), "event bus on NATS") {
		t.Errorf("no NATS line in the log:\n%s", out.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after cancel, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return after cancel")
	}
}

// TestServeNATSUnreachable: a node that cannot reach its bus does not
// start.
func TestServeNATSUnreachable(t *testing.T) {
	t.Parallel()
	err := serve(context.Background(), serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), nats: "nats://user:secret@127.0.0.1:1"},
		io.Discard, func(string) { t.Error("serve listened without its bus") })
	if err == nil || !strings.Contains(err.Error(), "connect to NATS") {
		t.Fatalf("got %v, want a NATS connection error", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error shows the password: %v", err)
	}
}
