// Package probe is a test package whose test needs the program
// slashd-testtool-probe, for testtool's own test (../../testtool_test.go).
package probe

import (
	"os"
	"os/exec"
	"testing"

	"github.com/slashd/slashd/internal/testtool"
)

func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestProbeInstalled", findProbe, "put slashd-testtool-probe on PATH"))
}

func findProbe() error {
	_, err := testtool.LookPath("slashd-testtool-probe")
	return err
}

func TestProbeInstalled(t *testing.T) { testtool.Probe(t, findProbe) }

func TestProbe(t *testing.T) {
	out, err := exec.Command("slashd-testtool-probe").Output()
	if err != nil || string(out) != "probe\n" {
		t.Fatalf("slashd-testtool-probe: %q, %v", out, err)
	}
}
