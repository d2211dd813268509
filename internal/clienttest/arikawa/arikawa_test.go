// Package arikawa holds the arikawa v3 tests: its README's "Bare Minimum
// Bot Example" and its 0-examples/commands bot, run in the test process
// against slashd with arikawa's defaults. arikawa has no option for
// another base URL: its REST routes are package-level variables computed
// once from api.BaseEndpoint at init (api.Endpoint, EndpointGateway,
// EndpointApplications, …), read when each call is made, and the
// gateway's URL comes from GET /gateway/bot through a fresh api.Client
// (gateway.BotURL), so an http.Client of the bot's own could not reach
// that call. Reassigning the variables (aim) is the one change. Being
// process-wide, it gets a package of its own, and its tests run one at a
// time.
package arikawa

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/diamondburned/arikawa/v3/api"
	"github.com/diamondburned/arikawa/v3/api/cmdroute"
	"github.com/diamondburned/arikawa/v3/discord"
	"github.com/diamondburned/arikawa/v3/gateway"
	"github.com/diamondburned/arikawa/v3/state"
	"github.com/diamondburned/arikawa/v3/utils/json/option"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
)

// aim points arikawa's REST routes at the slashd at base
// ("http://127.0.0.1:PORT"), as arikawa's api package computes them at
// init from BaseEndpoint, Path ("/api/v9": arikawa's default version,
// which slashd serves) and Endpoint.
func aim(base string) {
	api.BaseEndpoint = base
	api.Endpoint = api.BaseEndpoint + api.Path + "/"
	api.EndpointGateway = api.Endpoint + "gateway"
	api.EndpointGatewayBot = api.EndpointGateway + "/bot"
	api.EndpointApplications = api.Endpoint + "applications/"
	api.EndpointChannels = api.Endpoint + "channels/"
	api.EndpointGuilds = api.Endpoint + "guilds/"
	api.EndpointInteractions = api.Endpoint + "interactions/"
	api.EndpointInvites = api.Endpoint + "invites/"
	api.EndpointAuth = api.Endpoint + "auth/"
	api.EndpointLogin = api.EndpointAuth + "login"
	api.EndpointTOTP = api.EndpointAuth + "mfa/totp"
	api.EndpointStageInstances = api.Endpoint + "stage-instances/"
	api.EndpointUsers = api.Endpoint + "users/"
	api.EndpointMe = api.EndpointUsers + "@me"
	api.EndpointWebhooks = api.Endpoint + "webhooks/"
}

// connect runs s.Connect (the README's last call, which blocks while the
// bot runs) until the test ends, and waits for READY.
func connect(t *testing.T, s *state.State) {
	t.Helper()
	ready := make(chan struct{})
	var once sync.Once
	s.AddHandler(func(*gateway.ReadyEvent) { once.Do(func() { close(ready) }) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Connect(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Connect: %v", err)
			}
		case <-time.After(drive.Wait):
			t.Errorf("Connect did not return within %v of its context ending", drive.Wait)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("cannot connect: %v", err)
	case <-time.After(drive.Wait):
		t.Fatalf("no READY within %v", drive.Wait)
	}
}

// TestArikawaReadmeBot is the README's "Bare Minimum Bot Example": a
// cmdroute router answering /ping, state.New("Bot " + token) with
// AddInteractionHandler and the Guilds intent, cmdroute.OverwriteCommands
// (the current application, then a bulk overwrite of the global
// commands) and Connect. A member runs /ping in the guild.
func TestArikawaReadmeBot(t *testing.T) {
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	aim(e.URL)

	var commands = []api.CreateCommandData{{Name: "ping", Description: "Ping!"}}
	r := cmdroute.NewRouter()
	r.AddFunc("ping", func(ctx context.Context, data cmdroute.CommandData) *api.InteractionResponseData {
		return &api.InteractionResponseData{Content: option.NewNullableString("Pong!")}
	})
	s := state.New("Bot " + e.App.BotToken)
	s.AddInteractionHandler(r)
	s.AddIntents(gateway.IntentGuilds)
	if err := cmdroute.OverwriteCommands(s, commands); err != nil {
		t.Fatalf("cannot update commands: %v", err)
	}
	connect(t, s)

	a := w.Run(t, w.Commands(t, "")["ping"], nil)
	if m := a.Resource.Message; a.Resource.Type != 4 || m == nil || m.Content != "Pong!" || m.Author.ID != w.App {
		t.Fatalf("answer %+v, want the bot's Pong!", a)
	}
	if m := w.Seen(t, a.Interaction.ResponseMessageID); m == nil || m.Content != "Pong!" {
		t.Errorf("#general shows %+v, want Pong!", m)
	}
}

// TestArikawaCommandsExample is 0-examples/commands: /ping, /echo (its
// option read by data.Options.Unmarshal, no mentions allowed) and
// /thonk, slow enough that the router's Deferrable middleware defers it
// and sends the answer as a follow-up. The example's thonk sleeps 3 to 7
// seconds; here it waits for the test to let it go once the deferred
// answer came, and DeferOpts reports the follow-up (Done) or its error.
func TestArikawaCommandsExample(t *testing.T) {
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	aim(e.URL)

	var commands = []api.CreateCommandData{
		{Name: "ping", Description: "ping pong!"},
		{
			Name:        "echo",
			Description: "echo back the argument",
			Options: []discord.CommandOption{
				&discord.StringOption{OptionName: "argument", Description: "what's echoed back", Required: true},
			},
		},
		{Name: "thonk", Description: "biiiig thonk"},
	}
	const thonk = "https://tenor.com/view/thonk-thinking-sun-thonk-sun-thinking-sun-gif-14999983"
	release := make(chan struct{})
	followUp := make(chan *discord.Message, 1)
	followUpErr := make(chan error, 1)

	s := state.New("Bot " + e.App.BotToken)
	r := cmdroute.NewRouter()
	r.Use(cmdroute.Deferrable(s, cmdroute.DeferOpts{
		Done:  func(m *discord.Message) { followUp <- m },
		Error: func(err error) { followUpErr <- err },
	}))
	r.AddFunc("ping", func(ctx context.Context, data cmdroute.CommandData) *api.InteractionResponseData {
		return &api.InteractionResponseData{Content: option.NewNullableString("Pong!")}
	})
	r.AddFunc("echo", func(ctx context.Context, data cmdroute.CommandData) *api.InteractionResponseData {
		var options struct {
			Arg string `discord:"argument"`
		}
		if err := data.Options.Unmarshal(&options); err != nil {
			return &api.InteractionResponseData{
				Content:         option.NewNullableString("**Error:** " + err.Error()),
				Flags:           discord.EphemeralMessage,
				AllowedMentions: &api.AllowedMentions{},
			}
		}
		return &api.InteractionResponseData{
			Content:         option.NewNullableString(options.Arg),
			AllowedMentions: &api.AllowedMentions{},
		}
	})
	r.AddFunc("thonk", func(ctx context.Context, data cmdroute.CommandData) *api.InteractionResponseData {
		<-release
		return &api.InteractionResponseData{Content: option.NewNullableString(thonk)}
	})
	s.AddInteractionHandler(r)
	s.AddIntents(gateway.IntentGuilds)
	if err := cmdroute.OverwriteCommands(s, commands); err != nil {
		t.Fatalf("cannot update commands: %v", err)
	}
	connect(t, s)
	cmds := w.Commands(t, "")

	t.Run("ping", func(t *testing.T) {
		if m := w.Run(t, cmds["ping"], nil).Resource.Message; m == nil || m.Content != "Pong!" {
			t.Fatalf("answer %+v, want Pong!", m)
		}
	})
	t.Run("echo", func(t *testing.T) {
		said := "hello <@" + w.Alice + ">"
		a := w.Run(t, cmds["echo"], []map[string]any{{"type": 3, "name": "argument", "value": said}})
		if m := a.Resource.Message; m == nil || m.Content != said || m.Flags&64 != 0 {
			t.Fatalf("answer %+v, want %q in the channel", a, said)
		}
	})
	t.Run("thonk", func(t *testing.T) {
		a := w.Run(t, cmds["thonk"], nil)
		thinking := a.Resource.Message
		if a.Resource.Type != 5 || thinking == nil || thinking.Flags&128 == 0 {
			close(release)
			t.Fatalf("answer %+v, want a deferred answer (LOADING)", a)
		}
		close(release)
		select {
		case m := <-followUp:
			// The first follow-up while the answer loads fills it in, as
			// on the real service.
			if m.ID.String() != thinking.ID || m.Content != thonk || m.Flags&128 != 0 {
				t.Errorf("the follow-up is %s %q (flags %d), want the deferred answer %s filled in",
					m.ID, m.Content, m.Flags, thinking.ID)
			}
		case err := <-followUpErr:
			t.Fatalf("follow-up: %v", err)
		case <-time.After(drive.Wait):
			t.Fatalf("no follow-up within %v", drive.Wait)
		}
		if m := w.Seen(t, thinking.ID); m == nil || m.Content != thonk || m.Flags&128 != 0 {
			t.Errorf("#general shows %+v, want the answer filled in", m)
		}
	})
	// arikawa decodes the commands slashd lists.
	app := discord.AppID(mustSnowflake(t, w.App))
	got, err := s.Commands(app)
	if err != nil || len(got) != len(commands) {
		t.Fatalf("Commands: %d commands, %v; want %d", len(got), err, len(commands))
	}
	for _, c := range got {
		if c.AppID != app || c.Name != cmds[c.Name].Name || c.ID.String() != cmds[c.Name].ID {
			t.Errorf("Commands listed %+v", c)
		}
	}
}

func mustSnowflake(t *testing.T, s string) discord.Snowflake {
	t.Helper()
	id, err := discord.ParseSnowflake(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
