package browsertest

import (
	"os"
	"testing"

	"github.com/slashd/slashd/internal/testtool/examplebot"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// exampleBot is examples/bot, built by TestMain before the tests (and
// their browsers' deadlines) start.
var exampleBot = gobuild.Binary{Pkg: examplebot.Package}

// startBot runs examples/bot for the demo app and makes it the app's
// Interactions Endpoint URL.
func (w *world) startBot(t *testing.T) {
	t.Helper()
	w.admin(t, "PUT", "/applications/"+w.creds.ApplicationID+"/interactions-endpoint",
		map[string]any{"interactions_endpoint_url": w.runBot(t)}, nil)
}

// runBot runs examples/bot for the demo app on a free port, waits for
// its start line and returns where it receives interactions.
func (w *world) runBot(t *testing.T) string {
	t.Helper()
	return examplebot.Start(t, &exampleBot, append(os.Environ(), "SLASHD_URL="+w.url, "SLASHD_PUBLIC_KEY="+w.creds.PublicKey)).URL
}
