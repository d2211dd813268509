// Package slashcreate holds the slash-create tests: its webserver example
// (server.mjs), with its ExpressServer and its FastifyServer, run with
// Node as the app's interactions endpoint, rest.baseURL the only change.
// The Go side plays the app's users.
package slashcreate

import (
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// TestMain runs the tests where Node and slash-create with express and
// fastify (`npm ci` here) are installed; elsewhere none runs ("[no tests
// to run]"), and under CI the package fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestSlashCreateInstalled", findSlashCreate,
		"install Node 18.17+ and run `npm ci` in internal/clienttest/slashcreate"))
}

func findSlashCreate() error { return drive.NodePackages("slash-create", "express", "fastify") }

// TestSlashCreateInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestSlashCreateInstalled(t *testing.T) { testtool.Probe(t, findSlashCreate) }

// startServer runs server.mjs with the named server against e and
// saves it as the app's interactions endpoint (which slashd verifies
// with signed PINGs, as the real service does when a developer saves the
// URL).
func startServer(t *testing.T, e *testenv.Env, w *drive.World, server string) *drive.Proc {
	t.Helper()
	port := strconv.Itoa(drive.FreePort(t)) // serverPort takes a number, not a listener
	p := drive.StartNode(t, []string{"SLASHD_URL=" + e.URL, "SLASHD_APP_ID=" + w.App, "SLASHD_PUBLIC_KEY=" + e.App.PublicKey,
		"SLASHD_BOT_TOKEN=" + e.App.BotToken, "SLASHD_GUILD_ID=" + w.Guild, "SLASHD_SERVER_PORT=" + port}, "server.mjs", server)
	p.Wait(t, "synced", nil, nil)
	p.Wait(t, "started", nil, nil)
	addr := "127.0.0.1:" + port
	// Express's listen() returns before the port is bound.
	testenv.WaitFor(t, server+" listening on "+addr, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	w.SetEndpoint(t, "http://"+addr+"/interactions")
	return p
}

// TestSlashCreateWebserver runs slash-create's webserver example with
// each of its servers: creator.syncCommands() registers the commands in
// the guild, slashd delivers each invocation to the server, signed, and
// slash-create answers in the HTTP response: a plain reply; a reply
// mentioning its caller to an invocation holding a mention (`<@id>`:
// slash-create's ExpressServer checks the signature over the JSON it
// re-serializes, which must then be the bytes slashd signed, so slashd
// must not escape `<`, `>` and `&`); and a reply with a file, answered
// as multipart/form-data.
func TestSlashCreateWebserver(t *testing.T) {
	t.Parallel()
	for _, server := range []string{"express", "fastify"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			w := drive.NewWorld(t, e)
			bob, _ := w.Member(t, w.Guild, "bob")
			app := startServer(t, e, w, server)
			cmds := w.Commands(t, w.Guild)
			for _, name := range []string{"hello", "echo", "report"} {
				if cmds[name].ID == "" {
					t.Fatalf("syncCommands() registered %v, want hello, echo and report", cmds)
				}
			}
			run := func(t *testing.T, name string, options any) drive.Answer {
				t.Helper()
				data := map[string]any{"id": cmds[name].ID, "name": name, "type": 1, "version": cmds[name].Version}
				if options != nil {
					data["options"] = options
				}
				r := w.Invoke(t, w.Client, map[string]any{"type": 2, "data": data})
				if r.Status != http.StatusOK {
					t.Fatalf("/%s %v: %d %s\nthe app's errors: %s", name, options, r.Status, r.Body, app.TakeErrors())
				}
				var a drive.Answer
				r.JSON(t, &a)
				if a.Resource.Type != 4 || a.Resource.Message == nil {
					t.Fatalf("/%s: answer %+v, want a message", name, a)
				}
				app.Wait(t, name, map[string]any{"id": a.Interaction.ID}, nil)
				return a
			}

			t.Run("a reply", func(t *testing.T) {
				a := run(t, "hello", []map[string]any{{"name": "food", "type": 3, "value": "soup"}})
				if got := a.Resource.Message.Content; got != "You like soup? Nice!" {
					t.Errorf("reply %q", got)
				}
			})

			t.Run("a reply with mentions", func(t *testing.T) {
				text := "ask <@" + bob + "> & co > me"
				a := run(t, "echo", []map[string]any{{"name": "text", "type": 3, "value": text}})
				if got, want := a.Resource.Message.Content, "<@"+w.Alice+"> said: "+text; got != want {
					t.Errorf("reply %q, want %q", got, want)
				}
				if m := w.Seen(t, a.Interaction.ResponseMessageID); m == nil || m.Content != a.Resource.Message.Content {
					t.Errorf("alice sees %+v in #general", m)
				}
			})

			t.Run("a reply with a file", func(t *testing.T) {
				a := run(t, "report", nil)
				m := a.Resource.Message
				if m.Content != "Here is your report." || len(m.Attachments) != 1 || m.Attachments[0].Filename != "report.txt" {
					t.Fatalf("reply %+v, want the report with report.txt attached", m)
				}
				// slashd keeps an attachment's name and size; its URL is a
				// placeholder (docs/compat.md).
				if at, want := m.Attachments[0], len("report for alice\n"); at.Size != want {
					t.Errorf("report.txt: %d bytes, want %d", at.Size, want)
				}
				if seen := w.Seen(t, m.ID); seen == nil || len(seen.Attachments) != 1 || seen.Attachments[0].Filename != "report.txt" {
					t.Errorf("alice sees %+v in #general, want the report with report.txt", seen)
				}
			})
		})
	}
}
