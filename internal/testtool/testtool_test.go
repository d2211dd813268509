package testtool_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// probePkg is a package whose one test needs the program
// slashd-testtool-probe.
const probePkg = "./testdata/probe"

// TestMissingProgram runs a plain `go test` (the package-list mode
// .ci/run's and the README's command use) of probePkg, with PATH as a
// user's environment has it: first without the program, then with it
// installed. The summary line says when no test ran; a run that skipped
// for a missing program is not reported again from the cache once the
// program is there; under CI a missing program fails the package.
func TestMissingProgram(t *testing.T) {
	goTool, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	// The probe package's files, read here so that this test's cached
	// result follows them.
	if _, err := os.ReadFile(filepath.Join(probePkg, "probe_test.go")); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir() // a directory on PATH where the program gets installed
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	run := func(ci bool) (summary string, failed bool) {
		t.Helper()
		cmd := exec.Command(goTool, "test", probePkg)
		cmd.Env = append(withoutVars(os.Environ(), "CI", "PATH", "GOFLAGS"), "PATH="+path)
		if ci {
			cmd.Env = append(cmd.Env, "CI=true")
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("go test: %v\n%s", err, out)
		}
		return string(out), err != nil
	}
	noTests := regexp.MustCompile(`(?m)^ok  \t\S+/testdata/probe\t[0-9.]+s \[no tests to run\]$`)
	cached := regexp.MustCompile(`(?m)^ok  \t\S+/testdata/probe\t\(cached\) \[no tests to run\]$`)
	ran := regexp.MustCompile(`(?m)^ok  \t\S+/testdata/probe\t[0-9.]+s$`)

	if out, failed := run(false); failed || !noTests.MatchString(out) {
		t.Fatalf("without the program: %s, want ok … [no tests to run]", out)
	}
	// Nothing changed: the cache answers (so that the miss below is the
	// program's doing).
	if out, failed := run(false); failed || !cached.MatchString(out) {
		t.Fatalf("again without the program: %s, want ok (cached) [no tests to run]", out)
	}
	if out, failed := run(true); !failed || !strings.Contains(out, "no slashd-testtool-probe on PATH") ||
		!strings.Contains(out, "FAIL") {
		t.Fatalf("without the program under CI: %s, want the package to fail and say why", out)
	}

	if err := os.WriteFile(filepath.Join(bin, "slashd-testtool-probe"), []byte("#!/bin/sh\necho probe\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, failed := run(false); failed || !ran.MatchString(out) {
		t.Fatalf("with the program installed: %s, want the test run (no (cached), no [no tests to run])", out)
	}
	if out, failed := run(true); failed || strings.Contains(out, "[no tests to run]") {
		t.Fatalf("with the program under CI: %s, want the test run", out)
	}
}

// withoutVars drops the variables names from env.
func withoutVars(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}
