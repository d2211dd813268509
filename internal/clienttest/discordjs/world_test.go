package discordjs

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// djsCached is what discord.js's caches hold of a guild (the
// cachedGuild action).
type djsCached struct {
	Cached   bool     `json:"cached"`
	Name     string   `json:"name"`
	Channels []string `json:"channels"`
	Roles    []string `json:"roles"`
	Members  []string `json:"members"`
}

// waitFields waits for the bot's event name whose fields hold want's.
func (p *djsProc) waitFields(t *testing.T, name string, want map[string]string) {
	t.Helper()
	p.waitFor(t, djsWait, name, func(_ int, raw json.RawMessage) bool {
		var got map[string]any
		if json.Unmarshal(raw, &got) != nil {
			return false
		}
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	})
}

// TestDiscordJSWorldEvents changes the world around the guide's connected
// bot (intents Guilds and GuildMembers), through the admin API of the
// node it is connected to and of another node of the cluster, and checks
// each change reaches discord.js's events and caches: an installation in
// a new guild (guildCreate, client.guilds.cache), its rename
// (guildUpdate), a channel created, renamed and deleted (guild.channels
// .cache), a role created and deleted (guild.roles.cache), a member who
// joins and leaves (guild.members.cache), the uninstallation
// (guildDelete).
func TestDiscordJSWorldEvents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDJSWorld(t, e)
	bot := startDiscordJS(t, e)
	bot.wait(t, "ready", djsWait, nil)
	for _, node := range []struct {
		name string
		e    *testenv.Env
	}{{"the bot's node", e}, {"another node", e.Node()}} {
		t.Run(node.name, func(t *testing.T) {
			on := node.e
			look := func(t *testing.T, g string) djsCached {
				t.Helper()
				var c djsCached
				bot.do(t, "cachedGuild", map[string]any{"guild": g}, &c)
				if !c.Cached {
					t.Fatalf("guild %s is not in client.guilds.cache", g)
				}
				return c
			}

			g := djsAdminID(t, on, "POST", "/guilds", map[string]any{"name": "second home", "owner_id": e.App.OwnerUserID}, "id")
			djsAdmin(t, on, "PUT", "/guilds/"+g+"/installations/"+w.app,
				map[string]any{"scopes": []string{"bot", "applications.commands"}}, http.StatusCreated, nil)
			bot.waitFields(t, "guildCreate", map[string]string{"guild": g, "name": "second home"})
			var guilds struct {
				Guilds []string `json:"guilds"`
			}
			bot.do(t, "cachedGuilds", nil, &guilds)
			if !slices.Contains(guilds.Guilds, g) || !slices.Contains(guilds.Guilds, w.guild) {
				t.Errorf("client.guilds.cache %v, want %s and %s", guilds.Guilds, w.guild, g)
			}

			djsAdmin(t, on, "PATCH", "/guilds/"+g, map[string]any{"name": "new home"}, -1, nil)
			bot.waitFields(t, "guildUpdate", map[string]string{"guild": g, "name": "new home"})
			if c := look(t, g); c.Name != "new home" {
				t.Errorf("guild.name %q after the rename", c.Name)
			}

			ch := djsAdminID(t, on, "POST", "/guilds/"+g+"/channels", map[string]any{"name": "news", "type": 0}, "id")
			bot.waitFields(t, "channelCreate", map[string]string{"guild": g, "channel": ch, "name": "news"})
			djsAdmin(t, on, "PATCH", "/guilds/"+g+"/channels/"+ch, map[string]any{"name": "old-news"}, -1, nil)
			bot.waitFields(t, "channelUpdate", map[string]string{"channel": ch, "name": "old-news"})
			if c := look(t, g); !slices.Contains(c.Channels, "old-news") {
				t.Errorf("guild.channels.cache %v, want old-news", c.Channels)
			}
			djsAdmin(t, on, "DELETE", "/guilds/"+g+"/channels/"+ch, nil, -1, nil)
			bot.waitFields(t, "channelDelete", map[string]string{"channel": ch})
			if c := look(t, g); slices.Contains(c.Channels, "old-news") {
				t.Errorf("guild.channels.cache %v still holds the deleted channel", c.Channels)
			}

			role := djsAdminID(t, on, "POST", "/guilds/"+g+"/roles", map[string]any{"name": "helpers", "permissions": "0"}, "id")
			bot.waitFields(t, "roleCreate", map[string]string{"guild": g, "role": role, "name": "helpers"})
			if c := look(t, g); !slices.Contains(c.Roles, "helpers") {
				t.Errorf("guild.roles.cache %v, want helpers", c.Roles)
			}
			djsAdmin(t, on, "DELETE", "/guilds/"+g+"/roles/"+role, nil, -1, nil)
			bot.waitFields(t, "roleDelete", map[string]string{"role": role})

			djsAdmin(t, on, "PUT", "/guilds/"+g+"/members/"+w.bob, map[string]any{"roles": []string{}}, -1, nil)
			bot.waitFields(t, "memberAdd", map[string]string{"guild": g, "user": w.bob})
			if c := look(t, g); !slices.Contains(c.Members, w.bob) {
				t.Errorf("guild.members.cache %v, want bob %s", c.Members, w.bob)
			}
			djsAdmin(t, on, "DELETE", "/guilds/"+g+"/members/"+w.bob, nil, -1, nil)
			bot.waitFields(t, "memberRemove", map[string]string{"guild": g, "user": w.bob})

			djsAdmin(t, on, "DELETE", "/guilds/"+g+"/installations/"+w.app, nil, -1, nil)
			bot.waitFields(t, "guildDelete", map[string]string{"guild": g})
			bot.do(t, "cachedGuilds", nil, &guilds)
			if slices.Contains(guilds.Guilds, g) {
				t.Errorf("client.guilds.cache %v still holds %s after the uninstallation", guilds.Guilds, g)
			}
		})
	}
}
