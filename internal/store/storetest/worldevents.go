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

// change is a WorldEvent without its id.
type change struct {
	guild   snowflake.ID
	kind    string
	op      string
	object  snowflake.ID
	channel *guild.Channel
}

// drain claims every waiting change, in batches of limit.
func drain(t *testing.T, s store.Store, limit int) []change {
	t.Helper()
	ctx := context.Background()
	var out []change
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
				out = append(out, change{e.GuildID, e.Kind, e.Op, e.ObjectID, e.Channel})
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
	must(t, s.CreateRole(ctx, guild.Role{ID: 20, GuildID: 10, Name: "mod"}))
	must(t, s.UpdateRole(ctx, guild.Role{ID: 20, GuildID: 10, Name: "mods"}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 2, Roles: []snowflake.ID{20}}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 2, Nick: "m"}))
	must(t, s.CreateChannel(ctx, ch))
	ch.Name = "chat"
	must(t, s.UpdateChannel(ctx, ch))
	must(t, s.DeleteChannel(ctx, 10, 30))
	must(t, s.DeleteRole(ctx, 10, 20))
	must(t, s.DeleteMember(ctx, 10, 2))
	got := drain(t, s, 3)
	want := []change{
		{10, store.WorldGuild, store.WorldUpdate, 10, nil},
		{10, store.WorldRole, store.WorldCreate, 20, nil},
		{10, store.WorldRole, store.WorldUpdate, 20, nil},
		{10, store.WorldMember, store.WorldCreate, 2, nil},
		{10, store.WorldMember, store.WorldUpdate, 2, nil},
		{10, store.WorldChannel, store.WorldCreate, 30, nil},
		{10, store.WorldChannel, store.WorldUpdate, 30, nil},
		{10, store.WorldChannel, store.WorldDelete, 30, &ch},
		{10, store.WorldRole, store.WorldDelete, 20, nil},
		{10, store.WorldMember, store.WorldDelete, 2, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n got %s\nwant %s", dump(got), dump(want))
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
	for _, c := range []struct {
		guild snowflake.ID
		want  []snowflake.ID
	}{{guildID, []snowflake.ID{appID, otherAppID}}, {guild2ID, []snowflake.ID{otherAppID}}, {999, nil}} {
		got, err := s.BotMembers(ctx, c.guild)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("BotMembers(%d) = %v, want %v", c.guild, got, c.want)
		}
	}
}
