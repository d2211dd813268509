package bottest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/slashd/slashd/sdk/slashdtest"
)

// gatewayWorld is a world whose app, greeter, has no Interactions
// Endpoint: its interactions go to its bot's gateway sessions.
var gatewayWorld = map[string]any{
	"name":  "gatewaybot",
	"users": map[string]any{"alice": map[string]any{}},
	"apps":  map[string]any{"greeter": map[string]any{}},
	"guilds": map[string]any{"club": map[string]any{
		"owner":    "alice",
		"channels": map[string]any{"general": map[string]any{}},
		"members":  map[string]any{"alice": map[string]any{}},
		"install":  map[string]any{"greeter": map[string]any{"scopes": []string{"bot", "applications.commands"}}},
	}},
}

// TestGatewayBotSurvivesReconnect runs gatewaybot, a discordgo bot on
// the gateway, and has the gateway send it a RECONNECT (op 7) between
// two commands: discordgo resumes its session and the second /hello is
// answered as the first was, with nothing lost or refused.
func TestGatewayBotSurvivesReconnect(t *testing.T) {
	ctx := t.Context()
	c, err := slashdtest.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.World(ctx, gatewayWorld)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Delete(context.Background()) })
	app := w.App("greeter")
	hello := []map[string]any{{"name": "hello", "description": "Say hello"}}
	if err := w.RegisterGuildCommands(ctx, "greeter", "club", hello); err != nil {
		t.Fatal(err)
	}

	startGatewayBot(t, append(os.Environ(), "SLASHD_URL="+c.URL, "DISCORD_TOKEN="+app.BotToken))
	// greeter's first identify is the bot's.
	greeter := w.App("greeter").ID
	identified, err := w.Events().WaitFor(ctx, func(e slashdtest.Event) bool {
		var of struct {
			App string `json:"application_id"`
		}
		return e.Type == "gateway.identify" && e.Decode(&of) == nil && of.App == greeter
	})
	if err != nil {
		t.Fatalf("the bot did not identify: %v", err)
	}
	var session struct {
		SessionID string `json:"session_id"`
	}
	if err := identified.Decode(&session); err != nil || session.SessionID == "" {
		t.Fatalf("gateway.identify without a session: %v %s", err, identified)
	}

	alice := w.As("alice").In("general")
	if r, err := alice.Run(ctx, "/hello"); err != nil || r.Content != "hello from the gateway" {
		t.Fatalf("/hello: %v %s", err, r)
	}

	if _, err := w.Fault(ctx, slashdtest.Fault{Kind: "gateway.reconnect", App: "greeter", Session: session.SessionID}); err != nil {
		t.Fatal(err)
	}
	// discordgo answers op 7 by reconnecting and resuming the session.
	if _, err := w.Events().From(identified.Cursor).WaitFor(ctx, func(e slashdtest.Event) bool {
		var resumed struct {
			SessionID string `json:"session_id"`
		}
		return e.Type == "gateway.resume" && e.Decode(&resumed) == nil && resumed.SessionID == session.SessionID
	}); err != nil {
		t.Fatalf("the bot did not resume: %v", err)
	}
	if r, err := alice.Run(ctx, "/hello"); err != nil || r.Content != "hello from the gateway" {
		t.Errorf("/hello after the RECONNECT: %v %s", err, r)
	}

	if failures, err := w.Events().Failures(ctx); err != nil || len(failures) != 0 {
		t.Errorf("the bot's failures: %v %v", err, failures)
	}
}

// startGatewayBot runs gatewaybot as its deployment would, with env, and
// stops it (as Ctrl+C does) when the test ends; its log is shown when the
// test failed.
func startGatewayBot(t *testing.T, env []string) {
	t.Helper()
	cmd := exec.Command(gatewayBot.Path(t))
	cmd.Env = env
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("gatewaybot's log:\n%s", logs.String())
		}
	})
}
