package clustertest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// settle publishes the world events the cluster's setup left in the
// outbox, so that a bot connecting next is not told of them again.
func settle(c *clustertest.Cluster) {
	for _, n := range c.Nodes {
		n.API.PublishWorldEvents(context.Background())
	}
}

// World changes made through any node, or written to the shared store
// around every node (as the CLI does), reach a bot connected to another
// node, numbered alike everywhere: a bot that drops and resumes on a
// third node gets what it missed there, then RESUMED.
func TestWorldEventsAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	a, b, cc := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	settle(c)
	g := c.App.GuildID
	bot := dial(t, b)
	ready, err := bot.Identify(ctxT(t), c.Bot(), 1) // GUILDS
	if err != nil {
		t.Fatal(err)
	}
	bot.dispatch("GUILD_CREATE", 2)

	var role, ch struct{ ID string }
	if err := a.Admin(ctxT(t), "POST", "/guilds/"+g+"/roles", map[string]any{"name": "mods"}, 201, &role); err != nil {
		t.Fatal(err)
	}
	if f := bot.dispatch("GUILD_ROLE_CREATE", 3); !hasName(f.D, "role", "mods") {
		t.Fatalf("GUILD_ROLE_CREATE %s", f.D)
	}
	if err := cc.Admin(ctxT(t), "POST", "/guilds/"+g+"/channels", map[string]any{"name": "news", "type": 0}, 201, &ch); err != nil {
		t.Fatal(err)
	}
	if f := bot.dispatch("CHANNEL_CREATE", 4); !hasName(f.D, "", "news") {
		t.Fatalf("CHANNEL_CREATE %s", f.D)
	}
	// Written to the shared store around every node: a node's poll
	// claims it.
	gid, _ := snowflake.Parse(g)
	cli := a.IDs.Next()
	if err := a.Store.CreateChannel(ctxT(t), guild.Channel{ID: cli, GuildID: gid, Name: "from-the-cli"}); err != nil {
		t.Fatal(err)
	}
	if f := bot.dispatch("CHANNEL_CREATE", 5); !hasName(f.D, "", "from-the-cli") {
		t.Fatalf("CHANNEL_CREATE of the store write %s", f.D)
	}

	// The bot drops; two changes through two nodes while it is away.
	_ = bot.Drop()
	if err := a.Admin(ctxT(t), "PATCH", "/guilds/"+g+"/roles/"+role.ID, map[string]any{"name": "moderators"}, 200, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Admin(ctxT(t), "DELETE", "/guilds/"+g+"/channels/"+ch.ID, nil, 204, nil); err != nil {
		t.Fatal(err)
	}
	again := dial(t, cc)
	if err := again.Resume(ctxT(t), c.Bot(), ready.SessionID, 5); err != nil {
		t.Fatal(err)
	}
	if f := again.dispatch("GUILD_ROLE_UPDATE", 6); !hasName(f.D, "role", "moderators") {
		t.Fatalf("replayed GUILD_ROLE_UPDATE %s", f.D)
	}
	if f := again.dispatch("CHANNEL_DELETE", 7); !hasName(f.D, "", "news") {
		t.Fatalf("replayed CHANNEL_DELETE %s", f.D)
	}
	again.dispatch("RESUMED", 8)
}

// hasName reports whether data (or its object under key) is named name.
func hasName(data json.RawMessage, key, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	if key != "" {
		data = m[key]
	}
	var o struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(data, &o) == nil && o.Name == name
}
