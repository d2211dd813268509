package api_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/demo"
	"github.com/slashd/slashd/internal/testenv"
)

// What the first start's demo becoming a test world costs its users: the
// demo's owner invokes a command of the demo app in #general and its
// bot answers over the gateway, with the demo made as the first start
// makes it now (the test world "demo", journal on) and as it made it
// before (world 0, which has no journal). Run both with a fixed count:
//
//	go test -run '^$' -bench 'InvokeDemo' -benchtime 3000x -count 3 ./internal/api/
func BenchmarkInvokeDemoWorld(b *testing.B) {
	benchmarkDemoInvoke(b, func(ctx context.Context, env bootstrap.Env) (bootstrap.Credentials, error) {
		return demo.Create(ctx, env, "")
	})
}

func BenchmarkInvokeDemoNoWorld(b *testing.B) {
	benchmarkDemoInvoke(b, func(ctx context.Context, env bootstrap.Env) (bootstrap.Credentials, error) {
		c, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "demo", GuildName: "demo guild"})
		if err == nil {
			_, err = bootstrap.Furnish(ctx, env, &c)
		}
		return c, err
	})
}

func benchmarkDemoInvoke(b *testing.B, makeDemo func(context.Context, bootstrap.Env) (bootstrap.Credentials, error)) {
	e := testenv.New(b, func(c *api.Config) { c.JournalEntries = api.DefaultConfig().JournalEntries })
	c, err := makeDemo(context.Background(), e.Bootstrap())
	if err != nil {
		b.Fatal(err)
	}
	gatewayBot(b, e, c.BotToken, "pong")
	var cmd struct{ ID, Version string }
	mustDo(b, e, "POST", "/api/v10/applications/"+c.ApplicationID+"/guilds/"+c.GuildID+"/commands", "Bot "+c.BotToken,
		map[string]any{"name": "ping", "description": "Replies with pong"}, 201).JSON(b, &cmd)
	body, err := json.Marshal(map[string]any{"type": 2, "application_id": c.ApplicationID, "guild_id": c.GuildID,
		"channel_id": c.ChannelID, "data": map[string]any{"id": cmd.ID, "name": "ping", "type": 1, "version": cmd.Version}})
	if err != nil {
		b.Fatal(err)
	}
	testenv.WaitFor(b, "the bot answers", func() bool {
		r, err := doJSON(e, "POST", "/api/v10/interactions", c.OwnerClientToken, json.RawMessage(body))
		return err == nil && r.Status == 200
	})
	measure(b, e.URL+"/api/v10/interactions", c.OwnerClientToken, body)
}
