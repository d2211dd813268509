package main

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeOldCreds writes creds as a slashd from before the demo channel
// wrote bootstrap.json: without channel_id and owner_client_token.
func writeOldCreds(t *testing.T, dir string, creds map[string]string) {
	t.Helper()
	old := maps.Clone(creds)
	delete(old, "channel_id")
	delete(old, "owner_client_token")
	b, err := json.MarshalIndent(old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bootstrap.json"), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestServeCompletesOldBootstrap: a restart on a data directory whose
// bootstrap.json predates the demo channel gives the demo guild its
// #general (taking the one there is, if any) and the owner a client
// token, and writes both into bootstrap.json, every other key kept
// (base_url following the address as always). A later restart changes
// nothing more. A file naming a guild that is gone is left as it is,
// and the server starts all the same.
func TestServeCompletesOldBootstrap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServe(t, dir)
	first := readCredentials(t, filepath.Join(dir, "bootstrap.json"))
	srv.stop(t)

	// restart starts the server again on dir and returns bootstrap.json,
	// checking everything but base_url, channel_id and
	// owner_client_token is as in want.
	restart := func(want map[string]string) (map[string]string, *server) {
		t.Helper()
		s := startServe(t, dir)
		got := readCredentials(t, filepath.Join(dir, "bootstrap.json"))
		if got["base_url"] != s.base {
			t.Errorf("base_url %q, want %q", got["base_url"], s.base)
		}
		for k, v := range want {
			if k != "base_url" && k != "channel_id" && k != "owner_client_token" && got[k] != v {
				t.Errorf("%s changed: %q, was %q", k, got[k], v)
			}
		}
		if fi, err := os.Stat(filepath.Join(dir, "bootstrap.json")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("bootstrap.json: %v, %v; want mode 600", fi, err)
		}
		return got, s
	}

	// The store has #general already: it is the one written in.
	writeOldCreds(t, dir, first)
	got, s := restart(first)
	if got["channel_id"] != first["channel_id"] {
		t.Errorf("channel_id %q, want the existing #general %q", got["channel_id"], first["channel_id"])
	}
	if got["owner_client_token"] == first["owner_client_token"] {
		t.Error("the owner's client token was not minted anew (only its hash is stored)")
	}
	checkDemoChannel(t, s.base, got)
	// The old token still works: nothing was revoked.
	if status, body := call(t, "GET", s.base+"/api/v10/channels/"+got["channel_id"]+"/application-command-index",
		first["owner_client_token"], ""); status != http.StatusOK {
		t.Errorf("the first client token after the upgrade: %d %s", status, body)
	}

	// A store from before the demo channel: the guild has none.
	status, body := call(t, "DELETE", s.base+"/admin/v1/guilds/"+got["guild_id"]+"/channels/"+got["channel_id"], "Admin "+got["admin_token"], "")
	if status != http.StatusNoContent {
		t.Fatalf("delete #general: %d %s", status, body)
	}
	s.stop(t)
	writeOldCreds(t, dir, got)
	upgraded, s := restart(got)
	if upgraded["channel_id"] == got["channel_id"] {
		t.Errorf("channel_id %q: the deleted channel", upgraded["channel_id"])
	}
	checkDemoChannel(t, s.base, upgraded)
	s.stop(t)

	// Nothing lacks: a restart keeps the file (base_url aside).
	again, s := restart(upgraded)
	again["base_url"] = upgraded["base_url"]
	if !maps.Equal(again, upgraded) {
		t.Errorf("a restart changed bootstrap.json:\n%v\nwas\n%v", again, upgraded)
	}

	// A file naming a guild the store no longer has: left as it is.
	status, body = call(t, "DELETE", s.base+"/admin/v1/guilds/"+again["guild_id"], "Admin "+again["admin_token"], "")
	if status != http.StatusNoContent {
		t.Fatalf("delete the demo guild: %d %s", status, body)
	}
	s.stop(t)
	writeOldCreds(t, dir, again)
	before, err := os.ReadFile(filepath.Join(dir, "bootstrap.json"))
	if err != nil {
		t.Fatal(err)
	}
	s = startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dir, logLevel: slog.LevelWarn})
	after, err := os.ReadFile(filepath.Join(dir, "bootstrap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]string
	if json.Unmarshal(before, &b) != nil || json.Unmarshal(after, &a) != nil {
		t.Fatalf("bootstrap.json: %s", after)
	}
	a["base_url"] = b["base_url"]
	if !maps.Equal(a, b) {
		t.Errorf("bootstrap.json of a deleted guild changed:\n%s\nwas\n%s", after, before)
	}
	if out := s.out.String(); !strings.Contains(out, "could not complete bootstrap.json") {
		t.Errorf("no warning about the file:\n%s", out)
	}
}
