// Package bottest tests examples/bot the way a bot's CI does with slashd
// and its Go kit, sdk/slashdtest:
//
//	slashd test --world examples/testing/go/world.json -- go test ./examples/testing/go
//
// slashd test starts a throw-away server with the world of world.json
// (alice, the guild's owner, and bob in a guild "club" with #general, the
// app "examplebot" installed) and runs go test with the server's address
// and admin token in the environment, which slashdtest.Connect reads. The
// test starts the bot with the app's public key, registers its commands
// with the app's bot token, sets the app's Interactions Endpoint, then
// has alice and bob use the bot and checks what they see.
//
// gateway_test.go does the same for a discordgo bot on the gateway
// (gatewaybot), in a world of its own, and has the gateway send it a
// RECONNECT, which discordgo survives by resuming its session.
//
// A plain `go test ./...` runs this package under slashd test by itself
// (TestMain), so CI needs no extra step.
package bottest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testtool/examplebot"
	"github.com/slashd/slashd/internal/testtool/gobuild"
	"github.com/slashd/slashd/sdk/slashdtest"
)

var (
	slashd     = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}
	bot        = gobuild.Binary{Pkg: examplebot.Package}
	gatewayBot = gobuild.Binary{Pkg: "github.com/slashd/slashd/examples/testing/go/gatewaybot"}
)

// TestMain runs the tests under `slashd test --world world.json` unless
// they already run under it (SLASHD_URL set).
func TestMain(m *testing.M) {
	if os.Getenv("SLASHD_URL") != "" {
		_ = gobuild.BuildAll(&bot, &gatewayBot)
		code := m.Run()
		bot.Remove()
		gatewayBot.Remove()
		os.Exit(code)
	}
	bin, err := slashd.File()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := append([]string{"test", "--world", "world.json", "--", os.Args[0]}, os.Args[1:]...)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	slashd.Remove()
	if exit, ok := err.(*exec.ExitError); ok {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// startBot runs examples/bot for the world's app, as its deployment
// would: with the app's public key and the service's URL; then registers
// its guild commands with the bot token and makes it the app's
// Interactions Endpoint.
func startBot(t *testing.T, w *slashdtest.World) {
	t.Helper()
	ctx := t.Context()
	app := w.App("examplebot")
	p := examplebot.Start(t, &bot, append(os.Environ(), "SLASHD_URL="+w.Client().URL, "SLASHD_PUBLIC_KEY="+app.PublicKey))
	commands, err := exec.Command(bot.Path(t), "-commands").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RegisterGuildCommands(ctx, "examplebot", "club", commands); err != nil {
		t.Fatal(err)
	}
	if err := w.SetInteractionsEndpoint(ctx, "examplebot", p.URL); err != nil {
		t.Fatal(err)
	}
}

func TestExampleBot(t *testing.T) {
	ctx := t.Context()
	c, err := slashdtest.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.OpenWorld(ctx, "examplebot")
	if err != nil {
		t.Fatal(err)
	}
	startBot(t, w)
	alice, bob := w.As("alice").In("general"), w.As("bob").In("general")

	t.Run("a command with options", func(t *testing.T) {
		if r, err := alice.Run(ctx, `/echo text:"hello there"`); err != nil || r.Content != "hello there" {
			t.Errorf("/echo: %v %s", err, r)
		}
		if r, err := bob.Run(ctx, "/pick fruit:mango amount:3"); err != nil || r.Content != "You picked 3 × mango." {
			t.Errorf("/pick: %v %s", err, r)
		}
		if choices, err := bob.Autocomplete(ctx, "/pick fruit:man"); err != nil || len(choices) != 1 || choices[0].Value != "mango" {
			t.Errorf("autocomplete: %v %+v", err, choices)
		}
	})

	t.Run("an ephemeral reply", func(t *testing.T) {
		if r, err := bob.Run(ctx, "/ping"); err != nil || r.Content != "pong" || !r.Ephemeral {
			t.Errorf("/ping: %v %s", err, r)
		}
	})

	t.Run("defer, then fill in", func(t *testing.T) {
		// /slow thinks 2 seconds before it edits its loading message.
		r, err := alice.Waiting(30*time.Second).Run(ctx, "/slow")
		if err != nil || r.Outcome != slashdtest.OutcomeDeferredThenFilled || r.Content != "Thought about it: the answer is 42." {
			t.Errorf("/slow: %v %s", err, r)
		}
	})

	t.Run("a follow-up", func(t *testing.T) {
		r, err := alice.Run(ctx, "/multi")
		if err != nil || r.Content != "This is the answer." {
			t.Fatalf("/multi: %v %s", err, r)
		}
		if _, err := waitForMessage(ctx, w, "And this is a follow-up."); err != nil {
			t.Error(err)
		}
	})

	t.Run("a button that edits its message", func(t *testing.T) {
		counter, err := alice.Run(ctx, "/counter")
		if err != nil || counter.Content != "Count: 0" {
			t.Fatalf("/counter: %v %s", err, counter)
		}
		clicked, err := counter.Click(ctx, "+1")
		if err != nil || clicked.Content != "Count: 1" || clicked.Message.ID != counter.Message.ID {
			t.Errorf("alice clicks +1: %v %s", err, clicked)
		}
	})

	t.Run("a modal", func(t *testing.T) {
		form, err := alice.Run(ctx, "/feedback")
		if err != nil || form.Modal == nil {
			t.Fatalf("/feedback opened no modal: %v %s", err, form)
		}
		r, err := form.Modal.Submit(ctx, map[string]string{"text": "lovely"})
		if err != nil || r.Content != "Thanks for your feedback: lovely" || !r.Ephemeral {
			t.Errorf("the feedback: %v %s", err, r)
		}
	})

	t.Run("a permission hides a command from a member", func(t *testing.T) {
		// alice, the guild's owner, turns /echo off for bob, as Server
		// Settings › Integrations does: with the Bearer token she granted
		// the app (world.json's grants).
		app, guild := w.App("examplebot"), w.Guilds["club"]
		var registered []struct{ ID, Name string }
		base := "/api/v10/applications/" + app.ID + "/guilds/" + guild.ID + "/commands"
		if err := c.Do(ctx, "GET", base, "Bot "+app.BotToken, nil, &registered); err != nil {
			t.Fatal(err)
		}
		echo := ""
		for _, cmd := range registered {
			if cmd.Name == "echo" {
				echo = cmd.ID
			}
		}
		deny := map[string]any{"permissions": []map[string]any{{"id": w.Users["bob"].ID, "type": 2, "permission": false}}}
		if err := c.Do(ctx, "PUT", base+"/"+echo+"/permissions", "Bearer "+w.BearerTokens["alice:examplebot"].AccessToken, deny, nil); err != nil {
			t.Fatal(err)
		}
		_, err := bob.Run(ctx, "/echo text:hi")
		var apiErr *slashdtest.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Code != 50013 {
			t.Errorf("bob's /echo: %v, want 403 50013 (Missing Permissions)", err)
		}
		if r, err := alice.Run(ctx, "/echo text:still-mine"); err != nil || r.Content != "still-mine" {
			t.Errorf("alice's /echo: %v %s", err, r)
		}
	})

	t.Run("faults the bot survives", func(t *testing.T) { testFaults(t, c) })

	// Last: the bot made no refused call and failed no interaction in the
	// world (the faults ran in their own world).
	if failures, err := w.Events().Failures(ctx); err != nil || len(failures) != 0 {
		t.Errorf("the bot's failures: %v %v", err, failures)
	}
}

// testFaults runs a bot of its own in a world of its own, made from
// world.json under another name, so that the failures the faults cause
// stay out of the main world's journal.
//
// examples/bot receives interactions on an Interactions Endpoint and has
// no gateway connection: a RECONNECT (gateway.reconnect) has nothing to
// act on; gateway_test.go shows one with a discordgo bot on the gateway
// (gatewaybot). What an endpoint bot meets instead is an interaction delivered
// after its 3 seconds (delivery.late): the member is told the app did not
// respond, the bot's late answer is dropped, and the next command must
// work as before.
func testFaults(t *testing.T, c *slashdtest.Client) {
	ctx := t.Context()
	raw, err := os.ReadFile("world.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	spec["name"] = "examplebot-faults"
	w, err := c.World(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Delete(context.Background()) })
	startBot(t, w)
	alice := w.As("alice").In("general")

	t.Run("a 429 on a follow-up", func(t *testing.T) {
		_, err := w.Fault(ctx, slashdtest.Fault{Kind: "rest.429", App: "examplebot",
			Route: "POST /api/v10/webhooks/{application_id}/{interaction_token}", Count: 1,
			Params: map[string]any{"retry_after": 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.Run(ctx, "/multi"); err != nil {
			t.Fatal(err)
		}
		// The bot waits retry_after out and posts its follow-up again.
		if _, err := waitForMessage(ctx, w, "And this is a follow-up."); err != nil {
			t.Error(err)
		}
	})

	t.Run("a late delivery", func(t *testing.T) {
		if _, err := w.Fault(ctx, slashdtest.Fault{Kind: "delivery.late", App: "examplebot", Count: 1,
			Params: map[string]any{"delay_ms": 200}}); err != nil {
			t.Fatal(err)
		}
		r, err := alice.Run(ctx, "/ping")
		if err != nil || r.Outcome != slashdtest.OutcomeFailed || r.Failure == nil || r.Failure.Status != 504 {
			t.Errorf("/ping delivered late: %v %s", err, r)
		}
		// The journal is written in batches: wait for the failure to be
		// there before the failures are read below.
		if _, err := w.Events().WaitFor(ctx, func(e slashdtest.Event) bool {
			return e.Type == "interaction.failed"
		}); err != nil {
			t.Error(err)
		}
		if r, err := alice.Run(ctx, "/ping"); err != nil || r.Content != "pong" {
			t.Errorf("/ping after it: %v %s", err, r)
		}
	})

	// The failures are the faults' own, nothing else.
	failures, err := w.Events().Failures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range failures {
		expected := (f.Type == "rest.request" || f.Type == "rate_limit.hit") && strings.Contains(f.Route, "webhooks") ||
			f.Type == "interaction.failed"
		if !expected {
			t.Errorf("a failure no fault explains: %s", f)
		}
		seen[f.Type] = true
	}
	if !seen["rate_limit.hit"] || !seen["interaction.failed"] {
		t.Errorf("the faults did not fire: failures %v", failures)
	}
}

// waitForMessage waits for the world's journal to show a message with
// that content.
func waitForMessage(ctx context.Context, w *slashdtest.World, content string) (slashdtest.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return w.Events().WaitFor(ctx, func(e slashdtest.Event) bool {
		var m struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		}
		return e.Type == "message.created" && e.Decode(&m) == nil && m.Message.Content == content
	})
}
