// Package oceanic holds the Oceanic.js tests: its README's bot (bot.mjs,
// with the slash commands of its examples), run with Node against slashd
// with Oceanic's defaults and its documented `compress: "zlib-stream"`,
// rest.baseURL the only change. The Go side plays the bot's users.
package oceanic

import (
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// TestMain runs the tests where Node and Oceanic.js (`npm ci` here) are
// installed; elsewhere none runs ("[no tests to run]"), and under CI the
// package fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestOceanicInstalled", findOceanic,
		"install Node 18.13+ and run `npm ci` in internal/clienttest/oceanic"))
}

func findOceanic() error { return drive.NodePackages("oceanic.js") }

// TestOceanicInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestOceanicInstalled(t *testing.T) { testtool.Probe(t, findOceanic) }

// TestOceanicReadmeBot connects the README's bot (REST and, through
// GET /gateway/bot, the gateway with zlib-stream compression, which
// Oceanic also names in IDENTIFY's compress field), registers its
// commands in the guild and has a member run them: each handler reads
// its subcommand with interaction.data.options.getSubCommand(true),
// which needs `"options": []` on a subcommand without options, as the
// real service sends, and answers with interaction.createMessage.
func TestOceanicReadmeBot(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bot := drive.StartNode(t, []string{"SLASHD_URL=" + e.URL, "SLASHD_BOT_TOKEN=" + e.App.BotToken, "SLASHD_GUILD_ID=" + w.Guild},
		"bot.mjs")
	var ready struct {
		User     string   `json:"user"`
		Commands []string `json:"commands"`
	}
	bot.Wait(t, "ready", nil, &ready)
	if ready.User != w.App || !slices.Equal(ready.Commands, []string{"ping", "settings"}) {
		t.Fatalf("ready as %s with commands %v, want the app's bot with ping and settings", ready.User, ready.Commands)
	}
	cmds := w.Commands(t, w.Guild)

	run := func(t *testing.T, name string, options any) drive.Answer {
		t.Helper()
		data := map[string]any{"id": cmds[name].ID, "name": name, "type": 1, "version": cmds[name].Version}
		if options != nil {
			data["options"] = options
		}
		r := w.Invoke(t, w.Client, map[string]any{"type": 2, "data": data})
		if r.Status != http.StatusOK {
			t.Fatalf("/%s %v: %d %s\nthe bot's errors: %s", name, options, r.Status, r.Body, bot.TakeErrors())
		}
		var a drive.Answer
		r.JSON(t, &a)
		return a
	}

	t.Run("ping", func(t *testing.T) {
		a := run(t, "ping", nil)
		if m := a.Resource.Message; m == nil || m.Content != "Pong!" {
			t.Fatalf("answer %+v, want Pong!", a)
		}
		bot.Wait(t, "ping", map[string]any{"id": a.Interaction.ID}, nil)
	})

	// The member's client sends a subcommand's value as it has it; the
	// bot must get `"options": []` where there are none.
	for _, c := range []struct {
		name    string
		options any
		sub     []string
		reply   string
	}{
		{"a subcommand without options", []map[string]any{{"type": 1, "name": "show"}}, []string{"show"}, "No colour set."},
		{"a subcommand with an option", []map[string]any{{"type": 1, "name": "set",
			"options": []map[string]any{{"type": 3, "name": "colour", "value": "teal"}}}}, []string{"set"}, "Colour set to teal."},
		{"a group's subcommand without options", []map[string]any{{"type": 2, "name": "danger",
			"options": []map[string]any{{"type": 1, "name": "reset"}}}}, []string{"danger", "reset"}, "Everything reset."},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := run(t, "settings", c.options)
			if m := a.Resource.Message; m == nil || m.Content != c.reply || m.Flags&64 == 0 {
				t.Fatalf("answer %+v, want %q (ephemeral)", a, c.reply)
			}
			var got struct {
				Sub []string `json:"sub"`
			}
			bot.Wait(t, "settings", map[string]any{"id": a.Interaction.ID}, &got)
			if !slices.Equal(got.Sub, c.sub) {
				t.Errorf("getSubCommand(true) = %v, want %v", got.Sub, c.sub)
			}
		})
	}
	bot.Stop(t)
}
