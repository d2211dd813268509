// Package python runs the Python test kit's own tests (tests/, pytest)
// against a slashd binary built from this checkout, so that `go test
// ./...` runs them.
package python

import (
	"os"
	"testing"

	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/gobuild"
	"github.com/slashd/slashd/internal/testtool/pytest"
)

var slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}

var find = pytest.Find("pytest")

// TestMain runs the suite where Debian's python3-pytest is installed;
// elsewhere no test runs (under CI, that fails).
func TestMain(m *testing.M) {
	code := testtool.Main(m, "TestPytestInstalled", find, pytest.Install)
	slashd.Remove()
	os.Exit(code)
}

func TestPytestInstalled(t *testing.T) { testtool.Probe(t, find) }

func TestPythonKit(t *testing.T) {
	pytest.Run(t, ".", slashd.Path(t))
}
