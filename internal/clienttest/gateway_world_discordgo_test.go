package clienttest

// The world's changes reach a connected discordgo bot's cache (its
// State), as they do on the real service: a guild the bot is installed
// in while connected appears (GUILD_CREATE), its channels, roles and
// name follow every change, members come and go with GUILD_MEMBERS, and
// the guild disappears when the bot is uninstalled (GUILD_DELETE).
// Messages arrive with their content only where the real service keeps
// it without MESSAGE_CONTENT.

import (
	"net/http"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/testenv"
)

// stateGuild is what a discordgo State holds of a guild, copied under
// its lock (the state changes it from discordgo's event goroutine).
type stateGuild struct {
	name     string
	channels map[string]string // id → name
	roles    map[string]string // id → name
	members  map[string][]string
}

func readState(s *discordgo.Session, guildID string) (stateGuild, bool) {
	s.State.RLock()
	defer s.State.RUnlock()
	for _, g := range s.State.Guilds {
		if g.ID != guildID {
			continue
		}
		out := stateGuild{name: g.Name, channels: map[string]string{}, roles: map[string]string{}, members: map[string][]string{}}
		for _, c := range g.Channels {
			out.channels[c.ID] = c.Name
		}
		for _, r := range g.Roles {
			out.roles[r.ID] = r.Name
		}
		for _, m := range g.Members {
			if m.User != nil {
				out.members[m.User.ID] = append([]string{}, m.Roles...)
			}
		}
		return out, true
	}
	return stateGuild{}, false
}

// waitState waits until the bot's state of the guild satisfies ok
// (present false: until the guild is gone).
func waitState(t *testing.T, s *discordgo.Session, guildID, what string, ok func(stateGuild, bool) bool) {
	t.Helper()
	testenv.WaitFor(t, what, func() bool {
		g, present := readState(s, guildID)
		return ok(g, present)
	})
}

// admin sends an admin API request that must answer want.
func admin(t *testing.T, e *testenv.Env, method, path string, body any, want int) {
	t.Helper()
	if r := e.Do(method, "/admin/v1"+path, e.AdminAuth(), body); r.Status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
}

func TestDiscordgoStateFollowsTheWorld(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	// The app may have the privileged intents; the bot asks for members
	// and message content as discordgo's README shows.
	admin(t, e, "PATCH", "/applications/"+w.app, map[string]any{"flags": 1<<15 | 1<<19}, http.StatusOK)
	s := exampleSession(t, e)
	s.Identify.Intents = discordgo.IntentsAllWithoutPrivileged | discordgo.IntentsGuildMembers
	messages := make(chan *discordgo.MessageCreate, 16)
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { messages <- m })
	open(t, s)
	waitState(t, s, w.guild, "the first guild in the state", func(_ stateGuild, ok bool) bool { return ok })

	// Installed in a new guild while connected: GUILD_CREATE.
	g := adminID(t, e, "POST", "/guilds", map[string]any{"name": "second", "owner_id": e.App.OwnerUserID}, "id")
	admin(t, e, "PUT", "/guilds/"+g+"/installations/"+w.app, map[string]any{"scopes": []string{"bot", "applications.commands"}}, http.StatusCreated)
	waitState(t, s, g, "the installed guild in the state", func(sg stateGuild, ok bool) bool {
		_, bot := sg.members[w.app]
		return ok && sg.name == "second" && bot
	})

	// Channels: created, renamed, deleted.
	ch := adminID(t, e, "POST", "/guilds/"+g+"/channels", map[string]any{"name": "news", "type": 0}, "id")
	waitState(t, s, g, "CHANNEL_CREATE", func(sg stateGuild, _ bool) bool { return sg.channels[ch] == "news" })
	admin(t, e, "PATCH", "/guilds/"+g+"/channels/"+ch, map[string]any{"name": "old-news"}, http.StatusOK)
	waitState(t, s, g, "CHANNEL_UPDATE", func(sg stateGuild, _ bool) bool { return sg.channels[ch] == "old-news" })

	// Roles: created, renamed; a member joins with it, loses it with its
	// deletion, and leaves.
	role := adminID(t, e, "POST", "/guilds/"+g+"/roles", map[string]any{"name": "mods"}, "id")
	waitState(t, s, g, "GUILD_ROLE_CREATE", func(sg stateGuild, _ bool) bool { return sg.roles[role] == "mods" })
	admin(t, e, "PATCH", "/guilds/"+g+"/roles/"+role, map[string]any{"name": "moderators"}, http.StatusOK)
	waitState(t, s, g, "GUILD_ROLE_UPDATE", func(sg stateGuild, _ bool) bool { return sg.roles[role] == "moderators" })
	admin(t, e, "PUT", "/guilds/"+g+"/members/"+w.member, map[string]any{"roles": []string{role}}, http.StatusCreated)
	waitState(t, s, g, "GUILD_MEMBER_ADD", func(sg stateGuild, _ bool) bool {
		return len(sg.members[w.member]) == 1 && sg.members[w.member][0] == role
	})
	admin(t, e, "PUT", "/guilds/"+g+"/members/"+w.member, map[string]any{"roles": []string{}}, http.StatusOK)
	waitState(t, s, g, "GUILD_MEMBER_UPDATE", func(sg stateGuild, _ bool) bool {
		r, ok := sg.members[w.member]
		return ok && len(r) == 0
	})
	admin(t, e, "DELETE", "/guilds/"+g+"/roles/"+role, nil, http.StatusNoContent)
	waitState(t, s, g, "GUILD_ROLE_DELETE", func(sg stateGuild, _ bool) bool { _, ok := sg.roles[role]; return !ok })
	admin(t, e, "DELETE", "/guilds/"+g+"/members/"+w.member, nil, http.StatusNoContent)
	waitState(t, s, g, "GUILD_MEMBER_REMOVE", func(sg stateGuild, _ bool) bool { _, ok := sg.members[w.member]; return !ok })

	admin(t, e, "DELETE", "/guilds/"+g+"/channels/"+ch, nil, http.StatusNoContent)
	waitState(t, s, g, "CHANNEL_DELETE", func(sg stateGuild, _ bool) bool { _, ok := sg.channels[ch]; return !ok })
	admin(t, e, "PATCH", "/guilds/"+g, map[string]any{"name": "renamed"}, http.StatusOK)
	waitState(t, s, g, "GUILD_UPDATE", func(sg stateGuild, _ bool) bool { return sg.name == "renamed" })

	// Messages in the first guild's channel: without MESSAGE_CONTENT the
	// member's message comes without its content, one mentioning the bot
	// with it.
	post := func(content string) string {
		t.Helper()
		r := e.Do("POST", "/api/v10/channels/"+w.channel+"/messages", w.client, map[string]any{"content": content})
		if r.Status != http.StatusOK {
			t.Fatalf("post %q: %d %s", content, r.Status, r.Body)
		}
		var m struct{ ID string }
		r.JSON(t, &m)
		return m.ID
	}
	for _, c := range []struct{ sent, want string }{
		{"hello", ""},
		{"hi <@" + w.app + ">", "hi <@" + w.app + ">"},
	} {
		id := post(c.sent)
		m := recv(t, messages, "MESSAGE_CREATE")
		if m.ID != id || m.ChannelID != w.channel || m.GuildID != w.guild || m.Content != c.want ||
			m.Author == nil || m.Author.ID != w.member {
			t.Errorf("MESSAGE_CREATE of %q: id %s channel %s guild %s content %q author %+v; want content %q",
				c.sent, m.ID, m.ChannelID, m.GuildID, m.Content, m.Author, c.want)
		}
	}

	// Uninstalled: GUILD_DELETE, and the guild leaves the state.
	admin(t, e, "DELETE", "/guilds/"+g+"/installations/"+w.app, nil, http.StatusNoContent)
	waitState(t, s, g, "GUILD_DELETE", func(_ stateGuild, ok bool) bool { return !ok })
	if _, ok := readState(s, w.guild); !ok {
		t.Error("the first guild left the state too")
	}
}
