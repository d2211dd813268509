package drive

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testtool"
)

// NodePackages reports what is missing to run the Node scripts of the
// working directory (a test package's, where `npm ci` installs them):
// node on PATH, or one of pkgs in ./node_modules. Its checks are ones go
// test's cache follows, for testtool.Main and testtool.Probe; it may
// change the working directory for a moment (testtool.LookPath).
func NodePackages(pkgs ...string) error {
	if _, err := testtool.LookPath("node"); err != nil {
		return err
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
			return fmt.Errorf("%s is not installed: %w", pkg, err)
		}
	}
	return nil
}

// StartNode runs `node script args…` (a script of the working directory)
// with env added to the test's environment, as Start does; the Proc is
// named by its command line.
func StartNode(t testing.TB, env []string, script string, args ...string) *Proc {
	t.Helper()
	node, err := exec.LookPath("node") // NodePackages found it
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{script}, args...)
	cmd := exec.Command(node, argv...)
	cmd.Env = append(os.Environ(), env...)
	return Start(t, strings.Join(argv, " "), cmd)
}

// FreePort is a port of 127.0.0.1 nothing listens on now, for a script's
// setting that takes a port number, not a listener. (Another process
// may take it before the script does; the script then fails to listen,
// which its test reports.)
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
