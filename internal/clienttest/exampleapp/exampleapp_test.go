// Package exampleapp holds the test of Discord's getting-started example
// app pattern (github.com/discord/discord-example-app): an express app
// guarded by discord-interactions' verifyKeyMiddleware (app.js here), its
// command registration script (commands.js) and its DiscordRequest helper
// (utils.js), run with Node as the app's interactions endpoint, the API's
// root URL the only change. The Go side plays the two players.
package exampleapp

import (
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// TestMain runs the tests where Node, discord-interactions and express
// (`npm ci` here) are installed; elsewhere none runs ("[no tests to
// run]"), and under CI the package fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestExampleAppInstalled", findExampleApp,
		"install Node 18.4+ and run `npm ci` in internal/clienttest/exampleapp"))
}

func findExampleApp() error { return drive.NodePackages("discord-interactions", "express") }

// TestExampleAppInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestExampleAppInstalled(t *testing.T) { testtool.Probe(t, findExampleApp) }

// node runs script with the app's settings (the example's .env: APP_ID,
// DISCORD_TOKEN, PUBLIC_KEY, PORT) and where slashd is.
func node(t *testing.T, e *testenv.Env, port int, script string) *drive.Proc {
	t.Helper()
	return drive.StartNode(t, []string{"SLASHD_URL=" + e.URL, "APP_ID=" + e.App.ApplicationID, "DISCORD_TOKEN=" + e.App.BotToken,
		"PUBLIC_KEY=" + e.App.PublicKey, "PORT=" + strconv.Itoa(port)}, script)
}

// TestExampleAppChallenge plays the example app's rock-paper-scissors
// game. Alice runs /challenge; bob clicks Accept, and the app answers
// with an ephemeral select, then deletes the challenge (the message the
// button is on, which alice's interaction made) with the click's token;
// bob picks from the select, and the app answers with the result, then
// edits the ephemeral message the select is on (which the click on
// Accept made) with the select's token. The real service lets a
// component interaction's token reach the message its component is on.
func TestExampleAppChallenge(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bob, bobClient := w.Member(t, w.Guild, "bob")

	var registered struct {
		Commands []string `json:"commands"`
	}
	reg := node(t, e, 0, "commands.js")
	reg.Wait(t, "registered", nil, &registered)
	if len(registered.Commands) != 1 || registered.Commands[0] != "challenge" {
		t.Fatalf("commands.js registered %v", registered.Commands)
	}
	port := drive.FreePort(t) // the app's PORT setting
	app := node(t, e, port, "app.js")
	app.Wait(t, "listening", nil, nil)
	w.SetEndpoint(t, "http://127.0.0.1:"+strconv.Itoa(port)+"/interactions")

	challenge := w.Run(t, w.Commands(t, "")["challenge"], []map[string]any{{"name": "object", "type": 3, "value": "rock"}})
	board := challenge.Resource.Message
	if board == nil || board.Content != "Rock papers scissors challenge from <@"+w.Alice+">" || len(board.Components) != 1 ||
		board.Components[0].Components[0].CustomID != "accept_button_"+challenge.Interaction.ID {
		t.Fatalf("/challenge answered %+v, want the challenge with its Accept button", challenge)
	}

	answer := func(t *testing.T, r testenv.Response) drive.Answer {
		t.Helper()
		if r.Status != http.StatusOK {
			t.Fatalf("%d %s\nthe app's errors: %s", r.Status, r.Body, app.TakeErrors())
		}
		var a drive.Answer
		r.JSON(t, &a)
		if a.Resource.Type != 4 || a.Resource.Message == nil {
			t.Fatalf("answer %+v, want a message", a)
		}
		return a
	}

	accept := answer(t, w.Click(t, bobClient, *board, "accept_button_"+challenge.Interaction.ID))
	picker := accept.Resource.Message
	if picker.Flags&64 == 0 || len(picker.Components) != 1 || picker.Components[0].Components[0].Type != 3 {
		t.Fatalf("Accept answered %+v, want an ephemeral select", picker)
	}
	t.Run("the click's token deletes the challenge", func(t *testing.T) {
		app.Wait(t, "deleted", map[string]any{"id": accept.Interaction.ID, "message": board.ID}, nil)
		if m := w.Seen(t, board.ID); m != nil {
			t.Errorf("alice still sees the challenge: %+v", m)
		}
	})

	t.Run("the select's token edits the select's message", func(t *testing.T) {
		pick := answer(t, w.Invoke(t, bobClient, map[string]any{"type": 3, "message_id": picker.ID,
			"data": map[string]any{"component_type": 3, "custom_id": picker.Components[0].Components[0].CustomID,
				"values": []string{"paper"}}}))
		if want := "<@" + bob + ">'s paper beats <@" + w.Alice + ">'s rock"; pick.Resource.Message.Content != want {
			t.Errorf("the result %q, want %q", pick.Resource.Message.Content, want)
		}
		var edited struct {
			Content    string `json:"content"`
			Components int    `json:"components"`
		}
		app.Wait(t, "edited", map[string]any{"id": pick.Interaction.ID, "message": picker.ID}, &edited)
		if edited.Content != "Nice choice!" || edited.Components != 0 {
			t.Errorf("the edited select message: %+v", edited)
		}
	})
}
