// Package testtool is for test packages whose every test needs a program
// from outside Go (Chromium for the consent page's browser test, Node for
// the discord.js tests). A plain `go test ./...` prints one line per
// passing package, so a skip inside a package goes unseen. With Main in
// its TestMain, a package whose program is missing runs no test, and the
// summary line says so:
//
//	ok  	github.com/slashd/slashd/internal/oauth/browsertest	0.012s [no tests to run]
//
// Under CI (the environment variable CI is set, as .ci/run sets it) a
// missing program fails the package instead.
//
// go test caches a passing run, keyed on the environment variables, the
// files inside the module and the working directories the tests looked
// at, as the test binary records them while m.Run runs (not before: a
// check made in TestMain itself goes unrecorded). A program on PATH is a
// file outside the module, which the cache does not follow; a run that
// found it missing would be reported again, "(cached)", after it was
// installed. Hence the probe test that Main runs (see Main) and
// LookPath's visits to the directories on PATH.
package testtool

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// LookPath returns the path of the first of names found on PATH, as
// exec.LookPath finds it.
//
// When none is found, it visits every directory on PATH (os.Chdir there,
// then back): go test's cache keys a run on the status of the working
// directories a test had, modification time included, wherever they
// are, so installing the program later (a new entry in one of those
// directories) makes the next run miss the cache. It changes the
// process's working directory for a moment: call it only from a test
// that runs alone (not parallel) or from TestMain.
func LookPath(names ...string) (string, error) {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	watchPath()
	return "", fmt.Errorf("no %s on PATH", strings.Join(names, " or "))
}

// watchPath puts every directory on PATH among the test's inputs.
func watchPath() {
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	defer func() { _ = os.Chdir(wd) }()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(dir) {
			_ = os.Chdir(dir) // one that does not exist is recorded too
		}
	}
}

// Main runs m's tests when find finds what they need, and returns the
// exit code for os.Exit. find reports what is missing (its checks must
// be ones go test's cache follows: LookPath, os.Stat of files in the
// module); probe names the package's test that checks again with Probe.
//
// When something is missing, Main says what and how to install it
// (install), and under CI it fails. Otherwise it runs the probe test
// alone, so that find's checks are recorded as the run's inputs, then no
// test at all, so that go test's summary line ends with "[no tests to
// run]" (m.Run twice: the testing package supports it).
func Main(m *testing.M, probe string, find func() error, install string) int {
	flag.Parse()
	missing := find()
	if missing == nil || flag.Lookup("test.list").Value.String() != "" {
		return m.Run()
	}
	if os.Getenv("CI") != "" {
		fmt.Fprintf(os.Stderr, "FAIL: %v: %s (CI is set: these tests must run)\n", missing, install)
		return 1
	}
	fmt.Printf("no test runs: %v (%s)\n", missing, install)
	for _, run := range []string{"^" + probe + "$", "^$"} {
		if err := flag.Set("test.run", run); err != nil {
			fmt.Fprintf(os.Stderr, "testtool: select tests %q: %v\n", run, err)
			return 1
		}
		if code := m.Run(); code != 0 {
			return code
		}
	}
	return 0
}

// Probe is the body of the probe test Main runs: it fails t (under CI)
// or skips it when find reports something missing. Where the tools are
// installed, it passes, as the package's first test.
func Probe(t *testing.T, find func() error) {
	t.Helper()
	if err := find(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI is set: these tests must run)", err)
		}
		t.Skip(err)
	}
}
