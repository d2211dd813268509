package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseTargets(t *testing.T) {
	t.Parallel()
	got, err := parseTargets(defaultTargets)
	want := []target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
		{"windows", "amd64"}, {"windows", "arm64"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("default targets: %v, %v", got, err)
	}
	for _, bad := range []string{"linux", "linux/", "/amd64", "linux/amd64,", ""} {
		if _, err := parseTargets(bad); err == nil {
			t.Errorf("parseTargets(%q): no error", bad)
		}
	}
}

func TestArtifactName(t *testing.T) {
	t.Parallel()
	if got := artifactName("v1.2.3", target{"windows", "arm64"}); got != "slashd-v1.2.3-windows-arm64.exe" {
		t.Errorf("windows: %q", got)
	}
	if got := artifactName("v1.2.3", target{"darwin", "amd64"}); got != "slashd-v1.2.3-darwin-amd64" {
		t.Errorf("darwin: %q", got)
	}
}

func TestReadStampRejectsBadVersions(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"v1/2", "-v1", "v1 2"} {
		if _, err := readStamp(t.Context(), ".", v); err == nil {
			t.Errorf("version %q: no error", v)
		}
	}
}

// hostRelease is the release of this machine's platform that TestMain
// builds before the tests start, so that no test's deadline (nor go
// test's -timeout) includes the build: with empty caches on a loaded
// machine it has taken minutes.
var hostRelease struct {
	out              string
	stdout, progress bytes.Buffer
	err              error
}

// hostReleaseBound only stops a release build that hangs.
const hostReleaseBound = 15 * time.Minute

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "slashd-release-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hostRelease.out = dir
	ctx, cancel := context.WithTimeout(context.Background(), hostReleaseBound)
	hostRelease.err = release(ctx, "v0.0.0-releasetest", dir, runtime.GOOS+"/"+runtime.GOARCH,
		&hostRelease.stdout, &hostRelease.progress)
	cancel()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestReleaseHostTarget checks the release binary of this machine's
// platform (built by TestMain) by running it: the version and the commit
// are stamped, and SHA256SUMS holds its checksum.
func TestReleaseHostTarget(t *testing.T) {
	t.Parallel()
	if err := hostRelease.err; err != nil {
		t.Fatalf("release: %v\n%s", err, hostRelease.progress.String())
	}
	out, stdout := hostRelease.out, &hostRelease.stdout
	bin := filepath.Join(out, artifactName("v0.0.0-releasetest", target{runtime.GOOS, runtime.GOARCH}))
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	wantSums := hex.EncodeToString(sum[:]) + "  " + filepath.Base(bin) + "\n"
	if stdout.String() != wantSums {
		t.Errorf("printed %q, want %q", stdout.String(), wantSums)
	}
	if file, err := os.ReadFile(filepath.Join(out, "SHA256SUMS")); err != nil || string(file) != wantSums {
		t.Errorf("SHA256SUMS %q, %v; want %q", file, err, wantSums)
	}

	b, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", bin, err)
	}
	var info struct {
		Version, Revision, Time string
		Modified                bool
	}
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("version --json: %s: %v", b, err)
	}
	if info.Version != "v0.0.0-releasetest" {
		t.Errorf("version %q, want the stamp", info.Version)
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Logf("no git here (%v): the revision is not checked", err)
		return
	}
	if info.Revision != strings.TrimSpace(string(rev)) || !strings.HasSuffix(info.Time, "Z") {
		t.Errorf("revision %q at %q, want %s in UTC", info.Revision, info.Time, rev)
	}
}
