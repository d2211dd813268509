package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
)

// TestAdminTokenCommand: admin-token, run as its own process beside a
// running server, mints a token the server accepts at once, revokes the
// others (or keeps them with --keep-old), and keeps bootstrap.json's
// admin_token current without ever recreating a deleted file.
func TestAdminTokenCommand(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	srv := startServe(t, dir)
	credsPath := filepath.Join(dir, bootstrap.FileName)
	creds := readCredentials(t, credsPath)
	works := func(token string) int {
		t.Helper()
		status, _ := call(t, "GET", srv.base+"/admin/v1/applications", "Admin "+token, "")
		return status
	}
	if got := works(creds["admin_token"]); got != http.StatusOK {
		t.Fatalf("the first run's admin token: %d", got)
	}

	adminToken := func(args ...string) adminTokenResult {
		t.Helper()
		stdout, stderr, code := runBinary(t, nil, append([]string{"admin-token", "--data", dir, "--json"}, args...)...)
		var res adminTokenResult
		if code != 0 || stderr != "" || json.Unmarshal([]byte(stdout), &res) != nil || len(res.AdminToken) != 43 {
			t.Fatalf("admin-token %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		return res
	}

	// By default the others are revoked.
	first := adminToken()
	if first.Revoked != 1 || first.BootstrapJSON != credsPath {
		t.Errorf("admin-token: %+v, want 1 revoked and %s updated", first, credsPath)
	}
	if got := works(first.AdminToken); got != http.StatusOK {
		t.Errorf("the new admin token on the running server: %d, want 200", got)
	}
	if got := works(creds["admin_token"]); got != http.StatusUnauthorized {
		t.Errorf("the revoked admin token on the running server: %d, want 401", got)
	}
	after := readCredentials(t, credsPath)
	if after["admin_token"] != first.AdminToken {
		t.Errorf("bootstrap.json's admin_token %q, want the new one", after["admin_token"])
	}
	after["admin_token"] = creds["admin_token"]
	for k, v := range creds {
		if after[k] != v {
			t.Errorf("bootstrap.json's %s changed: %q, was %q", k, after[k], v)
		}
	}

	// --keep-old: both work.
	second := adminToken("--keep-old")
	if second.Revoked != 0 {
		t.Errorf("--keep-old revoked %d", second.Revoked)
	}
	for _, tok := range []string{first.AdminToken, second.AdminToken} {
		if got := works(tok); got != http.StatusOK {
			t.Errorf("with --keep-old, an admin token answers %d, want 200", got)
		}
	}

	// A deleted bootstrap.json: the token is printed, the file is not
	// recreated.
	if err := os.Remove(credsPath); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBinary(t, nil, "admin-token", "--data", dir)
	token, _, _ := strings.Cut(strings.TrimPrefix(stdout, "admin token: "), "\n")
	want := "admin token: " + token + "\n  revoked the 2 other admin tokens\n  no bootstrap.json in " + dir +
		": not recreated; keep the token, it is shown only here\n"
	if code != 0 || stderr != "" || stdout != want || len(token) != 43 {
		t.Errorf("admin-token without bootstrap.json: exit %d, stdout %q, stderr %q\nwant %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(credsPath); !os.IsNotExist(err) {
		t.Errorf("bootstrap.json was recreated: %v", err)
	}
	if got := works(token); got != http.StatusOK {
		t.Errorf("the token printed without bootstrap.json: %d, want 200", got)
	}
	if got := works(second.AdminToken); got != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", got)
	}

	// Not a data directory: refused, as the world verbs refuse it.
	empty := t.TempDir()
	if _, stderr, code := runBinary(t, nil, "admin-token", "--data", empty); code != 1 || !strings.Contains(stderr, "no slashd store in "+empty) {
		t.Errorf("admin-token on an empty directory: exit %d, stderr %q", code, stderr)
	}
}
