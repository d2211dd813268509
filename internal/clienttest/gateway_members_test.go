package clienttest

// discordgo asks slashd's gateway for guild members (op 8) through its
// own API, Session.RequestGuildMembers and RequestGuildMembersList, and
// reads the answer through its GuildMembersChunk handler, as its
// documentation shows (wsapi.go; events.go). discordgo keeps its
// defaults (API v9, compress, state) but its intents where a test needs
// GUILD_MEMBERS, set the way its README sets them: session.Identify.Intents.
// This file is self-contained: it aims discordgo at the test server with
// its own transport.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// membersTransport sends discordgo's requests for discord.com to the
// test server.
type membersTransport struct {
	target *url.URL
	base   http.RoundTripper
}

func (rt membersTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != "discord.com" {
		return nil, fmt.Errorf("membersTransport: unexpected host %q", r.URL.Host)
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host = rt.target.Scheme, rt.target.Host, ""
	return rt.base.RoundTrip(out)
}

// membersBot is a connected discordgo session and the chunks it gets.
type membersBot struct {
	s      *discordgo.Session
	chunks chan *discordgo.GuildMembersChunk
}

// startMembersBot opens a discordgo session with intents (0: discordgo's
// default) and waits for READY.
func startMembersBot(t *testing.T, e *testenv.Env, intents discordgo.Intent) *membersBot {
	t.Helper()
	s, err := discordgo.New("Bot " + e.App.BotToken)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: membersTransport{target: target, base: e.Server.Client().Transport},
		Timeout: 20 * time.Second}
	if intents != 0 {
		s.Identify.Intents = intents
	}
	b := &membersBot{s: s, chunks: make(chan *discordgo.GuildMembersChunk, 16)}
	ready := make(chan struct{}, 1)
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Ready) { ready <- struct{}{} })
	s.AddHandler(func(_ *discordgo.Session, c *discordgo.GuildMembersChunk) { b.chunks <- c })
	if err := s.Open(); err != nil {
		t.Fatalf("discordgo Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("no READY")
	}
	return b
}

// chunk waits for the next GuildMembersChunk.
func (b *membersBot) chunk(t *testing.T) *discordgo.GuildMembersChunk {
	t.Helper()
	select {
	case c := <-b.chunks:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no GuildMembersChunk")
		return nil
	}
}

// usernames are the chunk's members' usernames, in order.
func usernames(c *discordgo.GuildMembersChunk) []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.User.Username
	}
	return out
}

// addGuildMembers creates users with the given names, members of the
// env's guild unless outside; it returns their ids.
func addGuildMembers(t *testing.T, e *testenv.Env, outside bool, names ...string) []string {
	t.Helper()
	ctx := context.Background()
	g, err := snowflake.Parse(e.App.GuildID)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(names))
	for i, name := range names {
		id := e.IDs.Next()
		if err := e.Store.CreateUser(ctx, store.User{ID: id, Username: name, CreatedAt: e.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		if !outside {
			if err := e.Store.PutMember(ctx, guild.Member{GuildID: g, UserID: id, JoinedAt: e.Clock.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		ids[i] = id.String()
	}
	return ids
}

func TestDiscordgoRequestGuildMembers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	members := addGuildMembers(t, e, false, "alice", "albert", "bob")
	outsider := addGuildMembers(t, e, true, "alfred")[0]
	b := startMembersBot(t, e, 0) // discordgo's default intents: no GUILD_MEMBERS

	// A username prefix (discordgo sends guild_id as a list).
	if err := b.s.RequestGuildMembers(e.App.GuildID, "AL", 10, "dgo-query", false); err != nil {
		t.Fatal(err)
	}
	c := b.chunk(t)
	if c.GuildID != e.App.GuildID || c.Nonce != "dgo-query" || c.ChunkIndex != 0 || c.ChunkCount != 1 ||
		!slices.Equal(usernames(c), []string{"alice", "albert"}) {
		t.Errorf("chunk: guild %s nonce %q index %d of %d members %v", c.GuildID, c.Nonce, c.ChunkIndex, c.ChunkCount,
			usernames(c))
	}
	for _, m := range c.Members {
		if m.JoinedAt.IsZero() || m.Roles == nil {
			t.Errorf("member %+v: no joined_at or roles", m)
		}
	}

	// User ids: the members, and the others in not_found.
	if err := b.s.RequestGuildMembersList(e.App.GuildID, []string{members[2], outsider}, 0, "dgo-ids", false); err != nil {
		t.Fatal(err)
	}
	c = b.chunk(t)
	if c.Nonce != "dgo-ids" || !slices.Equal(usernames(c), []string{"bob"}) ||
		!slices.Equal(c.NotFound, []string{outsider}) {
		t.Errorf("chunk: nonce %q members %v not_found %v", c.Nonce, usernames(c), c.NotFound)
	}
}

// TestDiscordgoRequestAllGuildMembers: with the GUILD_MEMBERS intent (the
// app allowed it), query "" and limit 0 answer every member.
func TestDiscordgoRequestAllGuildMembers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	addGuildMembers(t, e, false, "alice", "bob")
	app, err := snowflake.Parse(e.App.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.API.Store().SetApplicationFlags(context.Background(), app, 1<<15); err != nil { // GATEWAY_GUILD_MEMBERS_LIMITED
		t.Fatal(err)
	}
	b := startMembersBot(t, e, discordgo.IntentsAllWithoutPrivileged|discordgo.IntentsGuildMembers)
	if err := b.s.RequestGuildMembers(e.App.GuildID, "", 0, "dgo-all", false); err != nil {
		t.Fatal(err)
	}
	c := b.chunk(t)
	got := usernames(c)
	slices.Sort(got)
	if c.Nonce != "dgo-all" || c.ChunkCount != 1 || !slices.Equal(got, []string{"alice", "bob", "owner", "testapp"}) {
		t.Errorf("chunk: nonce %q count %d members %v", c.Nonce, c.ChunkCount, got)
	}
}
