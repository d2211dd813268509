// Package discordjs runs the discord.js example's test suite as its README
// says, `slashd test --world world.json -- node --test`, with the slashd
// binary of this checkout, so that `go test ./...` (and .ci/run, which
// runs `npm ci` here) runs it against the real bot.
package discordjs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

var slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}

// TestMain runs the tests where Node and the example's npm packages are
// installed (.ci/run installs both); elsewhere none runs (under CI that
// fails), as the client suites do.
func TestMain(m *testing.M) {
	code := testtool.Main(m, "TestDiscordJSInstalled", findDiscordJS,
		"install Node.js 20 or later and run `npm ci` in examples/testing/discordjs")
	slashd.Remove()
	os.Exit(code)
}

// findDiscordJS looks for node, discord.js and the kit (a link to
// sdk/js) installed here.
func findDiscordJS() error { return drive.NodePackages("discord.js", "@slashd/testkit") }

// TestDiscordJSInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestDiscordJSInstalled(t *testing.T) { testtool.Probe(t, findDiscordJS) }

// TestExample runs the suite under slashd test, as a developer does.
func TestExample(t *testing.T) {
	bin := slashd.Path(t)
	testtool.WatchSources(t, ".", filepath.Join("..", "..", "..", "sdk", "js"))
	cmd := exec.CommandContext(t.Context(), bin, "test", "--world", "world.json", "--", "node", "--test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("slashd test --world world.json -- node --test: %v\n%s", err, out)
	}
}
