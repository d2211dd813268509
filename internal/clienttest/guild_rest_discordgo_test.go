package clienttest

// discordgo reads a guild over REST with its default options (API v9,
// its own endpoints): Session.Guild, GuildMember, GuildMembers,
// GuildRoles and GuildChannels, as a bot calls them, and gets the
// API's errors as *discordgo.RESTError.

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// restCode is the API error code of a discordgo REST error (0: none).
func restCode(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Message != nil {
		return re.Message.Code
	}
	return 0
}

func TestDiscordgoGuildREST(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// discordgo on its defaults, never opened (REST only: its state
	// stays empty, so every read goes to the API).
	s, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	guildID := e.App.GuildID
	ids := addGuildMembers(t, e, false, "carol", "dave")
	stranger := addGuildMembers(t, e, true, "stranger")[0]

	g, err := s.Guild(guildID)
	if err != nil || g.ID != guildID || g.Name == "" || len(g.Roles) == 0 || g.OwnerID == "" {
		t.Fatalf("Guild: %+v, %v", g, err)
	}
	withCounts, err := s.GuildWithCounts(guildID)
	if err != nil || withCounts.ApproximateMemberCount < 3 {
		t.Errorf("GuildWithCounts: %+v, %v", withCounts, err)
	}

	m, err := s.GuildMember(guildID, ids[0])
	if err != nil || m.User == nil || m.User.ID != ids[0] || m.User.Username != "carol" || m.JoinedAt.IsZero() {
		t.Fatalf("GuildMember(carol): %+v, %v", m, err)
	}
	if _, err := s.GuildMember(guildID, stranger); restCode(err) != 10007 {
		t.Errorf("GuildMember(stranger): %v, want Unknown Member (10007)", err)
	}

	roles, err := s.GuildRoles(guildID)
	if err != nil || !slices.ContainsFunc(roles, func(r *discordgo.Role) bool { return r.ID == guildID && r.Name == "@everyone" }) {
		t.Errorf("GuildRoles: %+v, %v", roles, err)
	}
	if _, err := s.GuildChannels(guildID); err != nil {
		t.Errorf("GuildChannels: %v", err)
	}

	// The member list: Missing Access until the app has the
	// GUILD_MEMBERS intent enabled, then every member by user id.
	if _, err := s.GuildMembers(guildID, "", 1000); restCode(err) != 50001 {
		t.Errorf("GuildMembers without the intent: %v, want Missing Access (50001)", err)
	}
	appID, err := snowflake.Parse(e.App.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.API.Store().SetApplicationFlags(context.Background(), appID, 1<<14); err != nil {
		t.Fatal(err)
	}
	members, err := s.GuildMembers(guildID, "", 1000)
	if err != nil {
		t.Fatalf("GuildMembers: %v", err)
	}
	var listed []string
	for _, m := range members {
		listed = append(listed, m.User.ID)
	}
	if !slices.Contains(listed, ids[0]) || !slices.Contains(listed, ids[1]) || slices.Contains(listed, stranger) {
		t.Errorf("GuildMembers listed %v, want carol and dave (%v), not the stranger", listed, ids)
	}
	page, err := s.GuildMembers(guildID, ids[0], 1)
	if err != nil || len(page) != 1 || page[0].User.ID != ids[1] {
		t.Errorf("GuildMembers after carol: %+v, %v; want dave", page, err)
	}
}
