package discordjs

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// djsContextReport is what commands/contexts/anywhere.js reports of its
// interaction.
type djsContextReport struct {
	djsReported
	Replied             bool              `json:"replied"`
	Context             *int              `json:"context"`
	Owners              map[string]string `json:"owners"`
	OwnerGuildID        *string           `json:"ownerGuildId"`
	OwnerUserID         *string           `json:"ownerUserId"`
	ChannelType         *int              `json:"channelType"`
	InGuild             bool              `json:"inGuild"`
	InCachedGuild       bool              `json:"inCachedGuild"`
	InRawGuild          bool              `json:"inRawGuild"`
	GuildCached         bool              `json:"guildCached"`
	MemberIsGuildMember bool              `json:"memberIsGuildMember"`
	AppPermissions      string            `json:"appPermissions"`
}

// TestDiscordJSContexts runs the guide's bot with a command that declares
// every interaction context and both installation types
// (commands/contexts/anywhere.js: "Slash command permissions: Contexts",
// with setIntegrationTypes), deployed globally by the guide's script, and
// answered with the default interaction.reply() where the bot has no
// guild: in alice's DM with the bot (which shares the guide's guild with
// her: BOT_DM through the guild install), and in a guild without the
// app, by bob, who installed the app to his account (GUILD through the
// user install). discord.js must build both interactions (the DM it has
// not cached; a guild it is not in, with a member that is no
// GuildMember) and answer without an error.
func TestDiscordJSContexts(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDJSWorld(t, e)
	var deployed struct {
		Commands []djsCommand `json:"commands"`
	}
	runDJS(t, e, djsDeploy, "global").Wait(t, "deployed", nil, &deployed)
	cmd := byName(deployed.Commands)["anywhere"]
	if !slices.Equal(cmd.IntegrationTypes, []int{0, 1}) || !slices.Equal(cmd.Contexts, []int{0, 1, 2}) {
		t.Fatalf("anywhere deployed as %+v, want integration_types [0 1] and contexts [0 1 2]", cmd)
	}
	bot := startDiscordJS(t, e)
	bot.Wait(t, "ready", nil, nil)
	invocation := func(channel, guildID string) map[string]any {
		body := map[string]any{"type": 2, "application_id": w.app, "channel_id": channel,
			"data": map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version}}
		if guildID != "" {
			body["guild_id"] = guildID
		}
		return body
	}
	// answered checks that the invocation's answer is the bot's "Pong!" in
	// channel, that the user of client reads it there, and returns what
	// discord.js reported of the interaction.
	answered := func(t *testing.T, a djsAnswer, channel, client string) djsContextReport {
		t.Helper()
		msg := a.message(t)
		if msg.Content != "Pong!" || msg.Author.ID != w.app || msg.ChannelID != channel || msg.Flags != 0 ||
			msg.InteractionMetadata == nil || msg.InteractionMetadata.ID != a.Interaction.ID {
			t.Errorf("anywhere answered %+v, want Pong! in %s", msg, channel)
		}
		var got djsContextReport
		bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
		bot.wantREST(t, "POST", "/interactions/"+a.Interaction.ID+"/"+djsTokenOf(t, bot, a.Interaction.ID)+"/callback", 204)
		r := e.Do("GET", "/api/v10/channels/"+channel+"/messages", client, nil)
		var msgs []djsMessage
		if r.Status != 200 {
			t.Fatalf("list messages of %s: %d %s", channel, r.Status, r.Body)
		}
		r.JSON(t, &msgs)
		if i := slices.IndexFunc(msgs, func(m djsMessage) bool { return m.ID == msg.ID }); i < 0 || msgs[i].Content != "Pong!" {
			t.Errorf("the user reads %+v in %s, want the reply %s", msgs, channel, msg.ID)
		}
		return got
	}

	t.Run("BOT_DM through the guild install", func(t *testing.T) {
		dm := djsOpenDM(t, e, w.member, w.app)
		got := answered(t, w.invokeAs(t, w.client, invocation(dm, "")), dm, w.client)
		if got.Context == nil || *got.Context != 1 || !maps.Equal(got.Owners, map[string]string{"0": "0"}) ||
			got.OwnerGuildID == nil || *got.OwnerGuildID != "0" || got.OwnerUserID != nil {
			t.Errorf("discord.js: context %v owners %v (guildId %v userId %v), want 1 (BOT_DM) and {0: 0}",
				deref(got.Context), got.Owners, deref(got.OwnerGuildID), deref(got.OwnerUserID))
		}
		// The guide's client has no partials: discord.js caches no DM it
		// did not see created, so interaction.channel is null (as against
		// the real service); channelId is the DM's.
		if got.GuildID != "" || got.ChannelID != dm || got.ChannelType != nil || got.InGuild || got.MemberID != "" ||
			got.UserID != w.member || got.Username != "alice" || !got.Replied {
			t.Errorf("the DM interaction as discord.js saw it: %+v (channel type %v)", got, deref(got.ChannelType))
		}
	})

	t.Run("GUILD through a user install where the app is not", func(t *testing.T) {
		bare := djsAdminID(t, e, "POST", "/guilds", map[string]any{"name": "no app here", "owner_id": w.bob}, "id")
		djsAdmin(t, e, "PUT", "/guilds/"+bare+"/members/"+w.bob, map[string]any{"roles": []string{}}, -1, nil)
		lobby := djsAdminID(t, e, "POST", "/guilds/"+bare+"/channels", map[string]any{"name": "lobby", "type": 0}, "id")
		if err := e.Store.InstallForUser(context.Background(), store.UserInstallation{UserID: djsID(t, w.bob),
			ApplicationID: djsID(t, w.app), Scopes: []string{"applications.commands"}, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		got := answered(t, w.invokeAs(t, w.bobClient, invocation(lobby, bare)), lobby, w.bobClient)
		if got.Context == nil || *got.Context != 0 || !maps.Equal(got.Owners, map[string]string{"1": w.bob}) ||
			got.OwnerGuildID != nil || got.OwnerUserID == nil || *got.OwnerUserID != w.bob {
			t.Errorf("discord.js: context %v owners %v (guildId %v userId %v), want 0 (GUILD) and {1: %s}",
				deref(got.Context), got.Owners, deref(got.OwnerGuildID), deref(got.OwnerUserID), w.bob)
		}
		// A guild discord.js does not have: no Guild, the member as the
		// API sent it (no GuildMember), no channel; inRawGuild.
		if got.GuildID != bare || got.ChannelID != lobby || got.ChannelType != nil || !got.InGuild || got.InCachedGuild ||
			!got.InRawGuild || got.GuildCached || got.MemberIsGuildMember || got.MemberID != w.bob || got.UserID != w.bob ||
			!got.Replied {
			t.Errorf("the user-install interaction as discord.js saw it: %+v", got)
		}
	})

	t.Run("client.users.fetch reads a user it has not cached", func(t *testing.T) {
		whois := byName(deployed.Commands)["whois"]
		// carol shares no guild with the bot, so discord.js cannot have
		// cached her: only GET /users/{id} can answer.
		carol := djsAdminID(t, e, "POST", "/users", map[string]any{"username": "carol"}, "id")
		// (An unknown id's 404 is TestGetUser's: every REST call here
		// must succeed, as cleanREST checks below.)
		body := invocation(w.channel, w.guild)
		body["data"] = map[string]any{"id": whois.ID, "name": whois.Name, "type": whois.Type, "version": whois.Version,
			"options": []map[string]any{{"name": "id", "type": 3, "value": carol}}}
		a := w.invokeAs(t, w.client, body)
		if reply := a.message(t); reply.Content != "carol (bot: false)" {
			t.Errorf("whois answered %q, want carol's name", reply.Content)
		}
		var got struct {
			djsReported
			FetchedID   *string `json:"fetchedId"`
			FetchedName *string `json:"fetchedName"`
			ErrorCode   *int    `json:"errorCode"`
		}
		bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
		if deref(got.FetchedID) != carol || deref(got.FetchedName) != "carol" || got.ErrorCode != nil {
			t.Errorf("discord.js fetched %v %v (error %v), want carol %s", deref(got.FetchedID), deref(got.FetchedName), deref(got.ErrorCode), carol)
		}
		bot.wantREST(t, "GET", "/users/"+carol, 200)
	})

	t.Run("user.send opens the DM and posts there", func(t *testing.T) {
		dmMe := byName(deployed.Commands)["dm-me"]
		body := invocation(w.channel, w.guild)
		body["data"] = map[string]any{"id": dmMe.ID, "name": dmMe.Name, "type": dmMe.Type, "version": dmMe.Version}
		a := w.invokeAs(t, w.client, body)
		if reply := a.message(t); reply.Content != "Check your DMs." || reply.Flags&64 == 0 {
			t.Errorf("dm-me answered %+v, want the ephemeral reply", reply)
		}
		var got struct {
			djsReported
			DMChannelID   string  `json:"dmChannelId"`
			DMMessageID   string  `json:"dmMessageId"`
			DMChannelType *int    `json:"dmChannelType"`
			DMRecipientID *string `json:"dmRecipientId"`
		}
		bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
		bot.wantREST(t, "POST", "/users/@me/channels", 200)
		if got.DMChannelType == nil || *got.DMChannelType != 1 || deref(got.DMRecipientID) != w.member {
			t.Errorf("discord.js's DM: type %v, recipient %v", deref(got.DMChannelType), deref(got.DMRecipientID))
		}
		// alice finds the DM in her channel list, the bot's message in it.
		var channels []struct {
			ID         string `json:"id"`
			Type       int    `json:"type"`
			Recipients []struct {
				ID string `json:"id"`
			} `json:"recipients"`
		}
		e.Do("GET", "/api/v10/users/@me/channels", w.client, nil).JSON(t, &channels)
		i := slices.IndexFunc(channels, func(c struct {
			ID         string `json:"id"`
			Type       int    `json:"type"`
			Recipients []struct {
				ID string `json:"id"`
			} `json:"recipients"`
		}) bool {
			return c.ID == got.DMChannelID
		})
		if i < 0 || channels[i].Type != 1 || len(channels[i].Recipients) != 1 || channels[i].Recipients[0].ID != w.app {
			t.Fatalf("alice's channels %+v lack the DM %s with the bot", channels, got.DMChannelID)
		}
		var msgs []djsMessage
		e.Do("GET", "/api/v10/channels/"+got.DMChannelID+"/messages", w.client, nil).JSON(t, &msgs)
		if len(msgs) == 0 || msgs[0].ID != got.DMMessageID || msgs[0].Content != "Hello from your DMs!" || msgs[0].Author.ID != w.app {
			t.Errorf("alice reads %+v in the DM, want the bot's message %s", msgs, got.DMMessageID)
		}
	})

	// Nothing went wrong anywhere: no error reported, every REST request
	// answered 2xx the first time; the bot still answers in its guild.
	ping := w.invokeAs(t, w.client, invocation(w.channel, w.guild)).message(t)
	if ping.Content != "Pong!" || ping.ChannelID != w.channel {
		t.Errorf("anywhere in the app's guild answered %+v", ping)
	}
	if errs := bot.All("error"); len(errs) != 0 {
		t.Errorf("discord.js reported errors: %s", errs)
	}
	bot.cleanREST(t)
	bot.Stop(t)
}

// djsOpenDM opens the DM of two users through the admin API and returns
// its id.
func djsOpenDM(t *testing.T, e *testenv.Env, a, b string) string {
	t.Helper()
	var dm map[string]any
	djsAdmin(t, e, "POST", "/users/"+a+"/channels", map[string]any{"recipient_id": b}, -1, &dm)
	id, _ := dm["id"].(string)
	if id == "" {
		t.Fatalf("open the DM of %s and %s: %v", a, b, dm)
	}
	return id
}

func djsID(t *testing.T, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// deref is *p, or nil.
func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
