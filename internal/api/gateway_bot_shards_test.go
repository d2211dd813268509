package api_test

import (
	"context"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// TestGatewayBotRecommendsShards: GET /gateway/bot recommends a shard
// count from the bot's guilds, and a bot that follows it identifies
// every shard without a 4011, READY listing each of its guilds once.
// Unsharded, the same bot is refused. The gateway here holds 5 guilds
// per shard, so it recommends one shard per 2 (the real 1,000 of 2,500).
func TestGatewayBotRecommendsShards(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.Gateway.GuildsPerShard = 5 })
	ctx := context.Background()
	env := e.Bootstrap()
	appID, owner := mustID(t, e.App.ApplicationID), mustID(t, e.App.OwnerUserID)
	app, err := env.Store.Application(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	recommended := func() int {
		t.Helper()
		var got struct {
			Shards int `json:"shards"`
		}
		e.Do("GET", "/api/v10/gateway/bot", e.Bot(), nil).JSON(t, &got)
		return got.Shards
	}
	if got := recommended(); got != 1 {
		t.Fatalf("a bot in its one guild: %d shards recommended, want 1", got)
	}

	all := []snowflake.ID{mustID(t, e.App.GuildID)}
	base := int64(e.IDs.Next()>>22) - 1_000
	for i := range 9 {
		id := guildAt(base + int64(i))
		addBotGuild(t, env, id, owner, app)
		all = append(all, id)
	}
	e.API.PublishWorldEvents(ctx)
	shards := recommended()
	if shards != 5 {
		t.Fatalf("a bot in %d guilds: %d shards recommended, want 5", len(all), shards)
	}
	var ready []snowflake.ID
	for k := range shards {
		want := 0
		for _, id := range all {
			if shardOf(id, shards) == k {
				want++
			}
		}
		got := identifyShardOf(t, e.URL, e.Bot(), k, shards, want)
		if got.closed != -1 {
			t.Fatalf("shard [%d, %d], as recommended: closed %d", k, shards, got.closed)
		}
		ready = append(ready, got.ready...)
	}
	slices.Sort(ready)
	slices.Sort(all)
	if !slices.Equal(ready, all) {
		t.Errorf("the recommended shards' READYs list %v, want the bot's guilds %v", ready, all)
	}
	if got := identifyShardOf(t, e.URL, e.Bot(), 0, 1, 0); got.closed != 4011 {
		t.Errorf("the same bot unsharded: closed %d, want 4011", got.closed)
	}
}
