// Package discordpy runs the discord.py example's pytest suite (bot.py,
// tested with the Python kit) against a slashd binary built from this
// checkout, so that `go test ./...` runs it.
package discordpy

import (
	"os"
	"testing"

	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/gobuild"
	"github.com/slashd/slashd/internal/testtool/pytest"
)

var slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}

var find = pytest.Find("pytest", "discord", "aiohttp")

// TestMain runs the suite where Debian's python3-pytest and
// python3-discord are installed; elsewhere no test runs (under CI, that
// fails).
func TestMain(m *testing.M) {
	code := testtool.Main(m, "TestDiscordPyInstalled", find, pytest.Install)
	slashd.Remove()
	os.Exit(code)
}

func TestDiscordPyInstalled(t *testing.T) { testtool.Probe(t, find) }

func TestDiscordPyExample(t *testing.T) {
	pytest.Run(t, ".", slashd.Path(t), "../../../sdk/python/slashd_testkit")
}
