// Package pytest runs a directory's pytest suite from a Go test, so that
// `go test ./...` (the README's one test command, .ci/run's) runs the
// Python kit's tests and the discord.py example's: with Debian's
// /usr/bin/python3 (not a Python earlier on PATH, which would lack
// Debian's python3-discord and python3-pytest), against the slashd
// binary the Go test built (SLASHD_BIN), failing with pytest's output.
package pytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testtool"
)

// Python is Debian's system Python, which .ci/run gives python3-pytest,
// python3-discord and python3-aiohttp.
const Python = "/usr/bin/python3"

// Bound is how long one suite may run: it stops a suite that hangs, long
// after a loaded machine's slowest run (a few seconds).
const Bound = 5 * time.Minute

// Find reports the first of Python and Debian's packages (by their
// __init__.py, e.g. "pytest", "discord") that is missing; go test's
// cache follows the files it stats.
func Find(packages ...string) func() error {
	return func() error {
		files := []string{Python}
		for _, p := range packages {
			files = append(files, "/usr/lib/python3/dist-packages/"+p+"/__init__.py")
		}
		for _, f := range files {
			if _, err := os.Stat(f); err != nil {
				return fmt.Errorf("no %s: %w", f, err)
			}
		}
		return nil
	}
}

// Install is what Find's caller tells a machine without them.
const Install = "apt-get install python3-pytest python3-discord python3-aiohttp (Debian's, for /usr/bin/python3)"

// Run runs `python3 -m pytest -q` in dir with SLASHD_BIN set to slashd
// and no other SLASHD_ variable (the suite starts its own server), and
// fails t with pytest's output unless every test passed. Before, it reads
// every file of the dirs, so that go test's cache sees a change to the
// Python sources and runs the suite again.
func Run(t *testing.T, dir, slashd string, sources ...string) {
	t.Helper()
	testtool.WatchSources(t, append([]string{dir}, sources...)...)
	ctx, cancel := context.WithTimeout(t.Context(), Bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, Python, "-m", "pytest", "-q", "-p", "no:cacheprovider")
	cmd.Dir = dir
	cmd.Env = append(withoutSlashd(os.Environ()), "SLASHD_BIN="+slashd, "PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("pytest in %s: not done within %v\n%s", dir, Bound, out)
	}
	if err != nil {
		t.Fatalf("pytest in %s: %v\n%s", dir, err, out)
	}
	t.Logf("pytest in %s:\n%s", dir, out)
}

// withoutSlashd is env less the SLASHD_ variables: a suite under a
// `slashd test` of its own would otherwise use that server.
func withoutSlashd(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SLASHD_") {
			kept = append(kept, kv)
		}
	}
	return kept
}
