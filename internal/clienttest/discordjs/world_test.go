package discordjs

import (
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
)

// djsGuildState is what bot.js's guildState action reports of its caches.
type djsGuildState struct {
	Cached      bool   `json:"cached"`
	Name        string `json:"name"`
	MemberCount int    `json:"memberCount"`
	Channels    []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"channels"`
	Roles []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"roles"`
	Members []struct {
		ID    string   `json:"id"`
		Nick  *string  `json:"nick"`
		Roles []string `json:"roles"`
	} `json:"members"`
}

func (s djsGuildState) channel(id string) string {
	for _, c := range s.Channels {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}

func (s djsGuildState) role(id string) string {
	for _, r := range s.Roles {
		if r.ID == id {
			return r.Name
		}
	}
	return ""
}

func (s djsGuildState) member(id string) (roles []string, ok bool) {
	for _, m := range s.Members {
		if m.ID == id {
			return m.Roles, true
		}
	}
	return nil, false
}

// TestDiscordJSCachesFollowTheWorld: the guide's bot (Guilds and
// GuildMembers intents) keeps its caches as the world changes while it
// is connected: a guild it is installed in appears in client.guilds, its
// channels, roles and members follow each change, and the guild leaves
// the cache when the app is uninstalled, whether the change is made
// through the bot's node or another one. Each step waits for the
// dispatch, then reads discord.js's caches.
func TestDiscordJSCachesFollowTheWorld(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	djsAllowMembersIntent(t, e)
	bot := startDiscordJS(t, e)
	bot.Wait(t, "ready", nil, nil)

	// step makes a change and waits for its dispatch (the next of its
	// type: the bot's own guild's GUILD_CREATE came before), then returns
	// what discord.js's caches hold of guild g.
	step := func(t *testing.T, g, dispatch string, change func()) djsGuildState {
		t.Helper()
		want := map[string]any{"t": dispatch}
		before := 0
		for _, raw := range bot.All("dispatch") {
			if drive.Has(raw, want) {
				before++
			}
		}
		change()
		bot.Nth(t, "dispatch", want, before+1)
		var st djsGuildState
		bot.Do(t, "guildState", map[string]any{"id": g}, &st)
		return st
	}

	// The changes are made through the bot's node, then through another
	// node on the same store: either way they reach the bot's caches.
	for i, node := range []struct {
		name string
		env  *testenv.Env
	}{{"the bot's node", e}, {"another node", e.Node()}} {
		on, suffix := node.env, []string{"", "-2"}[i]
		t.Run(node.name, func(t *testing.T) {
			owner := djsAdminID(t, on, "POST", "/users", map[string]any{"username": "owner" + suffix}, "id")
			g := djsAdminID(t, on, "POST", "/guilds", map[string]any{"name": "second" + suffix, "owner_id": owner}, "id")
			st := step(t, g, "GUILD_CREATE", func() {
				djsAdmin(t, on, "PUT", "/guilds/"+g+"/installations/"+e.App.ApplicationID,
					map[string]any{"scopes": []string{"bot", "applications.commands"}}, 201, nil)
			})
			if !st.Cached || st.Name != "second"+suffix || st.MemberCount != 2 {
				t.Fatalf("after the install: %+v, want the guild cached with its 2 members", st)
			}

			var ch string
			st = step(t, g, "CHANNEL_CREATE", func() {
				ch = djsAdminID(t, on, "POST", "/guilds/"+g+"/channels", map[string]any{"name": "news", "type": 0}, "id")
			})
			if st.channel(ch) != "news" {
				t.Fatalf("after CHANNEL_CREATE: %+v", st.Channels)
			}
			st = step(t, g, "CHANNEL_UPDATE", func() {
				djsAdmin(t, on, "PATCH", "/guilds/"+g+"/channels/"+ch, map[string]any{"name": "old-news"}, 200, nil)
			})
			if st.channel(ch) != "old-news" {
				t.Fatalf("after CHANNEL_UPDATE: %+v", st.Channels)
			}

			var role string
			st = step(t, g, "GUILD_ROLE_CREATE", func() {
				role = djsAdminID(t, on, "POST", "/guilds/"+g+"/roles", map[string]any{"name": "mods"}, "id")
			})
			if st.role(role) != "mods" {
				t.Fatalf("after GUILD_ROLE_CREATE: %+v", st.Roles)
			}
			st = step(t, g, "GUILD_ROLE_UPDATE", func() {
				djsAdmin(t, on, "PATCH", "/guilds/"+g+"/roles/"+role, map[string]any{"name": "moderators"}, 200, nil)
			})
			if st.role(role) != "moderators" {
				t.Fatalf("after GUILD_ROLE_UPDATE: %+v", st.Roles)
			}

			carol := djsAdminID(t, on, "POST", "/users", map[string]any{"username": "carol" + suffix}, "id")
			st = step(t, g, "GUILD_MEMBER_ADD", func() {
				djsAdmin(t, on, "PUT", "/guilds/"+g+"/members/"+carol, map[string]any{"roles": []string{role}}, 201, nil)
			})
			if roles, ok := st.member(carol); !ok || !slices.Contains(roles, role) || st.MemberCount != 3 {
				t.Fatalf("after GUILD_MEMBER_ADD: %+v (count %d)", st.Members, st.MemberCount)
			}
			st = step(t, g, "GUILD_MEMBER_UPDATE", func() {
				djsAdmin(t, on, "PUT", "/guilds/"+g+"/members/"+carol, map[string]any{"roles": []string{}, "nick": "Caz"}, 200, nil)
			})
			if roles, ok := st.member(carol); !ok || slices.Contains(roles, role) {
				t.Fatalf("after GUILD_MEMBER_UPDATE: %+v", st.Members)
			}
			st = step(t, g, "GUILD_MEMBER_REMOVE", func() {
				djsAdmin(t, on, "DELETE", "/guilds/"+g+"/members/"+carol, nil, 204, nil)
			})
			if _, ok := st.member(carol); ok || st.MemberCount != 2 {
				t.Fatalf("after GUILD_MEMBER_REMOVE: %+v (count %d)", st.Members, st.MemberCount)
			}
			st = step(t, g, "GUILD_ROLE_DELETE", func() {
				djsAdmin(t, on, "DELETE", "/guilds/"+g+"/roles/"+role, nil, 204, nil)
			})
			if st.role(role) != "" {
				t.Fatalf("after GUILD_ROLE_DELETE: %+v", st.Roles)
			}
			st = step(t, g, "CHANNEL_DELETE", func() {
				djsAdmin(t, on, "DELETE", "/guilds/"+g+"/channels/"+ch, nil, 204, nil)
			})
			if st.channel(ch) != "" {
				t.Fatalf("after CHANNEL_DELETE: %+v", st.Channels)
			}
			st = step(t, g, "GUILD_UPDATE", func() {
				djsAdmin(t, on, "PATCH", "/guilds/"+g, map[string]any{"name": "renamed"}, 200, nil)
			})
			if st.Name != "renamed" {
				t.Fatalf("after GUILD_UPDATE: %q", st.Name)
			}
			st = step(t, g, "GUILD_DELETE", func() {
				djsAdmin(t, on, "DELETE", "/guilds/"+g+"/installations/"+e.App.ApplicationID, nil, 204, nil)
			})
			if st.Cached {
				t.Fatalf("after the uninstall: %+v, want the guild gone from client.guilds", st)
			}
		})
	}
}
