// Package testkit runs the JavaScript test kit's own tests (test/*.test.js)
// with Node's test runner against the slashd binary of this checkout, so
// that `go test ./...` (and .ci/run) runs them.
package testkit

import (
	"os"
	"os/exec"
	"testing"

	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

var slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}

// TestMain runs the tests where Node is installed; elsewhere none runs
// (under CI that fails), as the client suites do.
func TestMain(m *testing.M) {
	code := testtool.Main(m, "TestNodeInstalled", findNode, "install Node.js 20 or later")
	slashd.Remove()
	os.Exit(code)
}

func findNode() error {
	_, err := testtool.LookPath("node")
	return err
}

// TestNodeInstalled is the check TestMain relies on, made where go test's
// cache sees it.
func TestNodeInstalled(t *testing.T) { testtool.Probe(t, findNode) }

// TestKit runs `node --test` here with SLASHD_BIN set: each test file
// starts its own server with the kit's start().
func TestKit(t *testing.T) {
	bin := slashd.Path(t)
	testtool.WatchSources(t, ".")
	cmd := exec.CommandContext(t.Context(), "node", "--test")
	cmd.Env = append(os.Environ(), "SLASHD_BIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}
