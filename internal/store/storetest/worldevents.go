package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

func testWorldEvents(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("every world write records its change", func(t *testing.T) { testWorldEventsRecorded(t, open) })
	t.Run("a failed claim keeps the changes", func(t *testing.T) { testWorldEventsFailedClaim(t, open) })
	t.Run("BotMembers", func(t *testing.T) { testBotMembers(t, open) })
}

// change is a WorldEvent without its id, its recorded object named (a
// role's or channel's name, a member's nick).
type change struct {
	guild  snowflake.ID
	kind   string
	op     string
	object snowflake.ID
	name   string
}

func changeOf(e store.WorldEvent) change {
	c := change{guild: e.GuildID, kind: e.Kind, op: e.Op, object: e.ObjectID}
	switch {
	case e.Role != nil:
		c.name = "role " + e.Role.Name
	case e.Member != nil:
		c.name = "nick " + e.Member.Nick
	case e.Channel != nil:
		c.name = "channel " + e.Channel.Name
	}
	return c
}

// drain claims every waiting change, in batches of limit.
func drain(t *testing.T, s store.Store, limit int) []change {
	t.Helper()
	var out []change
	for _, e := range drainEvents(t, s, limit) {
		out = append(out, changeOf(e))
	}
	return out
}

// drainEvents claims every waiting change, in batches of limit.
func drainEvents(t *testing.T, s store.Store, limit int) []store.WorldEvent {
	t.Helper()
	ctx := context.Background()
	var out []store.WorldEvent
	for {
		n := 0
		err := s.ClaimWorldEvents(ctx, limit, func(es []store.WorldEvent) error {
			if len(es) > limit {
				t.Errorf("claimed %d, limit %d", len(es), limit)
			}
			for i, e := range es {
				if i > 0 && e.ID <= es[i-1].ID {
					t.Errorf("claimed out of order: %d after %d", e.ID, es[i-1].ID)
				}
				out = append(out, e)
			}
			n = len(es)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return out
		}
	}
}

func testWorldEventsRecorded(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	if has, err := s.HasWorldEvents(ctx); err != nil || has {
		t.Fatalf("a new store has world events: %v, %v", has, err)
	}
	must(t, s.CreateUser(ctx, store.User{ID: 1, Username: "owner"}))
	must(t, s.CreateUser(ctx, store.User{ID: 2, Username: "member"}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 10, Name: "g", OwnerID: 1}))
	if has, err := s.HasWorldEvents(ctx); err != nil || !has {
		t.Fatalf("after CreateGuild: %v, %v", has, err)
	}
	drain(t, s, 100) // the guild's creation: its @everyone and owner
	ow := []guild.Overwrite{{ID: 10, Type: 0, Allow: 1 << 10, Deny: 1 << 11}}
	ch := guild.Channel{ID: 30, GuildID: 10, Type: 0, Name: "general", NSFW: true, Position: 2, Overwrites: ow}
	must(t, s.UpdateGuild(ctx, store.Guild{ID: 10, Name: "renamed", OwnerID: 1}))
	must(t, s.CreateRole(ctx, guild.Role{ID: 20, GuildID: 10, Name: "mod", Permissions: 1 << 3, Position: 2, Managed: true}))
	must(t, s.UpdateRole(ctx, guild.Role{ID: 20, GuildID: 10, Name: "mods"}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 2, Roles: []snowflake.ID{20}, JoinedAt: ms(5)}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 2, Nick: "m"}))
	must(t, s.CreateChannel(ctx, ch))
	ch.Name = "chat"
	must(t, s.UpdateChannel(ctx, ch))
	must(t, s.DeleteChannel(ctx, 10, 30))
	must(t, s.DeleteRole(ctx, 10, 20))
	must(t, s.DeleteMember(ctx, 10, 2))
	events := drainEvents(t, s, 3)
	var got []change
	for _, e := range events {
		got = append(got, changeOf(e))
	}
	want := []change{
		{10, store.WorldGuild, store.WorldUpdate, 10, ""},
		{10, store.WorldRole, store.WorldCreate, 20, "role mod"},
		{10, store.WorldRole, store.WorldUpdate, 20, "role mods"},
		{10, store.WorldMember, store.WorldCreate, 2, "nick "},
		{10, store.WorldMember, store.WorldUpdate, 2, "nick m"},
		{10, store.WorldChannel, store.WorldCreate, 30, "channel general"},
		{10, store.WorldChannel, store.WorldUpdate, 30, "channel chat"},
		{10, store.WorldChannel, store.WorldDelete, 30, "channel chat"},
		{10, store.WorldRole, store.WorldDelete, 20, "role mods"},
		{10, store.WorldMember, store.WorldDelete, 2, "nick m"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n got %s\nwant %s", dump(got), dump(want))
	}
	// Each records its object whole: the member as added (with its
	// role), the channel as deleted.
	if len(events) == len(want) {
		if m := events[3].Member; m == nil || !reflect.DeepEqual(m.Roles, []snowflake.ID{20}) || m.UserID != 2 ||
			m.GuildID != 10 || m.JoinedAt.IsZero() {
			t.Errorf("member added: %+v", m)
		}
		if c := events[7].Channel; c == nil || !reflect.DeepEqual(*c, ch) {
			t.Errorf("channel deleted: %+v, want %+v", c, ch)
		}
		if r := events[1].Role; r == nil || r.ID != 20 || r.GuildID != 10 || r.Permissions != 1<<3 || r.Position != 2 || !r.Managed {
			t.Errorf("role created: %+v", r)
		}
	}
	if has, err := s.HasWorldEvents(ctx); err != nil || has {
		t.Errorf("after claiming them all: %v, %v", has, err)
	}
	// Deleting the guild records its members' removals (the bots' leave
	// is what their GUILD_DELETE comes from).
	must(t, s.DeleteGuild(ctx, 10))
	var members []snowflake.ID
	for _, c := range drain(t, s, 100) {
		if c.kind == store.WorldMember && c.op == store.WorldDelete {
			members = append(members, c.object)
		}
	}
	if !reflect.DeepEqual(members, []snowflake.ID{1}) {
		t.Errorf("DeleteGuild recorded the removal of members %v, want [1]", members)
	}
}

func testWorldEventsFailedClaim(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	must(t, s.CreateUser(ctx, store.User{ID: 1, Username: "owner"}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 10, Name: "g", OwnerID: 1}))
	before := drain(t, s, 100)
	must(t, s.CreateGuild(ctx, store.Guild{ID: 11, Name: "h", OwnerID: 1}))
	boom := errors.New("publish failed")
	if err := s.ClaimWorldEvents(ctx, 100, func([]store.WorldEvent) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("claim: %v, want %v", err, boom)
	}
	again := drain(t, s, 100)
	if len(again) != len(before) || len(again) == 0 {
		t.Errorf("after a failed claim: %s, want as many as %s", dump(again), dump(before))
	}
	called := false
	must(t, s.ClaimWorldEvents(ctx, 100, func([]store.WorldEvent) error { called = true; return nil }))
	if called {
		t.Error("fn called with nothing to claim")
	}
}

func testBotMembers(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	must(t, s.CreateUser(ctx, store.User{ID: ownerID, Username: "owner"}))
	for _, id := range []snowflake.ID{otherAppID, appID} {
		a, u := newApp(id)
		must(t, s.CreateApplication(ctx, a, u))
	}
	must(t, s.CreateGuild(ctx, store.Guild{ID: guildID, Name: "g", OwnerID: ownerID}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: guild2ID, Name: "h", OwnerID: ownerID}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: guildID, UserID: otherAppID}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: guildID, UserID: appID}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: guild2ID, UserID: otherAppID}))
	want := func(after int64, cases map[snowflake.ID][]snowflake.ID) {
		t.Helper()
		for g, want := range cases {
			got, err := s.BotMembers(ctx, g, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("BotMembers(%d, after %d) = %v, want %v", g, after, got, want)
			}
		}
	}
	// The joins wait in the outbox: none is a member to the gateway yet,
	// unless the claim of the changes holding them asks.
	want(0, map[snowflake.ID][]snowflake.ID{guildID: nil, guild2ID: nil})
	var last int64
	must(t, s.ClaimWorldEvents(ctx, 1000, func(es []store.WorldEvent) error {
		last = es[len(es)-1].ID
		want(last, map[snowflake.ID][]snowflake.ID{guildID: {appID, otherAppID}, guild2ID: {otherAppID}, 999: nil})
		return nil
	}))
	want(0, map[snowflake.ID][]snowflake.ID{guildID: {appID, otherAppID}, guild2ID: {otherAppID}, 999: nil})
	// A bot joining after the claimed changes (while they render) is not
	// a member to that claim.
	must(t, s.PutMember(ctx, guild.Member{GuildID: guild2ID, UserID: appID}))
	want(last, map[snowflake.ID][]snowflake.ID{guild2ID: {otherAppID}})
	want(0, map[snowflake.ID][]snowflake.ID{guild2ID: {otherAppID}})
}
