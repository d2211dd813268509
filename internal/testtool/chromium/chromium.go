// Package chromium starts the headless Chromium that the browser tests
// (the consent page's, the playground's) drive with chromedp: how a test
// package finds it (with testtool.Main, so that a machine without one
// runs no test and says so, and CI fails), and one browser per test with
// the flags this machine needs (no sandbox as root, no background
// networking, which the closed network refuses).
package chromium

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/testtool"
)

// names are the names a Chromium goes by on PATH.
var names = []string{"chromium", "chromium-browser", "google-chrome"}

// Main is a browser test package's TestMain body: the tests run where a
// Chromium is installed (.ci/run installs Debian's). The package must
// define TestChromiumInstalled as func(t) { chromium.Probe(t) }.
func Main(m *testing.M) int {
	return testtool.Main(m, "TestChromiumInstalled", find, "apt-get install chromium")
}

func find() error {
	_, err := testtool.LookPath(names...)
	return err
}

// Find reports whether a Chromium is on PATH, for a package that needs
// one and more (Node and npm packages, say) and so combines the checks in
// its own testtool.Main and testtool.Probe. Like Main, call it from
// TestMain or a test that runs alone (testtool.LookPath).
func Find() error { return find() }

// Probe is the check Main relies on, made where go test's cache sees it.
func Probe(t *testing.T) { testtool.Probe(t, find) }

// path is the browser Main found.
func path(t *testing.T) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH")
	return ""
}

// Browser starts a headless Chromium with a window of width × height
// for the test, and returns its context, which ends after timeout (a
// ceiling for a loaded machine, not a wait) or with the test.
func Browser(t *testing.T, width, height int, timeout time.Duration) context.Context {
	t.Helper()
	// Chromium leaves directories of its own in $TMPDIR (one a browser,
	// never removed): they go in one removed after the browser ends. Its
	// path stays short: Chromium puts a Unix socket there (108 bytes at
	// most), which t.TempDir's long test-named paths can overflow.
	tmp, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatalf("chromium's temporary directory: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR="+tmp),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}
