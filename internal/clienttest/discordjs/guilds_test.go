package discordjs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
)

// djsMemberReport is what commands/utility/member.js reports.
type djsMemberReport struct {
	djsReported
	CachedBefore   bool     `json:"cachedBefore"`
	FetchedID      *string  `json:"fetchedId"`
	MemberUsername string   `json:"memberUsername"`
	Nickname       *string  `json:"nickname"`
	JoinedAt       *string  `json:"joinedAt"`
	MemberRoleIDs  []string `json:"memberRoleIds"`
	Roles          []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Permissions string `json:"permissions"`
		Position    int    `json:"position"`
	} `json:"roles"`
	Channels []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type int    `json:"type"`
	} `json:"channels"`
	GuildName                string `json:"guildName"`
	ApproximateMemberCount   *int   `json:"approximateMemberCount"`
	ApproximatePresenceCount *int   `json:"approximatePresenceCount"`
	ErrorCode                *int   `json:"errorCode"`
}

// TestDiscordJSGuildFetch runs the guide's bot (default options) with
// commands/utility/member.js: alice looks up carol, a member discord.js
// has not cached (she joined before the bot connected, and GUILD_CREATE
// lists only the bot's own member), so guild.members.fetch(id) must ask
// GET /guilds/{id}/members/{user_id}; guild.roles.fetch(),
// guild.channels.fetch() and guild.fetch() read the guild's roles,
// channels and counts. Every REST call must succeed the first time.
// dave, who joins while the bot is connected, is in discord.js's cache
// already (GUILD_MEMBER_ADD, with the GuildMembers intent).
func TestDiscordJSGuildFetch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDJSWorld(t, e)
	var deployed struct {
		Commands []djsCommand `json:"commands"`
	}
	runDJS(t, e, djsDeploy, "global").Wait(t, "deployed", nil, &deployed)
	cmd := byName(deployed.Commands)["member"]
	helpers := djsAdminID(t, e, "POST", "/guilds/"+w.guild+"/roles",
		map[string]any{"name": "helpers", "permissions": "2048", "position": 1}, "id")
	carol := djsAdminID(t, e, "POST", "/users", map[string]any{"username": "carol"}, "id")
	djsAdmin(t, e, "PUT", "/guilds/"+w.guild+"/members/"+carol, map[string]any{"roles": []string{helpers}, "nick": "Caz"}, -1, nil)
	bot := startDiscordJS(t, e)
	bot.Wait(t, "ready", nil, nil)

	dave := djsAdminID(t, e, "POST", "/users", map[string]any{"username": "dave"}, "id")
	djsAdmin(t, e, "PUT", "/guilds/"+w.guild+"/members/"+dave, map[string]any{"roles": []string{}}, -1, nil)
	category := djsAdminID(t, e, "POST", "/guilds/"+w.guild+"/channels", map[string]any{"name": "info", "type": 4}, "id")
	thread := djsAdminID(t, e, "POST", "/guilds/"+w.guild+"/channels",
		map[string]any{"name": "a thread", "type": 11, "parent_id": w.channel}, "id")
	stranger := djsAdminID(t, e, "POST", "/users", map[string]any{"username": "stranger"}, "id")

	lookUp := func(t *testing.T, id string) djsMemberReport {
		t.Helper()
		a := w.run(t, 2, cmd, map[string]any{"options": []map[string]any{{"name": "id", "type": 3, "value": id}}})
		var got djsMemberReport
		bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
		return got
	}

	t.Run("a member discord.js has not cached", func(t *testing.T) {
		got := lookUp(t, carol)
		if got.ErrorCode != nil || got.CachedBefore || deref(got.FetchedID) != carol || got.MemberUsername != "carol" ||
			deref(got.Nickname) != "Caz" || !slices.Equal(got.MemberRoleIDs, []string{w.guild, helpers}) {
			t.Fatalf("discord.js fetched %+v (error %v), want carol (Caz) with @everyone and helpers %s, not cached before",
				got, deref(got.ErrorCode), helpers)
		}
		if got.JoinedAt == nil {
			t.Errorf("joinedAt null")
		} else if joined, err := time.Parse(time.RFC3339, *got.JoinedAt); err != nil || time.Since(joined) > time.Hour {
			t.Errorf("joinedAt %s: %v", *got.JoinedAt, err)
		}
		bot.wantREST(t, "GET", "/guilds/"+w.guild+"/members/"+carol, 200)

		roles := map[string]string{}
		for _, r := range got.Roles {
			roles[r.ID] = r.Name + "/" + r.Permissions
		}
		if roles[helpers] != "helpers/2048" || roles[w.guild] == "" {
			t.Errorf("discord.js's roles %v, want helpers (2048) and @everyone", got.Roles)
		}
		bot.wantREST(t, "GET", "/guilds/"+w.guild+"/roles", 200)

		var channels []string
		for _, c := range got.Channels {
			channels = append(channels, c.ID)
		}
		if !slices.Contains(channels, w.channel) || !slices.Contains(channels, category) || slices.Contains(channels, thread) {
			t.Errorf("discord.js's channels %v, want general and the category, not the thread", got.Channels)
		}
		bot.wantREST(t, "GET", "/guilds/"+w.guild+"/channels", 200)

		// The app's bot, alice, bob and carol (and the owner, if a member).
		if n := got.ApproximateMemberCount; n == nil || *n < 4 || got.ApproximatePresenceCount == nil ||
			*got.ApproximatePresenceCount != 0 || got.GuildName == "" {
			t.Errorf("guild.fetch(): %q, approximate counts %v / %v", got.GuildName, deref(got.ApproximateMemberCount),
				deref(got.ApproximatePresenceCount))
		}
		bot.wantREST(t, "GET", "/guilds/"+w.guild, 200)
		bot.cleanREST(t)
	})

	t.Run("a member who joined while the bot was connected", func(t *testing.T) {
		got := lookUp(t, dave)
		if got.ErrorCode != nil || !got.CachedBefore || deref(got.FetchedID) != dave || got.MemberUsername != "dave" {
			t.Fatalf("discord.js fetched %+v (error %v), want dave from its cache", got, deref(got.ErrorCode))
		}
		for _, r := range bot.rest(t) {
			if strings.HasSuffix(r.Path, "/members/"+dave) {
				t.Errorf("discord.js asked %s %s for a member it had cached", r.Method, r.Path)
			}
		}
		bot.cleanREST(t)
	})

	t.Run("a user who is not a member", func(t *testing.T) {
		got := lookUp(t, stranger)
		if got.FetchedID != nil || got.ErrorCode == nil || *got.ErrorCode != 10007 {
			t.Errorf("discord.js fetched %v, error %v; want Unknown Member (10007)", deref(got.FetchedID), deref(got.ErrorCode))
		}
		bot.wantREST(t, "GET", "/guilds/"+w.guild+"/members/"+stranger, 404)
	})
}
