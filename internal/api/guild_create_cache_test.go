package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// guildCreateSeen is what the test reads of a GUILD_CREATE.
type guildCreateSeen struct {
	Name        string `json:"name"`
	MemberCount int    `json:"member_count"`
	Roles       []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"roles"`
	Channels []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"channels"`
	Members []struct {
		Nick  *string  `json:"nick"`
		Roles []string `json:"roles"`
		User  struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		} `json:"user"`
	} `json:"members"`
}

func (g guildCreateSeen) hasRole(id, name string) bool {
	return slices.ContainsFunc(g.Roles, func(r struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}) bool {
		return r.ID == id && (name == "" || r.Name == name)
	})
}

func (g guildCreateSeen) hasChannel(id string) bool {
	return slices.ContainsFunc(g.Channels, func(c struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}) bool {
		return c.ID == id
	})
}

// TestIdentifyGuildCreateFollowsTheWorld: identify's GUILD_CREATE is
// served from the render cache while nothing it shows changed, and
// shows every change to the world as soon as it is made: the guild
// renamed (through the admin API, and by another process writing the
// store beneath the server, as the CLI does), a channel added and
// removed, a role created, renamed and deleted, the bot's nick, roles
// and user name, a member joining and leaving (member_count). Two
// nodes serve the same store, each with its own caches: the change is
// made through the first, and both must show it at the next identify.
// After each change, the next identify of each node renders the guild
// anew, and the one after that renders nothing. A second bot in the
// guild gets its own member, not the first bot's cached body.
//
// On SQLite every world write moves the world clock, which empties the
// world's maps at the next request on every node; before each identify
// the test fills them again through the node's store (refillMemberView),
// so that the body cache is asked with complete, new stamps and must
// tell them from the ones its body was rendered with. Within one
// request, where only the cache's own invalidations keep the stamps
// exact, the cache's TestMemberViewStampsStandForTheirValues checks them.
func TestIdentifyGuildCreateFollowsTheWorld(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	nodes := []*testenv.Env{e, e.Node()}
	ctx := context.Background()
	g, bot := e.App.GuildID, e.App.ApplicationID
	guildID, botID := mustID(t, g), mustID(t, bot)
	admin := e.AdminAuth()
	base := "/admin/v1/guilds/" + g

	var role, channel string // made by the steps
	joiner := e.NewUser("joiner", "pw-joiner-123")
	var members int // the guild's count before the join
	steps := []struct {
		name   string
		change func(t *testing.T)
		check  func(g guildCreateSeen) error
	}{
		{"rename the guild", func(t *testing.T) {
			mustDo(t, e, "PATCH", base, admin, map[string]any{"name": "renamed"}, 200)
		}, func(g guildCreateSeen) error {
			return seenIf(g.Name == "renamed", "name %q, want renamed", g.Name)
		}},
		{"add a channel", func(t *testing.T) {
			var c struct{ ID string }
			mustDo(t, e, "POST", base+"/channels", admin, map[string]any{"name": "added"}, 201).JSON(t, &c)
			channel = c.ID
		}, func(g guildCreateSeen) error {
			return seenIf(g.hasChannel(channel), "channel %s missing from %+v", channel, g.Channels)
		}},
		{"remove the channel", func(t *testing.T) {
			mustDo(t, e, "DELETE", base+"/channels/"+channel, admin, nil, 204)
		}, func(g guildCreateSeen) error {
			return seenIf(!g.hasChannel(channel), "deleted channel %s still in %+v", channel, g.Channels)
		}},
		{"create a role", func(t *testing.T) {
			var r struct{ ID string }
			mustDo(t, e, "POST", base+"/roles", admin, map[string]any{"name": "mods"}, 201).JSON(t, &r)
			role = r.ID
		}, func(g guildCreateSeen) error {
			return seenIf(g.hasRole(role, "mods"), "role %s missing from %+v", role, g.Roles)
		}},
		{"rename the role", func(t *testing.T) {
			mustDo(t, e, "PATCH", base+"/roles/"+role, admin, map[string]any{"name": "admins"}, 200)
		}, func(g guildCreateSeen) error {
			return seenIf(g.hasRole(role, "admins"), "role %s not renamed in %+v", role, g.Roles)
		}},
		{"the bot's nick and roles", func(t *testing.T) {
			mustDo(t, e, "PUT", base+"/members/"+bot, admin, map[string]any{"nick": "botnick", "roles": []string{role}}, 200)
		}, func(g guildCreateSeen) error {
			self := g.Members[0]
			return seenIf(self.Nick != nil && *self.Nick == "botnick" && slices.Equal(self.Roles, []string{role}),
				"the bot's member %+v, want nick botnick and roles [%s]", self, role)
		}},
		{"a member joins", func(t *testing.T) {
			mustDo(t, e, "PUT", base+"/members/"+joiner.ID.String(), admin, nil, 201)
		}, func(g guildCreateSeen) error {
			return seenIf(g.MemberCount == members+1, "member_count %d, want %d", g.MemberCount, members+1)
		}},
		{"the member leaves", func(t *testing.T) {
			mustDo(t, e, "DELETE", base+"/members/"+joiner.ID.String(), admin, nil, 204)
		}, func(g guildCreateSeen) error {
			return seenIf(g.MemberCount == members, "member_count %d, want %d", g.MemberCount, members)
		}},
		{"rename the bot's user", func(t *testing.T) {
			mustDo(t, e, "PATCH", "/admin/v1/users/"+bot, admin, map[string]any{"username": "renamedbot"}, 200)
		}, func(g guildCreateSeen) error {
			return seenIf(g.Members[0].User.Username == "renamedbot", "the bot's user %+v, want renamedbot", g.Members[0].User)
		}},
		{"delete the role", func(t *testing.T) {
			mustDo(t, e, "DELETE", base+"/roles/"+role, admin, nil, 204)
		}, func(g guildCreateSeen) error {
			return seenIf(!g.hasRole(role, "") && len(g.Members[0].Roles) == 0,
				"deleted role %s still in %+v or the bot's roles %v", role, g.Roles, g.Members[0].Roles)
		}},
		{"another process renames the guild", func(t *testing.T) {
			// Beneath the servers, as the CLI writes their data
			// directory: no invalidation, only the world clock moves.
			row, err := e.Store.Guild(ctx, guildID)
			if err != nil {
				t.Fatal(err)
			}
			row.Name = "renamed elsewhere"
			if err := e.Store.UpdateGuild(ctx, row); err != nil {
				t.Fatal(err)
			}
		}, func(g guildCreateSeen) error {
			return seenIf(g.Name == "renamed elsewhere", "name %q, want the other process's", g.Name)
		}},
	}

	// Warm: each node has rendered the guild once, and serves it again
	// without rendering.
	for i, n := range nodes {
		first := identifyGuildCreate(t, n, guildID)
		members = first.MemberCount
		if got := serveUnchanged(t, n, guildID); got != first.Name {
			t.Fatalf("node %d: the cached GUILD_CREATE names %q, the rendered one %q", i, got, first.Name)
		}
	}
	// Another bot in the same guild gets its own GUILD_CREATE, with its
	// own member, not the first bot's from the cache.
	other := e.NewApp(bootstrap.AppOptions{Name: "otherapp"})
	otherApp, err := e.API.Store().Application(ctx, mustID(t, other.ApplicationID))
	if err != nil {
		t.Fatal(err)
	}
	if err := bootstrap.SyncBot(ctx, e.Bootstrap(), guildID, otherApp, true, 0); err != nil {
		t.Fatal(err)
	}
	e.API.PublishWorldEvents(ctx)
	for i, n := range nodes {
		identifyGuildCreate(t, n, guildID) // the first bot's, cached again
		got := identifyShardOf(t, n.URL, "Bot "+other.BotToken, 0, 1, 2)
		var g guildCreateSeen
		if err := json.Unmarshal(got.bodies[guildID], &g); err != nil {
			t.Fatalf("node %d: the other bot's GUILD_CREATE %s: %v", i, got.bodies[guildID], err)
		}
		if len(g.Members) != 1 || g.Members[0].User.ID != other.ApplicationID {
			t.Errorf("node %d: the other bot's GUILD_CREATE lists members %+v, want itself (%s)", i, g.Members,
				other.ApplicationID)
		}
		members = g.MemberCount
	}
	for _, step := range steps {
		step.change(t)
		for i, n := range nodes {
			// Other reads fill the read cache again first, as requests
			// between two identifies do: the cached body must go by
			// its stamps, not by whether the cache was emptied.
			refillMemberView(t, n, guildID, botID)
			before := n.API.GuildCreateRenders()
			got := identifyGuildCreate(t, n, guildID)
			if err := step.check(got); err != nil {
				t.Errorf("after %q, node %d's GUILD_CREATE: %v", step.name, i, err)
			}
			if r := n.API.GuildCreateRenders() - before; r != 1 {
				t.Errorf("after %q, node %d rendered %d GUILD_CREATEs, want 1", step.name, i, r)
			}
			serveUnchanged(t, n, guildID)
		}
	}
}

// refillMemberView reads, through n's read cache, the four values a
// GUILD_CREATE is rendered from, as a node's other requests would.
func refillMemberView(t *testing.T, n *testenv.Env, guildID, botID snowflake.ID) {
	t.Helper()
	ctx := context.Background()
	st := n.API.Store()
	if _, err := st.Snapshot(ctx, guildID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.MemberCount(ctx, guildID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.User(ctx, botID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Member(ctx, guildID, botID); err != nil {
		t.Fatal(err)
	}
}

// serveUnchanged identifies n's bot again with nothing changed: the
// GUILD_CREATE must come from the render cache. It returns its name.
func serveUnchanged(t *testing.T, n *testenv.Env, guildID snowflake.ID) string {
	t.Helper()
	before := n.API.GuildCreateRenders()
	g := identifyGuildCreate(t, n, guildID)
	if r := n.API.GuildCreateRenders() - before; r != 0 {
		t.Errorf("an identify with nothing changed rendered %d GUILD_CREATEs, want them from the cache", r)
	}
	return g.Name
}

// identifyGuildCreate identifies n's bot (one shard, the GUILDS intent)
// and returns the GUILD_CREATE of guild id, its only guild.
func identifyGuildCreate(t *testing.T, n *testenv.Env, id snowflake.ID) guildCreateSeen {
	t.Helper()
	got := identifyShardOf(t, n.URL, n.Bot(), 0, 1, 1)
	if got.closed != -1 || !slices.Equal(got.ready, []snowflake.ID{id}) {
		t.Fatalf("identify: READY %v, closed %d; want guild %d", got.ready, got.closed, id)
	}
	var g guildCreateSeen
	if err := json.Unmarshal(got.bodies[id], &g); err != nil {
		t.Fatalf("GUILD_CREATE %s: %v", got.bodies[id], err)
	}
	if len(g.Members) != 1 {
		t.Fatalf("GUILD_CREATE lists members %+v, want the bot alone", g.Members)
	}
	return g
}

// seenIf is nil when ok, else the error format describes.
func seenIf(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}
