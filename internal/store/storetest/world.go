package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Ids of the world fixture's users, roles and channels: below idBase,
// apart from the fixture's apps and guilds.
const (
	aliceID snowflake.ID = 2
	bobID   snowflake.ID = 3
	carolID snowflake.ID = 4

	role1ID  snowflake.ID = 1001
	role2ID  snowflake.ID = 1002
	role3ID  snowflake.ID = 1003
	role4ID  snowflake.ID = 2001 // in guild 2
	unknown  snowflake.ID = 999_999
	joinedMs              = 1_700_000_000_000
)

// errCase is one call and the sentinel it must fail with.
type errCase struct {
	name string
	call func() error
	want error
}

func checkErrs(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func (f *fixture) user(t *testing.T, id snowflake.ID, name string) store.User {
	t.Helper()
	u := store.User{ID: id, Username: name, CreatedAt: ms(1_600_000_000_000 + int64(id))}
	must(t, f.s.CreateUser(f.ctx, u))
	return u
}

func everyone(g snowflake.ID) guild.Role {
	return guild.Role{ID: guild.EveryoneRoleID(g), GuildID: g, Name: "@everyone", Permissions: guild.DefaultEveryone}
}

func (f *fixture) roles(t *testing.T, g snowflake.ID) []guild.Role {
	t.Helper()
	rs, err := f.s.Roles(f.ctx, g)
	if err != nil {
		t.Fatalf("Roles(%d): %v", g, err)
	}
	if rs == nil {
		t.Fatalf("Roles(%d): nil slice, want non-nil", g)
	}
	return rs
}

func (f *fixture) members(t *testing.T, g snowflake.ID) []guild.Member {
	t.Helper()
	ms, err := f.s.Members(f.ctx, g)
	if err != nil {
		t.Fatalf("Members(%d): %v", g, err)
	}
	if ms == nil {
		t.Fatalf("Members(%d): nil slice, want non-nil", g)
	}
	return ms
}

func (f *fixture) channels(t *testing.T, g snowflake.ID) []guild.Channel {
	t.Helper()
	cs, err := f.s.Channels(f.ctx, g)
	if err != nil {
		t.Fatalf("Channels(%d): %v", g, err)
	}
	if cs == nil {
		t.Fatalf("Channels(%d): nil slice, want non-nil", g)
	}
	return cs
}

func (f *fixture) installations(t *testing.T, g snowflake.ID) []store.Installation {
	t.Helper()
	is, err := f.s.Installations(f.ctx, g)
	if err != nil {
		t.Fatalf("Installations(%d): %v", g, err)
	}
	if is == nil {
		t.Fatalf("Installations(%d): nil slice, want non-nil", g)
	}
	return is
}

// member reads a membership and checks it against want (JoinedAt by
// instant, Roles never nil).
func (f *fixture) member(t *testing.T, want guild.Member) {
	t.Helper()
	got, err := f.s.Member(f.ctx, want.GuildID, want.UserID)
	if err != nil {
		t.Errorf("Member(%d, %d): %v", want.GuildID, want.UserID, err)
		return
	}
	checkMember(t, got, want)
}

func checkMember(t *testing.T, got, want guild.Member) {
	t.Helper()
	if got.Roles == nil {
		t.Errorf("member %d of %d: nil Roles, want non-nil", want.UserID, want.GuildID)
	}
	if !got.JoinedAt.Equal(want.JoinedAt) {
		t.Errorf("member %d of %d: JoinedAt = %v, want %v", want.UserID, want.GuildID, got.JoinedAt, want.JoinedAt)
	}
	got.JoinedAt, want.JoinedAt = time.Time{}, time.Time{}
	if want.Roles == nil {
		want.Roles = []snowflake.ID{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("member %d of %d:\n got  %+v\n want %+v", want.UserID, want.GuildID, got, want)
	}
}

func checkChannel(t *testing.T, got, want guild.Channel) {
	t.Helper()
	if got.Overwrites == nil {
		t.Errorf("channel %d: nil Overwrites, want non-nil", want.ID)
	}
	if want.Overwrites == nil {
		want.Overwrites = []guild.Overwrite{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("channel %d:\n got  %+v\n want %+v", want.ID, got, want)
	}
}

func channelIDs(cs []guild.Channel) []snowflake.ID {
	out := make([]snowflake.ID, len(cs))
	for i := range cs {
		out[i] = cs[i].ID
	}
	return out
}

func roleIDs(rs []guild.Role) []snowflake.ID {
	out := make([]snowflake.ID, len(rs))
	for i := range rs {
		out[i] = rs[i].ID
	}
	return out
}

func memberIDs(ms []guild.Member) []snowflake.ID {
	out := make([]snowflake.ID, len(ms))
	for i := range ms {
		out[i] = ms[i].UserID
	}
	return out
}

func testWorld(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("CreateGuild makes @everyone and the owner a member", func(t *testing.T) { testCreateGuild(t, open) })
	t.Run("users", func(t *testing.T) { testUsers(t, open) })
	t.Run("DeleteUser", func(t *testing.T) { testDeleteUser(t, open) })
	t.Run("guilds list and update", func(t *testing.T) { testGuilds(t, open) })
	t.Run("DeleteGuild cascades", func(t *testing.T) { testDeleteGuild(t, open) })
	t.Run("roles", func(t *testing.T) { testRoles(t, open) })
	t.Run("DeleteRole takes the role from members", func(t *testing.T) { testDeleteRole(t, open) })
	t.Run("members", func(t *testing.T) { testMembers(t, open) })
	t.Run("channels", func(t *testing.T) { testChannels(t, open) })
	t.Run("DeleteChannel", func(t *testing.T) { testDeleteChannel(t, open) })
	t.Run("installations and applications", func(t *testing.T) { testInstallations(t, open) })
	t.Run("admin and client tokens", func(t *testing.T) { testWorldTokens(t, open) })
	t.Run("replace admin tokens", func(t *testing.T) { testReplaceAdminTokens(t, open) })
	t.Run("Snapshot", func(t *testing.T) { testSnapshot(t, open) })
	t.Run("MaxID", func(t *testing.T) { testMaxID(t, open) })
	t.Run("MemberGuilds", func(t *testing.T) { testMemberGuilds(t, open) })
	t.Run("ShardGuildIDs", func(t *testing.T) { testShardGuildIDs(t, open) })
	t.Run("MemberCount", func(t *testing.T) { testMemberCount(t, open) })
	t.Run("SearchMembers", func(t *testing.T) { testSearchMembers(t, open) })
	t.Run("interactions endpoint", func(t *testing.T) { testInteractionsEndpoint(t, open) })
	t.Run("ClaimFirstRun", func(t *testing.T) { testClaimFirstRun(t, open) })
}

func testInteractionsEndpoint(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	must(t, s.CreateUser(ctx, store.User{ID: 1, Username: "owner"}))
	must(t, s.CreateApplication(ctx, store.Application{ID: 2, Name: "app", OwnerID: 1, IntegrationTypes: []int{0},
		ClientSecretHash: []byte{1}, PublicKey: "00", PrivateKey: []byte{1}}, store.User{ID: 2, Username: "app", Bot: true}))
	for _, url := range []string{"https://bot.example/interactions", ""} {
		must(t, s.SetInteractionsEndpoint(ctx, 2, url))
		app, err := s.Application(ctx, 2)
		if err != nil || app.InteractionsEndpointURL != url {
			t.Errorf("after setting %q: %q, %v", url, app.InteractionsEndpointURL, err)
		}
	}
	if err := s.SetInteractionsEndpoint(ctx, 99, "https://x.example/"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown app: %v, want ErrNotFound", err)
	}
	for _, flags := range []uint64{1 << 17, 1<<17 | 1<<23, 0} {
		must(t, s.SetApplicationFlags(ctx, 2, flags))
		app, err := s.Application(ctx, 2)
		if err != nil || app.Flags != flags {
			t.Errorf("after setting flags %d: %d, %v", flags, app.Flags, err)
		}
	}
	if err := s.SetApplicationFlags(ctx, 99, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("flags of an unknown app: %v, want ErrNotFound", err)
	}
}

func testMemberGuilds(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	must(t, s.CreateUser(ctx, store.User{ID: 1, Username: "owner"}))
	must(t, s.CreateUser(ctx, store.User{ID: 2, Username: "member"}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 20, Name: "b", OwnerID: 1}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 10, Name: "a", OwnerID: 1}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 30, Name: "c", OwnerID: 1}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 30, UserID: 2}))
	for _, c := range []struct {
		user snowflake.ID
		want []snowflake.ID
	}{{1, []snowflake.ID{10, 20, 30}}, {2, []snowflake.ID{30}}, {3, nil}} {
		gs, err := s.MemberGuilds(ctx, c.user)
		if err != nil {
			t.Fatal(err)
		}
		var got []snowflake.ID
		for _, g := range gs {
			got = append(got, g.ID)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("MemberGuilds(%d) = %v, want %v", c.user, got, c.want)
		}
	}
}

// testShardGuildIDs: one shard gives all of a bot's guilds; several
// shards partition them exactly, each guild in the shard
// (guild_id >> 22) % shards names; a guild the bot left, or was never in,
// is in none.
func testShardGuildIDs(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	const owner, bot, other = 1, 2, 3
	must(t, s.CreateUser(ctx, store.User{ID: owner, Username: "owner"}))
	must(t, s.CreateUser(ctx, store.User{ID: bot, Username: "bot", Bot: true}))
	must(t, s.CreateUser(ctx, store.User{ID: other, Username: "other"}))
	// Snowflakes of 14 consecutive milliseconds (the shard reads the
	// timestamp bits), the low bits set so that they count for nothing.
	guildID := func(i int) snowflake.ID { return snowflake.ID(int64(1_400_000_000_000+i)<<22 | 0x3ff) }
	var all []snowflake.ID
	for i := range 14 {
		id := guildID(i)
		must(t, s.CreateGuild(ctx, store.Guild{ID: id, Name: fmt.Sprintf("g%d", i), OwnerID: owner}))
		switch i {
		case 5: // the bot left it
			must(t, s.PutMember(ctx, guild.Member{GuildID: id, UserID: bot}))
			must(t, s.DeleteMember(ctx, id, bot))
		case 9: // the bot was never in it
			must(t, s.PutMember(ctx, guild.Member{GuildID: id, UserID: other}))
		default:
			must(t, s.PutMember(ctx, guild.Member{GuildID: id, UserID: bot}))
			must(t, s.PutMember(ctx, guild.Member{GuildID: id, UserID: other}))
			all = append(all, id)
		}
	}
	for _, shards := range []int{1, 2, 3, 4, 5, 16} {
		seen := map[snowflake.ID]int{}
		for shard := range shards {
			got, err := s.ShardGuildIDs(ctx, bot, shard, shards)
			if err != nil {
				t.Fatalf("ShardGuildIDs(bot, %d, %d): %v", shard, shards, err)
			}
			var want []snowflake.ID
			for _, id := range all {
				if int((uint64(id)>>22)%uint64(shards)) == shard {
					want = append(want, id)
				}
			}
			if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("ShardGuildIDs(bot, %d, %d) = %v, want %v", shard, shards, got, want)
			}
			for _, id := range got {
				seen[id]++
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d shards hold %d guilds of the bot's %d", shards, len(seen), len(all))
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%d shards: guild %d in %d shards", shards, id, n)
			}
		}
	}
	if got, err := s.ShardGuildIDs(ctx, 99, 0, 1); err != nil || len(got) != 0 {
		t.Errorf("ShardGuildIDs(unknown user) = %v, %v; want none", got, err)
	}
	for _, bad := range [][2]int{{0, 0}, {1, 1}, {-1, 2}, {2, 2}} {
		if _, err := s.ShardGuildIDs(ctx, bot, bad[0], bad[1]); err == nil {
			t.Errorf("ShardGuildIDs(bot, %d, %d): no error for a shard that is none", bad[0], bad[1])
		}
	}
}

// testMemberCount: a guild's members, counted (its owner is one of
// them), after each write that adds or removes one (a caching store
// must not answer an old count); none for a guild that is not.
func testMemberCount(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	must(t, s.CreateUser(ctx, store.User{ID: 1, Username: "owner"}))
	must(t, s.CreateUser(ctx, store.User{ID: 2, Username: "a"}))
	must(t, s.CreateUser(ctx, store.User{ID: 3, Username: "b"}))
	counts := func(step string, want10, want20 int) {
		t.Helper()
		for _, c := range []struct {
			guild snowflake.ID
			want  int
		}{{10, want10}, {20, want20}, {99, 0}} {
			if n, err := s.MemberCount(ctx, c.guild); err != nil || n != c.want {
				t.Errorf("after %s: MemberCount(%d) = %d, %v; want %d", step, c.guild, n, err, c.want)
			}
		}
	}
	must(t, s.CreateGuild(ctx, store.Guild{ID: 10, Name: "ten", OwnerID: 1}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 20, Name: "twenty", OwnerID: 1}))
	counts("creating the guilds", 1, 1)
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 2}))
	counts("a join", 2, 1)
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 3}))
	must(t, s.PutMember(ctx, guild.Member{GuildID: 20, UserID: 3}))
	counts("two more joins", 3, 2)
	must(t, s.PutMember(ctx, guild.Member{GuildID: 10, UserID: 3, Nick: "b"}))
	counts("a member's update", 3, 2)
	must(t, s.DeleteMember(ctx, 10, 3))
	counts("a member's removal", 2, 2)
	must(t, s.DeleteUser(ctx, 2))
	counts("a member's user deleted", 1, 2)
	must(t, s.DeleteGuild(ctx, 20))
	counts("a guild deleted", 1, 0)
}

func testSearchMembers(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	users := []store.User{
		{ID: 1, Username: "owner", CreatedAt: ms(1)},
		{ID: 2, Username: "Alice", GlobalName: "Alice A", Locale: "fr", Adult: true, CreatedAt: ms(2)},
		{ID: 3, Username: "alfred", CreatedAt: ms(3)},
		{ID: 4, Username: "bob", Bot: true, CreatedAt: ms(4)},
		{ID: 5, Username: "al_x", CreatedAt: ms(5)},
		{ID: 6, Username: "ÉLODIE", CreatedAt: ms(6)},
		{ID: 7, Username: "alien", CreatedAt: ms(7)}, // not a member
		{ID: 8, Username: "a%b", CreatedAt: ms(8)},
	}
	for _, u := range users {
		must(t, s.CreateUser(ctx, u))
	}
	must(t, s.CreateGuild(ctx, store.Guild{ID: 10, Name: "g", OwnerID: 1, CreatedAt: ms(10)}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 20, Name: "other", OwnerID: 1, CreatedAt: ms(20)}))
	must(t, s.CreateRole(ctx, guild.Role{ID: 100, GuildID: 10, Name: "r"}))
	for _, id := range []snowflake.ID{5, 4, 3, 2, 6, 8} {
		m := guild.Member{GuildID: 10, UserID: id, JoinedAt: ms(joinedMs + int64(id))}
		if id == 2 {
			m.Nick, m.Roles = "Ali", []snowflake.ID{100}
		}
		must(t, s.PutMember(ctx, m))
	}
	must(t, s.PutMember(ctx, guild.Member{GuildID: 20, UserID: 7, JoinedAt: ms(joinedMs)}))

	for _, c := range []struct {
		name string
		q    store.MemberQuery
		want []snowflake.ID
	}{
		{"all", store.MemberQuery{}, []snowflake.ID{1, 2, 3, 4, 5, 6, 8}},
		{"limit", store.MemberQuery{Limit: 3}, []snowflake.ID{1, 2, 3}},
		{"prefix, any case", store.MemberQuery{Prefix: "AL"}, []snowflake.ID{2, 3, 5}},
		{"prefix and limit", store.MemberQuery{Prefix: "al", Limit: 2}, []snowflake.ID{2, 3}},
		{"_ is no wildcard", store.MemberQuery{Prefix: "al_"}, []snowflake.ID{5}},
		{"% is no wildcard", store.MemberQuery{Prefix: "a%"}, []snowflake.ID{8}},
		{"non-ASCII case", store.MemberQuery{Prefix: "él"}, []snowflake.ID{6}},
		{"no match", store.MemberQuery{Prefix: "zz"}, []snowflake.ID{}},
		{"after", store.MemberQuery{After: 3}, []snowflake.ID{4, 5, 6, 8}},
		{"after and limit", store.MemberQuery{After: 1, Limit: 2}, []snowflake.ID{2, 3}},
		{"after and prefix", store.MemberQuery{After: 2, Prefix: "al"}, []snowflake.ID{3, 5}},
		{"after the last", store.MemberQuery{After: 8}, []snowflake.ID{}},
		{"user ids", store.MemberQuery{UserIDs: []snowflake.ID{8, 2, 7, 99, 2}, Prefix: "zz", After: 5, Limit: 1},
			[]snowflake.ID{2, 8}},
		{"no user ids", store.MemberQuery{UserIDs: []snowflake.ID{}}, []snowflake.ID{}},
	} {
		got, err := s.SearchMembers(ctx, 10, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ids := []snowflake.ID{}
		for _, mu := range got {
			if mu.Member.UserID != mu.User.ID || mu.Member.GuildID != 10 {
				t.Errorf("%s: member %+v with user %+v", c.name, mu.Member, mu.User)
			}
			ids = append(ids, mu.User.ID)
		}
		if !reflect.DeepEqual(ids, c.want) {
			t.Errorf("%s: SearchMembers = %v, want %v", c.name, ids, c.want)
		}
	}

	// Each row carries the whole membership and the whole user.
	got, err := s.SearchMembers(ctx, 10, store.MemberQuery{UserIDs: []snowflake.ID{2}})
	must(t, err)
	if len(got) != 1 {
		t.Fatalf("SearchMembers(alice) = %+v", got)
	}
	checkMember(t, got[0].Member, guild.Member{GuildID: 10, UserID: 2, Nick: "Ali", Roles: []snowflake.ID{100},
		JoinedAt: ms(joinedMs + 2)})
	checkUser(t, got[0].User, users[1])

	if got, err := s.SearchMembers(ctx, 99, store.MemberQuery{}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("SearchMembers(unknown guild) = %v, %v; want empty", got, err)
	}
}

func testMaxID(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	if id, err := s.MaxID(ctx); err != nil || id != 0 {
		t.Fatalf("MaxID of an empty store = %d, %v; want 0", id, err)
	}
	must(t, s.CreateUser(ctx, store.User{ID: 50, Username: "u"}))
	must(t, s.CreateGuild(ctx, store.Guild{ID: 70, Name: "g", OwnerID: 50}))
	must(t, s.CreateChannel(ctx, guild.Channel{ID: 90, GuildID: 70, Name: "c"}))
	if id, err := s.MaxID(ctx); err != nil || id != 90 {
		t.Fatalf("MaxID = %d, %v; want 90 (the channel)", id, err)
	}
}

func testCreateGuild(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	for _, g := range []snowflake.ID{guildID, guild2ID} {
		if rs := f.roles(t, g); !reflect.DeepEqual(rs, []guild.Role{everyone(g)}) {
			t.Errorf("Roles(%d) = %+v, want only @everyone", g, rs)
		}
		r, err := f.s.Role(f.ctx, g, g)
		if err != nil || r != everyone(g) {
			t.Errorf("Role(%d, @everyone) = %+v, %v", g, r, err)
		}
		f.member(t, guild.Member{GuildID: g, UserID: ownerID, JoinedAt: ms(1_600_000_000_000)})
		if ms := f.members(t, g); len(ms) != 1 {
			t.Errorf("Members(%d) = %+v, want the owner only", g, ms)
		}
	}

	// A failed CreateGuild leaves no role or member behind.
	checkErrs(t, []errCase{
		{"CreateGuild with an unknown owner", func() error {
			return f.s.CreateGuild(f.ctx, store.Guild{ID: 300, Name: "x", OwnerID: unknown, CreatedAt: ms(1)})
		}, store.ErrNotFound},
		{"CreateGuild with an existing id", func() error {
			return f.s.CreateGuild(f.ctx, store.Guild{ID: guildID, Name: "again", OwnerID: ownerID, CreatedAt: ms(5)})
		}, store.ErrConflict},
	})
	if rs := f.roles(t, 300); len(rs) != 0 {
		t.Errorf("roles after a failed CreateGuild = %+v", rs)
	}
	if ms := f.members(t, 300); len(ms) != 0 {
		t.Errorf("members after a failed CreateGuild = %+v", ms)
	}
	if rs := f.roles(t, guildID); len(rs) != 1 {
		t.Errorf("roles after a duplicate CreateGuild = %+v", rs)
	}
	f.member(t, guild.Member{GuildID: guildID, UserID: ownerID, JoinedAt: ms(1_600_000_000_000)})
}

func testUsers(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	adult := store.User{ID: 50, Username: "adult", GlobalName: "Adult", Locale: "de", Adult: true, CreatedAt: ms(1_700_000_000_050)}
	minor := store.User{ID: 5, Username: "minor", CreatedAt: ms(1_700_000_000_005)}
	for _, u := range []store.User{adult, minor} {
		must(t, f.s.CreateUser(f.ctx, u))
	}
	for _, want := range []store.User{adult, minor} {
		got, err := f.s.User(f.ctx, want.ID)
		must(t, err)
		checkUser(t, got, want)
	}

	// UpdateUser replaces the profile and the adult flag, both ways.
	steps := []store.User{
		{ID: minor.ID, Username: "grown", GlobalName: "Grown", Locale: "fr", Adult: true},
		{ID: minor.ID, Username: "grown", Adult: false},
	}
	for i, u := range steps {
		must(t, f.s.UpdateUser(f.ctx, u))
		got, err := f.s.User(f.ctx, minor.ID)
		must(t, err)
		want := u
		want.CreatedAt = minor.CreatedAt // fixed at creation
		if got.Username != want.Username || got.GlobalName != want.GlobalName || got.Locale != want.Locale ||
			got.Adult != want.Adult || got.Bot || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("step %d: User = %+v, want %+v", i, got, want)
		}
	}
	if got, err := f.s.User(f.ctx, adult.ID); err != nil || !got.Adult {
		t.Errorf("other user after UpdateUser = %+v, %v", got, err)
	}
	checkErrs(t, []errCase{
		{"UpdateUser of an unknown user", func() error {
			return f.s.UpdateUser(f.ctx, store.User{ID: unknown, Username: "ghost"})
		}, store.ErrNotFound},
	})

	// Users lists everyone, bots included, by id.
	us, err := f.s.Users(f.ctx)
	must(t, err)
	var got []snowflake.ID
	for _, u := range us {
		got = append(got, u.ID)
	}
	if want := []snowflake.ID{ownerID, minor.ID, appID, otherAppID, adult.ID}; !slices.Equal(got, want) {
		t.Errorf("Users = %v, want %v", got, want)
	}
	for _, u := range us {
		if u.ID == adult.ID {
			checkUser(t, u, adult)
		}
		if u.ID == appID && !u.Bot {
			t.Errorf("Users: bot user %d read back with Bot = false", u.ID)
		}
	}
	if us, err := open(t).Users(t.Context()); err != nil || us == nil || len(us) != 0 {
		t.Errorf("Users of an empty store = %v, %v; want an empty non-nil list", us, err)
	}
}

func testDeleteUser(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	f.user(t, carolID, "carol") // owns an application only
	app, bot := newApp(30)
	app.OwnerID = carolID
	must(t, f.s.CreateApplication(f.ctx, app, bot))
	must(t, f.s.CreateRole(f.ctx, guild.Role{ID: role1ID, GuildID: guildID, Name: "r", Position: 1}))
	for _, m := range []guild.Member{
		{GuildID: guildID, UserID: aliceID, Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs)},
		{GuildID: guild2ID, UserID: aliceID, JoinedAt: ms(joinedMs)},
		{GuildID: guildID, UserID: bobID, Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs)},
	} {
		must(t, f.s.PutMember(f.ctx, m))
	}
	must(t, f.s.CreateClientToken(f.ctx, hash("alice"), aliceID, ms(1)))
	must(t, f.s.CreateClientToken(f.ctx, hash("bob"), bobID, ms(1)))
	must(t, f.s.CreateToken(f.ctx, store.Token{Hash: hash("alice bearer"), Kind: store.TokenBearer, ApplicationID: appID,
		UserID: aliceID, Scopes: []string{"identify"}, CreatedAt: ms(1)}))

	checkErrs(t, []errCase{
		{"DeleteUser of an unknown user", func() error { return f.s.DeleteUser(f.ctx, unknown) }, store.ErrNotFound},
		{"DeleteUser of a guild (and app) owner", func() error { return f.s.DeleteUser(f.ctx, ownerID) }, store.ErrConflict},
		{"DeleteUser of an app owner", func() error { return f.s.DeleteUser(f.ctx, carolID) }, store.ErrConflict},
		{"DeleteUser of a bot user", func() error { return f.s.DeleteUser(f.ctx, appID) }, store.ErrConflict},
	})
	// The refused deletes changed nothing.
	for _, id := range []snowflake.ID{ownerID, carolID, appID} {
		if _, err := f.s.User(f.ctx, id); err != nil {
			t.Errorf("User(%d) after a refused delete: %v", id, err)
		}
	}
	f.member(t, guild.Member{GuildID: guildID, UserID: ownerID, JoinedAt: ms(1_600_000_000_000)})

	must(t, f.s.DeleteUser(f.ctx, aliceID))
	checkErrs(t, []errCase{
		{"User after DeleteUser", func() error { _, err := f.s.User(f.ctx, aliceID); return err }, store.ErrNotFound},
		{"Member in guild 1", func() error { _, err := f.s.Member(f.ctx, guildID, aliceID); return err }, store.ErrNotFound},
		{"Member in guild 2", func() error { _, err := f.s.Member(f.ctx, guild2ID, aliceID); return err }, store.ErrNotFound},
		{"client token", func() error { _, err := f.s.ClientTokenUser(f.ctx, hash("alice")); return err }, store.ErrNotFound},
		{"granted Bearer token", func() error { _, err := f.s.TokenByHash(f.ctx, hash("alice bearer")); return err }, store.ErrNotFound},
		{"DeleteUser again", func() error { return f.s.DeleteUser(f.ctx, aliceID) }, store.ErrNotFound},
	})
	// Everyone else is untouched.
	f.member(t, guild.Member{GuildID: guildID, UserID: bobID, Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs)})
	if id, err := f.s.ClientTokenUser(f.ctx, hash("bob")); err != nil || id != bobID {
		t.Errorf("bob's client token = %d, %v", id, err)
	}
	if got := memberIDs(f.members(t, guildID)); !slices.Equal(got, []snowflake.ID{ownerID, bobID}) {
		t.Errorf("Members(guild 1) = %v", got)
	}
	if got := memberIDs(f.members(t, guild2ID)); !slices.Equal(got, []snowflake.ID{ownerID}) {
		t.Errorf("Members(guild 2) = %v", got)
	}
	if _, err := f.s.Role(f.ctx, guildID, role1ID); err != nil {
		t.Errorf("role after DeleteUser: %v", err)
	}
}

func testGuilds(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: 50, Name: "fifty", OwnerID: ownerID, CreatedAt: ms(1_700_000_000_000)}))
	gs, err := f.s.Guilds(f.ctx)
	must(t, err)
	var got []snowflake.ID
	for _, g := range gs {
		got = append(got, g.ID)
	}
	if want := []snowflake.ID{50, guildID, guild2ID}; !slices.Equal(got, want) {
		t.Fatalf("Guilds = %v, want %v", got, want)
	}
	if g := gs[0]; g.Name != "fifty" || g.OwnerID != ownerID || !g.CreatedAt.Equal(ms(1_700_000_000_000)) {
		t.Errorf("Guilds[0] = %+v", g)
	}
	if gs, err := open(t).Guilds(t.Context()); err != nil || gs == nil || len(gs) != 0 {
		t.Errorf("Guilds of an empty store = %v, %v; want an empty non-nil list", gs, err)
	}

	// A new owner becomes a member; an existing member keeps their roles.
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	must(t, f.s.CreateRole(f.ctx, guild.Role{ID: role1ID, GuildID: guildID, Name: "mod", Position: 1}))
	bob := guild.Member{GuildID: guildID, UserID: bobID, Nick: "b", Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs)}
	must(t, f.s.PutMember(f.ctx, bob))

	before := time.Now().Add(-time.Second)
	must(t, f.s.UpdateGuild(f.ctx, store.Guild{ID: guildID, Name: "renamed", OwnerID: aliceID}))
	g, err := f.s.Guild(f.ctx, guildID)
	must(t, err)
	if g.Name != "renamed" || g.OwnerID != aliceID || !g.CreatedAt.Equal(ms(1_600_000_000_000)) {
		t.Errorf("Guild after UpdateGuild = %+v", g)
	}
	alice, err := f.s.Member(f.ctx, guildID, aliceID)
	if err != nil {
		t.Fatalf("new owner is not a member: %v", err)
	}
	if len(alice.Roles) != 0 || alice.Roles == nil || alice.JoinedAt.Before(before) {
		t.Errorf("new owner's membership = %+v", alice)
	}
	f.member(t, guild.Member{GuildID: guildID, UserID: ownerID, JoinedAt: ms(1_600_000_000_000)}) // old owner stays

	must(t, f.s.UpdateGuild(f.ctx, store.Guild{ID: guildID, Name: "renamed", OwnerID: bobID}))
	f.member(t, bob)

	checkErrs(t, []errCase{
		{"UpdateGuild of an unknown guild", func() error {
			return f.s.UpdateGuild(f.ctx, store.Guild{ID: unknown, Name: "x", OwnerID: ownerID})
		}, store.ErrNotFound},
		{"UpdateGuild to an unknown owner", func() error {
			return f.s.UpdateGuild(f.ctx, store.Guild{ID: guildID, Name: "lost", OwnerID: unknown})
		}, store.ErrNotFound},
	})
	if g, err := f.s.Guild(f.ctx, guildID); err != nil || g.Name != "renamed" || g.OwnerID != bobID {
		t.Errorf("Guild after failed UpdateGuild = %+v, %v", g, err)
	}
	if g, err := f.s.Guild(f.ctx, guild2ID); err != nil || g.Name != "guild "+guild2ID.String() || g.OwnerID != ownerID {
		t.Errorf("other guild after UpdateGuild = %+v, %v", g, err)
	}
}

// worldGuild seeds one fixture guild with two roles, three members,
// channels, guild commands of both apps, a global command and permission
// lists of every kind. It returns the ids it made.
type seeded struct {
	roles          []snowflake.ID
	channels       []snowflake.ID
	guildCmd       command.Command // appID's command in the guild
	otherGuildCmd  command.Command // otherAppID's command in the guild
	permissionKeys [][2]snowflake.ID
}

func (f *fixture) seedGuild(t *testing.T, g snowflake.ID, global command.Command) seeded {
	t.Helper()
	var sd seeded
	base := g * 10
	for i, name := range []string{"mod", "member"} {
		r := guild.Role{ID: base + snowflake.ID(i) + 1, GuildID: g, Name: name, Permissions: guild.KickMembers, Position: i + 1}
		must(t, f.s.CreateRole(f.ctx, r))
		sd.roles = append(sd.roles, r.ID)
	}
	for _, u := range []snowflake.ID{aliceID, bobID} {
		must(t, f.s.PutMember(f.ctx, guild.Member{GuildID: g, UserID: u, Roles: sd.roles, JoinedAt: ms(joinedMs)}))
	}
	cat := guild.Channel{ID: base + 5, GuildID: g, Type: guild.ChannelCategory, Name: "cat"}
	text := guild.Channel{ID: base + 6, GuildID: g, Type: guild.ChannelText, Name: "text", ParentID: cat.ID,
		Overwrites: []guild.Overwrite{{ID: sd.roles[0], Type: guild.OverwriteRole, Allow: guild.SendMessages}}}
	thread := guild.Channel{ID: base + 7, GuildID: g, Type: guild.ChannelPublicThread, Name: "thread", ParentID: text.ID}
	for _, c := range []guild.Channel{cat, text, thread} {
		must(t, f.s.CreateChannel(f.ctx, c))
		sd.channels = append(sd.channels, c.ID)
	}
	sd.guildCmd = f.upsert(t, command.Scope{ApplicationID: appID, GuildID: g}, "local", "Local")
	sd.otherGuildCmd = f.upsert(t, command.Scope{ApplicationID: otherAppID, GuildID: g}, "theirs", "Theirs")
	list := []command.Permission{perm(sd.roles[0], true)}
	for _, k := range [][2]snowflake.ID{
		{appID, sd.guildCmd.ID}, {appID, global.ID}, {appID, appID}, {otherAppID, sd.otherGuildCmd.ID},
	} {
		f.setAppPermissions(t, k[0], g, k[1], list)
		sd.permissionKeys = append(sd.permissionKeys, k)
	}
	return sd
}

func testDeleteGuild(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	global := f.upsert(t, globalScope, "global", "Global")
	otherGlobal := f.upsert(t, otherGlobalScope, "otherglobal", "Other")
	doomed := f.seedGuild(t, guildID, global)
	kept := f.seedGuild(t, guild2ID, global)
	must(t, f.s.CreateClientToken(f.ctx, hash("alice"), aliceID, ms(1)))
	keptRoles, keptMembers, keptChannels := f.roles(t, guild2ID), f.members(t, guild2ID), f.channels(t, guild2ID)
	keptInstalls := f.installations(t, guild2ID)

	checkErrs(t, []errCase{
		{"DeleteGuild of an unknown guild", func() error { return f.s.DeleteGuild(f.ctx, unknown) }, store.ErrNotFound},
		{"DeleteGuild of guild 0 (the global scope)", func() error { return f.s.DeleteGuild(f.ctx, 0) }, store.ErrNotFound},
	})
	if got := f.list(t, globalScope); len(got) != 1 {
		t.Fatalf("global commands after DeleteGuild(0) = %s", dump(got))
	}

	must(t, f.s.DeleteGuild(f.ctx, guildID))

	// Everything of the guild is gone.
	checkErrs(t, []errCase{
		{"Guild", func() error { _, err := f.s.Guild(f.ctx, guildID); return err }, store.ErrNotFound},
		{"Role @everyone", func() error { _, err := f.s.Role(f.ctx, guildID, guildID); return err }, store.ErrNotFound},
		{"Role", func() error { _, err := f.s.Role(f.ctx, guildID, doomed.roles[0]); return err }, store.ErrNotFound},
		{"Member owner", func() error { _, err := f.s.Member(f.ctx, guildID, ownerID); return err }, store.ErrNotFound},
		{"Member", func() error { _, err := f.s.Member(f.ctx, guildID, aliceID); return err }, store.ErrNotFound},
		{"Installation", func() error { _, err := f.s.Installation(f.ctx, guildID, appID); return err }, store.ErrNotFound},
		{"guild command", func() error { _, err := f.s.Command(f.ctx, guildScope, doomed.guildCmd.ID); return err }, store.ErrNotFound},
		{"other app's guild command", func() error {
			_, err := f.s.Command(f.ctx, otherGuildScope, doomed.otherGuildCmd.ID)
			return err
		}, store.ErrNotFound},
		{"Snapshot", func() error { _, err := f.s.Snapshot(f.ctx, guildID); return err }, store.ErrNotFound},
		{"DeleteGuild again", func() error { return f.s.DeleteGuild(f.ctx, guildID) }, store.ErrNotFound},
	})
	for _, id := range doomed.channels {
		if _, err := f.s.Channel(f.ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Channel(%d) after DeleteGuild: err = %v, want ErrNotFound", id, err)
		}
	}
	if rs := f.roles(t, guildID); len(rs) != 0 {
		t.Errorf("Roles after DeleteGuild = %+v", rs)
	}
	if ms := f.members(t, guildID); len(ms) != 0 {
		t.Errorf("Members after DeleteGuild = %+v", ms)
	}
	if cs := f.channels(t, guildID); len(cs) != 0 {
		t.Errorf("Channels after DeleteGuild = %+v", cs)
	}
	if is := f.installations(t, guildID); len(is) != 0 {
		t.Errorf("Installations after DeleteGuild = %+v", is)
	}
	for _, sc := range []command.Scope{guildScope, otherGuildScope} {
		if cs := f.list(t, sc); len(cs) != 0 {
			t.Errorf("Commands(%+v) after DeleteGuild = %s", sc, dump(cs))
		}
		f.checkRaw(t, sc, nil)
	}
	for _, app := range []snowflake.ID{appID, otherAppID} {
		if l := f.guildPermissions(t, app, guildID); len(l) != 0 {
			t.Errorf("GuildPermissions(app %d) after DeleteGuild = %s", app, dump(l))
		}
	}
	for _, k := range doomed.permissionKeys {
		f.hasPermissions(t, k[0], guildID, k[1], nil)
	}
	// The scope's daily counter went with it: a guild with the same id
	// starts from zero.
	var creates int
	if _, err := f.s.WriteCommands(f.ctx, guildScope, 0, func(_ []command.Command, n int) (command.Plan, error) {
		creates = n
		return command.Plan{}, nil
	}); err != nil || creates != 0 {
		t.Errorf("createsToday in the deleted guild's scope = %d, %v; want 0", creates, err)
	}

	// Users, applications, global commands and the other guild are untouched.
	for _, u := range []snowflake.ID{ownerID, aliceID, bobID, appID} {
		if _, err := f.s.User(f.ctx, u); err != nil {
			t.Errorf("User(%d) after DeleteGuild: %v", u, err)
		}
	}
	if id, err := f.s.ClientTokenUser(f.ctx, hash("alice")); err != nil || id != aliceID {
		t.Errorf("client token after DeleteGuild = %d, %v", id, err)
	}
	equalCommands(t, "global commands", f.list(t, globalScope), []command.Command{global})
	equalCommands(t, "other app's global commands", f.list(t, otherGlobalScope), []command.Command{otherGlobal})
	if gs, err := f.s.Guilds(f.ctx); err != nil || len(gs) != 1 || gs[0].ID != guild2ID {
		t.Errorf("Guilds after DeleteGuild = %+v, %v", gs, err)
	}
	if rs := f.roles(t, guild2ID); !reflect.DeepEqual(rs, keptRoles) {
		t.Errorf("other guild's roles = %+v, want %+v", rs, keptRoles)
	}
	if ms := f.members(t, guild2ID); !reflect.DeepEqual(ms, keptMembers) {
		t.Errorf("other guild's members = %+v, want %+v", ms, keptMembers)
	}
	if cs := f.channels(t, guild2ID); !reflect.DeepEqual(cs, keptChannels) {
		t.Errorf("other guild's channels = %+v, want %+v", cs, keptChannels)
	}
	if is := f.installations(t, guild2ID); !reflect.DeepEqual(is, keptInstalls) {
		t.Errorf("other guild's installations = %+v, want %+v", is, keptInstalls)
	}
	equalCommands(t, "other guild's commands", f.list(t, guild2Scope), []command.Command{kept.guildCmd})
	for _, k := range kept.permissionKeys {
		f.hasPermissions(t, k[0], guild2ID, k[1], []command.Permission{perm(kept.roles[0], true)})
	}

	// The id can be used again, from scratch.
	must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: guildID, Name: "again", OwnerID: aliceID, CreatedAt: ms(2)}))
	if rs := f.roles(t, guildID); !reflect.DeepEqual(rs, []guild.Role{everyone(guildID)}) {
		t.Errorf("Roles of the new guild = %+v", rs)
	}
	if got := memberIDs(f.members(t, guildID)); !slices.Equal(got, []snowflake.ID{aliceID}) {
		t.Errorf("Members of the new guild = %v", got)
	}
}

func testRoles(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	roles := []guild.Role{
		{ID: role3ID, GuildID: guildID, Name: "top", Permissions: guild.All, Position: 3},
		{ID: role2ID, GuildID: guildID, Name: "b", Permissions: guild.UseExternalApps | guild.Administrator, Position: 1},
		{ID: role1ID, GuildID: guildID, Name: "a", Permissions: 0, Position: 1, Managed: true},
		{ID: role4ID, GuildID: guild2ID, Name: "elsewhere", Permissions: guild.ManageGuild, Position: 1},
	}
	for _, r := range roles {
		must(t, f.s.CreateRole(f.ctx, r))
	}
	for _, want := range roles {
		got, err := f.s.Role(f.ctx, want.GuildID, want.ID)
		if err != nil || got != want {
			t.Errorf("Role(%d, %d) = %+v, %v; want %+v", want.GuildID, want.ID, got, err, want)
		}
	}
	// By position, then id.
	want := []guild.Role{everyone(guildID), roles[2], roles[1], roles[0]}
	if got := f.roles(t, guildID); !reflect.DeepEqual(got, want) {
		t.Errorf("Roles(guild 1) = %v, want %v", roleIDs(got), roleIDs(want))
	}
	if got := f.roles(t, guild2ID); !reflect.DeepEqual(got, []guild.Role{everyone(guild2ID), roles[3]}) {
		t.Errorf("Roles(guild 2) = %+v", got)
	}
	if got := f.roles(t, unknown); len(got) != 0 {
		t.Errorf("Roles of an unknown guild = %+v", got)
	}

	// UpdateRole replaces every field; @everyone can be updated too.
	up := guild.Role{ID: role3ID, GuildID: guildID, Name: "bottom", Permissions: guild.ViewChannel, Position: 0, Managed: true}
	must(t, f.s.UpdateRole(f.ctx, up))
	ev := everyone(guildID)
	ev.Permissions = guild.ViewChannel
	must(t, f.s.UpdateRole(f.ctx, ev))
	for _, want := range []guild.Role{up, ev} {
		if got, err := f.s.Role(f.ctx, guildID, want.ID); err != nil || got != want {
			t.Errorf("Role(%d) after UpdateRole = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	if got := roleIDs(f.roles(t, guildID)); !slices.Equal(got, []snowflake.ID{guildID, role3ID, role1ID, role2ID}) {
		t.Errorf("Roles after UpdateRole = %v", got)
	}

	checkErrs(t, []errCase{
		{"CreateRole in an unknown guild", func() error {
			return f.s.CreateRole(f.ctx, guild.Role{ID: 7777, GuildID: unknown, Name: "x"})
		}, store.ErrNotFound},
		{"CreateRole with an existing id", func() error {
			return f.s.CreateRole(f.ctx, guild.Role{ID: role1ID, GuildID: guildID, Name: "again"})
		}, store.ErrConflict},
		{"CreateRole with another guild's role id", func() error {
			return f.s.CreateRole(f.ctx, guild.Role{ID: role4ID, GuildID: guildID, Name: "again"})
		}, store.ErrConflict},
		{"CreateRole with the @everyone id", func() error {
			return f.s.CreateRole(f.ctx, guild.Role{ID: guildID, GuildID: guildID, Name: "again"})
		}, store.ErrConflict},
		{"UpdateRole of an unknown role", func() error {
			return f.s.UpdateRole(f.ctx, guild.Role{ID: 7777, GuildID: guildID, Name: "x"})
		}, store.ErrNotFound},
		{"UpdateRole in an unknown guild", func() error {
			return f.s.UpdateRole(f.ctx, guild.Role{ID: role1ID, GuildID: unknown, Name: "x"})
		}, store.ErrNotFound},
		{"UpdateRole of another guild's role", func() error {
			return f.s.UpdateRole(f.ctx, guild.Role{ID: role4ID, GuildID: guildID, Name: "stolen"})
		}, store.ErrNotFound},
		{"Role unknown", func() error { _, err := f.s.Role(f.ctx, guildID, 7777); return err }, store.ErrNotFound},
		{"Role of another guild", func() error { _, err := f.s.Role(f.ctx, guildID, role4ID); return err }, store.ErrNotFound},
		{"Role in an unknown guild", func() error { _, err := f.s.Role(f.ctx, unknown, role1ID); return err }, store.ErrNotFound},
	})
	// The failed writes changed nothing.
	if got, err := f.s.Role(f.ctx, guildID, role1ID); err != nil || got != roles[2] {
		t.Errorf("role 1 after failed writes = %+v, %v", got, err)
	}
	if got, err := f.s.Role(f.ctx, guild2ID, role4ID); err != nil || got != roles[3] {
		t.Errorf("guild 2's role after failed writes = %+v, %v", got, err)
	}
}

func testDeleteRole(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	f.user(t, carolID, "carol")
	for _, r := range []guild.Role{
		{ID: role1ID, GuildID: guildID, Name: "one", Position: 1},
		{ID: role2ID, GuildID: guildID, Name: "two", Position: 2},
		{ID: role3ID, GuildID: guildID, Name: "three", Position: 3},
		{ID: role4ID, GuildID: guild2ID, Name: "four", Position: 1},
	} {
		must(t, f.s.CreateRole(f.ctx, r))
	}
	members := []guild.Member{
		{GuildID: guildID, UserID: aliceID, Nick: "a", Roles: []snowflake.ID{role1ID, role2ID, role3ID}, JoinedAt: ms(joinedMs)},
		{GuildID: guildID, UserID: bobID, Roles: []snowflake.ID{role2ID}, JoinedAt: ms(joinedMs + 1)},
		{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role3ID, role1ID}, JoinedAt: ms(joinedMs + 2)},
		{GuildID: guild2ID, UserID: aliceID, Roles: []snowflake.ID{role4ID}, JoinedAt: ms(joinedMs + 3)},
	}
	for _, m := range members {
		must(t, f.s.PutMember(f.ctx, m))
	}

	must(t, f.s.DeleteRole(f.ctx, guildID, role2ID))
	f.member(t, guild.Member{GuildID: guildID, UserID: aliceID, Nick: "a", Roles: []snowflake.ID{role1ID, role3ID}, JoinedAt: ms(joinedMs)})
	f.member(t, guild.Member{GuildID: guildID, UserID: bobID, Roles: []snowflake.ID{}, JoinedAt: ms(joinedMs + 1)})
	f.member(t, members[2])
	f.member(t, members[3])
	if got := roleIDs(f.roles(t, guildID)); !slices.Equal(got, []snowflake.ID{guildID, role1ID, role3ID}) {
		t.Errorf("Roles after DeleteRole = %v", got)
	}

	must(t, f.s.DeleteRole(f.ctx, guildID, role1ID))
	f.member(t, guild.Member{GuildID: guildID, UserID: aliceID, Nick: "a", Roles: []snowflake.ID{role3ID}, JoinedAt: ms(joinedMs)})
	f.member(t, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role3ID}, JoinedAt: ms(joinedMs + 2)})

	checkErrs(t, []errCase{
		{"DeleteRole @everyone", func() error { return f.s.DeleteRole(f.ctx, guildID, guildID) }, store.ErrConflict},
		{"DeleteRole again", func() error { return f.s.DeleteRole(f.ctx, guildID, role2ID) }, store.ErrNotFound},
		{"DeleteRole unknown", func() error { return f.s.DeleteRole(f.ctx, guildID, 7777) }, store.ErrNotFound},
		{"DeleteRole of another guild's role", func() error { return f.s.DeleteRole(f.ctx, guildID, role4ID) }, store.ErrNotFound},
		{"DeleteRole in an unknown guild", func() error { return f.s.DeleteRole(f.ctx, unknown, unknown) }, store.ErrNotFound},
		{"Role deleted", func() error { _, err := f.s.Role(f.ctx, guildID, role2ID); return err }, store.ErrNotFound},
	})
	if _, err := f.s.Role(f.ctx, guildID, guildID); err != nil {
		t.Errorf("@everyone after refused delete: %v", err)
	}
	f.member(t, members[3])
	// A deleted role can no longer be given.
	err := f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: bobID, Roles: []snowflake.ID{role2ID}, JoinedAt: ms(1)})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutMember with a deleted role: err = %v, want ErrNotFound", err)
	}
}

func testMembers(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	f.user(t, carolID, "carol")
	for _, r := range []guild.Role{
		{ID: role1ID, GuildID: guildID, Name: "one", Position: 1},
		{ID: role2ID, GuildID: guildID, Name: "two", Position: 2},
		{ID: role4ID, GuildID: guild2ID, Name: "four", Position: 1},
	} {
		must(t, f.s.CreateRole(f.ctx, r))
	}

	// Put, in an order that differs from user id order.
	carol := guild.Member{GuildID: guildID, UserID: carolID, Nick: "C", Roles: []snowflake.ID{role2ID, role1ID}, JoinedAt: ms(joinedMs)}
	alice := guild.Member{GuildID: guildID, UserID: aliceID, JoinedAt: ms(joinedMs + 1)} // nil Roles
	for _, m := range []guild.Member{carol, alice} {
		must(t, f.s.PutMember(f.ctx, m))
	}
	f.member(t, carol)
	f.member(t, alice)
	mem := f.members(t, guildID)
	if got := memberIDs(mem); !slices.Equal(got, []snowflake.ID{ownerID, aliceID, carolID}) {
		t.Errorf("Members = %v, want by user id", got)
	}
	for i := range mem {
		if mem[i].Roles == nil {
			t.Errorf("Members[%d].Roles is nil, want non-nil", i)
		}
		if mem[i].UserID == carolID {
			checkMember(t, mem[i], carol)
		}
	}

	// @everyone and repeated ids are dropped; a put replaces everything.
	must(t, f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: carolID, Nick: "",
		Roles: []snowflake.ID{guildID, role1ID, role1ID, guildID}, JoinedAt: ms(joinedMs + 9)}))
	f.member(t, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs + 9)})
	must(t, f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: aliceID, Roles: []snowflake.ID{guildID},
		JoinedAt: ms(joinedMs + 1)}))
	f.member(t, alice)

	checkErrs(t, []errCase{
		{"PutMember in an unknown guild", func() error {
			return f.s.PutMember(f.ctx, guild.Member{GuildID: unknown, UserID: aliceID, JoinedAt: ms(1)})
		}, store.ErrNotFound},
		{"PutMember of an unknown user", func() error {
			return f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: unknown, JoinedAt: ms(1)})
		}, store.ErrNotFound},
		{"PutMember with an unknown role", func() error {
			return f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role2ID, 7777},
				JoinedAt: ms(1)})
		}, store.ErrNotFound},
		{"PutMember with another guild's role", func() error {
			return f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role4ID},
				JoinedAt: ms(1)})
		}, store.ErrNotFound},
		{"PutMember with another guild's @everyone", func() error {
			return f.s.PutMember(f.ctx, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{guild2ID},
				JoinedAt: ms(1)})
		}, store.ErrNotFound},
		{"Member unknown", func() error { _, err := f.s.Member(f.ctx, guildID, bobID); return err }, store.ErrNotFound},
		{"Member of another guild", func() error { _, err := f.s.Member(f.ctx, guild2ID, carolID); return err }, store.ErrNotFound},
		{"DeleteMember not a member", func() error { return f.s.DeleteMember(f.ctx, guildID, bobID) }, store.ErrNotFound},
		{"DeleteMember in an unknown guild", func() error { return f.s.DeleteMember(f.ctx, unknown, aliceID) }, store.ErrNotFound},
		{"DeleteMember of the owner", func() error { return f.s.DeleteMember(f.ctx, guildID, ownerID) }, store.ErrConflict},
	})
	// The refused puts changed nothing, and made no one a member.
	f.member(t, guild.Member{GuildID: guildID, UserID: carolID, Roles: []snowflake.ID{role1ID}, JoinedAt: ms(joinedMs + 9)})
	f.member(t, guild.Member{GuildID: guildID, UserID: ownerID, JoinedAt: ms(1_600_000_000_000)})
	if got := memberIDs(f.members(t, guild2ID)); !slices.Equal(got, []snowflake.ID{ownerID}) {
		t.Errorf("Members(guild 2) = %v", got)
	}

	must(t, f.s.DeleteMember(f.ctx, guildID, carolID))
	if _, err := f.s.Member(f.ctx, guildID, carolID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Member after DeleteMember: err = %v, want ErrNotFound", err)
	}
	if _, err := f.s.User(f.ctx, carolID); err != nil {
		t.Errorf("User after DeleteMember: %v", err)
	}
	if got := memberIDs(f.members(t, guildID)); !slices.Equal(got, []snowflake.ID{ownerID, aliceID}) {
		t.Errorf("Members after DeleteMember = %v", got)
	}
	if got := f.members(t, unknown); len(got) != 0 {
		t.Errorf("Members of an unknown guild = %+v", got)
	}
}

func testChannels(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	big := guild.Permissions(1 << 52)
	cat := guild.Channel{ID: 500, GuildID: guildID, Type: guild.ChannelCategory, Name: "cat", Position: 2}
	text := guild.Channel{ID: 502, GuildID: guildID, Type: guild.ChannelText, Name: "text", ParentID: cat.ID, NSFW: true, Position: 1,
		Overwrites: []guild.Overwrite{
			{ID: guildID, Type: guild.OverwriteRole, Deny: guild.ViewChannel | big},
			{ID: ownerID, Type: guild.OverwriteMember, Allow: guild.ViewChannel | guild.UseApplicationCommands},
			{ID: 1 << 62, Type: guild.OverwriteRole, Allow: guild.All},
		}}
	voice := guild.Channel{ID: 501, GuildID: guildID, Type: guild.ChannelVoice, Name: "voice", Position: 1, Overwrites: []guild.Overwrite{}}
	thread := guild.Channel{ID: 503, GuildID: guildID, Type: guild.ChannelPrivateThread, Name: "thread", ParentID: text.ID}
	other := guild.Channel{ID: 600, GuildID: guild2ID, Type: guild.ChannelText, Name: "other"}
	all := []guild.Channel{cat, text, voice, thread, other}
	for _, c := range all {
		must(t, f.s.CreateChannel(f.ctx, c))
	}
	for _, want := range all {
		got, err := f.s.Channel(f.ctx, want.ID)
		if err != nil {
			t.Errorf("Channel(%d): %v", want.ID, err)
			continue
		}
		checkChannel(t, got, want)
	}
	// By position, then id.
	if got := channelIDs(f.channels(t, guildID)); !slices.Equal(got, []snowflake.ID{thread.ID, voice.ID, text.ID, cat.ID}) {
		t.Errorf("Channels = %v", got)
	}
	if got := channelIDs(f.channels(t, guild2ID)); !slices.Equal(got, []snowflake.ID{other.ID}) {
		t.Errorf("Channels(guild 2) = %v", got)
	}
	if got := f.channels(t, unknown); len(got) != 0 {
		t.Errorf("Channels of an unknown guild = %+v", got)
	}

	// UpdateChannel replaces every field.
	moved := guild.Channel{ID: text.ID, GuildID: guildID, Type: guild.ChannelAnnouncement, Name: "news", Position: 7}
	must(t, f.s.UpdateChannel(f.ctx, moved))
	if got, err := f.s.Channel(f.ctx, text.ID); err != nil {
		t.Error(err)
	} else {
		checkChannel(t, got, moved)
	}
	moved.ParentID = cat.ID
	must(t, f.s.UpdateChannel(f.ctx, moved))
	if got, err := f.s.Channel(f.ctx, text.ID); err != nil || got.ParentID != cat.ID {
		t.Errorf("Channel after re-parenting = %+v, %v", got, err)
	}

	with := func(c guild.Channel, edit func(*guild.Channel)) guild.Channel { edit(&c); return c }
	checkErrs(t, []errCase{
		{"CreateChannel in an unknown guild", func() error {
			return f.s.CreateChannel(f.ctx, guild.Channel{ID: 700, GuildID: unknown, Name: "x"})
		}, store.ErrNotFound},
		{"CreateChannel with an existing id", func() error {
			return f.s.CreateChannel(f.ctx, with(voice, func(c *guild.Channel) { c.Name = "again" }))
		}, store.ErrConflict},
		{"CreateChannel with another guild's channel id", func() error {
			return f.s.CreateChannel(f.ctx, guild.Channel{ID: other.ID, GuildID: guildID, Name: "again"})
		}, store.ErrConflict},
		{"CreateChannel under an unknown parent", func() error {
			return f.s.CreateChannel(f.ctx, guild.Channel{ID: 700, GuildID: guildID, Name: "x", ParentID: 7777})
		}, store.ErrNotFound},
		{"CreateChannel under another guild's channel", func() error {
			return f.s.CreateChannel(f.ctx, guild.Channel{ID: 700, GuildID: guildID, Name: "x", ParentID: other.ID})
		}, store.ErrNotFound},
		{"CreateChannel under itself", func() error {
			return f.s.CreateChannel(f.ctx, guild.Channel{ID: 700, GuildID: guildID, Name: "x", ParentID: 700})
		}, store.ErrConflict},
		{"UpdateChannel of an unknown channel", func() error {
			return f.s.UpdateChannel(f.ctx, guild.Channel{ID: 7777, GuildID: guildID, Name: "x"})
		}, store.ErrNotFound},
		{"UpdateChannel of another guild's channel", func() error {
			return f.s.UpdateChannel(f.ctx, with(other, func(c *guild.Channel) { c.GuildID = guildID; c.Name = "stolen" }))
		}, store.ErrNotFound},
		{"UpdateChannel under an unknown parent", func() error {
			return f.s.UpdateChannel(f.ctx, with(voice, func(c *guild.Channel) { c.ParentID = 7777 }))
		}, store.ErrNotFound},
		{"UpdateChannel under another guild's channel", func() error {
			return f.s.UpdateChannel(f.ctx, with(voice, func(c *guild.Channel) { c.ParentID = other.ID }))
		}, store.ErrNotFound},
		{"UpdateChannel under itself", func() error {
			return f.s.UpdateChannel(f.ctx, with(cat, func(c *guild.Channel) { c.ParentID = cat.ID }))
		}, store.ErrConflict},
		{"UpdateChannel under its own descendant", func() error {
			return f.s.UpdateChannel(f.ctx, with(cat, func(c *guild.Channel) { c.ParentID = thread.ID }))
		}, store.ErrConflict},
		{"Channel unknown", func() error { _, err := f.s.Channel(f.ctx, 7777); return err }, store.ErrNotFound},
	})
	// The refused writes changed nothing.
	for _, want := range []guild.Channel{cat, voice, other, thread} {
		if got, err := f.s.Channel(f.ctx, want.ID); err != nil {
			t.Errorf("Channel(%d) after refused writes: %v", want.ID, err)
		} else {
			checkChannel(t, got, want)
		}
	}
	if _, err := f.s.Channel(f.ctx, 700); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Channel 700 after refused creates: err = %v, want ErrNotFound", err)
	}
}

func testDeleteChannel(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	chs := []guild.Channel{
		{ID: 500, GuildID: guildID, Type: guild.ChannelCategory, Name: "cat"},
		{ID: 501, GuildID: guildID, Type: guild.ChannelText, Name: "t1", ParentID: 500},
		{ID: 502, GuildID: guildID, Type: guild.ChannelText, Name: "t2", ParentID: 500, Position: 1},
		{ID: 503, GuildID: guildID, Type: guild.ChannelPublicThread, Name: "th1", ParentID: 501},
		{ID: 504, GuildID: guildID, Type: guild.ChannelPrivateThread, Name: "th2", ParentID: 501},
		{ID: 505, GuildID: guildID, Type: guild.ChannelForum, Name: "forum", ParentID: 500},
		{ID: 506, GuildID: guildID, Type: guild.ChannelPublicThread, Name: "post", ParentID: 505},
		{ID: 507, GuildID: guildID, Type: guild.ChannelAnnouncement, Name: "news"},
		{ID: 508, GuildID: guildID, Type: guild.ChannelAnnouncementThread, Name: "news thread", ParentID: 507},
		{ID: 600, GuildID: guild2ID, Type: guild.ChannelText, Name: "other"},
	}
	for _, c := range chs {
		must(t, f.s.CreateChannel(f.ctx, c))
	}
	// A permission list naming a channel outlives it.
	channelPerm := []command.Permission{{ID: 501, Type: command.PermissionChannel, Permission: false}}
	f.setPermissions(t, guildID, appID, channelPerm)

	checkErrs(t, []errCase{
		{"DeleteChannel unknown", func() error { return f.s.DeleteChannel(f.ctx, guildID, 7777) }, store.ErrNotFound},
		{"DeleteChannel of another guild's channel", func() error { return f.s.DeleteChannel(f.ctx, guildID, 600) }, store.ErrNotFound},
		{"DeleteChannel in an unknown guild", func() error { return f.s.DeleteChannel(f.ctx, unknown, 500) }, store.ErrNotFound},
	})

	steps := []struct {
		del      snowflake.ID
		left     []snowflake.ID
		orphaned []snowflake.ID // children that lost their parent
	}{
		{501, []snowflake.ID{500, 505, 506, 507, 508, 502}, nil},                 // a text channel takes its threads
		{500, []snowflake.ID{505, 506, 507, 508, 502}, []snowflake.ID{502, 505}}, // a category's children stay
		{506, []snowflake.ID{505, 507, 508, 502}, nil},                           // a thread alone
		{507, []snowflake.ID{505, 502}, nil},                                     // an announcement thread
		{505, []snowflake.ID{502}, nil},
	}
	for _, st := range steps {
		must(t, f.s.DeleteChannel(f.ctx, guildID, st.del))
		if _, err := f.s.Channel(f.ctx, st.del); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Channel(%d) after its delete: err = %v", st.del, err)
		}
		if got := channelIDs(f.channels(t, guildID)); !slices.Equal(got, st.left) {
			t.Errorf("after deleting %d: Channels = %v, want %v", st.del, got, st.left)
		}
		for _, id := range st.orphaned {
			if c, err := f.s.Channel(f.ctx, id); err != nil || c.ParentID != 0 {
				t.Errorf("after deleting %d: Channel(%d) = %+v, %v; want no parent", st.del, id, c, err)
			}
		}
	}
	if got := channelIDs(f.channels(t, guild2ID)); !slices.Equal(got, []snowflake.ID{600}) {
		t.Errorf("Channels(guild 2) = %v", got)
	}
	f.hasPermissions(t, appID, guildID, appID, channelPerm)
}

func testInstallations(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	const g snowflake.ID = 300
	must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: g, Name: "three", OwnerID: ownerID, CreatedAt: ms(1)}))
	if is := f.installations(t, g); len(is) != 0 {
		t.Errorf("Installations of a new guild = %+v", is)
	}
	// Installed in reverse id order.
	second := store.Installation{GuildID: g, ApplicationID: otherAppID, Scopes: []string{"bot"}, CreatedAt: ms(1_700_000_000_001)}
	first := store.Installation{GuildID: g, ApplicationID: appID, Scopes: []string{"bot", "applications.commands"},
		CreatedAt: ms(1_700_000_000_002)}
	for _, inst := range []store.Installation{second, first} {
		must(t, f.s.Install(f.ctx, inst))
	}
	is := f.installations(t, g)
	if len(is) != 2 {
		t.Fatalf("Installations = %+v, want two", is)
	}
	for i, want := range []store.Installation{first, second} {
		got := is[i]
		if got.GuildID != want.GuildID || got.ApplicationID != want.ApplicationID || !slices.Equal(got.Scopes, want.Scopes) ||
			!got.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("Installations[%d] = %+v, want %+v", i, got, want)
		}
	}

	must(t, f.s.Uninstall(f.ctx, g, appID))
	checkErrs(t, []errCase{
		{"Installation after Uninstall", func() error { _, err := f.s.Installation(f.ctx, g, appID); return err }, store.ErrNotFound},
		{"Uninstall again", func() error { return f.s.Uninstall(f.ctx, g, appID) }, store.ErrNotFound},
		{"Uninstall from an unknown guild", func() error { return f.s.Uninstall(f.ctx, unknown, appID) }, store.ErrNotFound},
		{"Uninstall of an unknown app", func() error { return f.s.Uninstall(f.ctx, g, unknown) }, store.ErrNotFound},
	})
	if is := f.installations(t, g); len(is) != 1 || is[0].ApplicationID != otherAppID {
		t.Errorf("Installations after Uninstall = %+v", is)
	}
	// Other guilds keep the app.
	if _, err := f.s.Installation(f.ctx, guildID, appID); err != nil {
		t.Errorf("installation in another guild after Uninstall: %v", err)
	}
	if is := f.installations(t, guildID); len(is) != 2 || is[0].ApplicationID != appID || is[1].ApplicationID != otherAppID {
		t.Errorf("Installations(guild 1) = %+v", is)
	}

	// Applications: by id, whatever the creation order.
	mid, midBot := newApp(15)
	must(t, f.s.CreateApplication(f.ctx, mid, midBot))
	apps, err := f.s.Applications(f.ctx)
	must(t, err)
	if len(apps) != 3 {
		t.Fatalf("Applications = %+v, want three", apps)
	}
	for i, id := range []snowflake.ID{appID, 15, otherAppID} {
		want, _ := newApp(id)
		checkApplication(t, apps[i], want)
	}
	if apps, err := open(t).Applications(t.Context()); err != nil || apps == nil || len(apps) != 0 {
		t.Errorf("Applications of an empty store = %v, %v; want an empty non-nil list", apps, err)
	}
}

// testReplaceAdminTokens: the new admin token works and every other
// stops working, client tokens untouched; a token that is already an
// admin token's is a conflict that revokes nothing.
func testReplaceAdminTokens(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	if n, err := f.s.ReplaceAdminTokens(f.ctx, hash("first"), ms(1_700_000_000_000)); err != nil || n != 0 {
		t.Fatalf("ReplaceAdminTokens on a store without admin tokens = %d, %v; want 0, nil", n, err)
	}
	must(t, f.s.CreateAdminToken(f.ctx, hash("second"), ms(1_700_000_000_001)))
	must(t, f.s.CreateClientToken(f.ctx, hash("alice"), aliceID, ms(1_700_000_000_002)))
	if n, err := f.s.ReplaceAdminTokens(f.ctx, hash("third"), ms(1_700_000_000_003)); err != nil || n != 2 {
		t.Fatalf("ReplaceAdminTokens = %d, %v; want 2 revoked", n, err)
	}
	if _, err := f.s.ReplaceAdminTokens(f.ctx, hash("third"), ms(1_700_000_000_004)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("ReplaceAdminTokens with the admin token's own hash: %v, want ErrConflict", err)
	}
	for _, c := range []struct {
		hash []byte
		want bool
	}{{hash("first"), false}, {hash("second"), false}, {hash("third"), true}} {
		if ok, err := f.s.AdminTokenExists(f.ctx, c.hash); err != nil || ok != c.want {
			t.Errorf("AdminTokenExists(%x) = %v, %v; want %v", c.hash, ok, err, c.want)
		}
	}
	if id, err := f.s.ClientTokenUser(f.ctx, hash("alice")); err != nil || id != aliceID {
		t.Errorf("ClientTokenUser(alice) after ReplaceAdminTokens = %d, %v; want alice", id, err)
	}
}

func testWorldTokens(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	must(t, f.s.CreateAdminToken(f.ctx, hash("admin"), ms(1_700_000_000_000)))
	must(t, f.s.CreateClientToken(f.ctx, hash("alice"), aliceID, ms(1_700_000_000_000)))
	must(t, f.s.CreateClientToken(f.ctx, hash("alice 2"), aliceID, ms(1_700_000_000_001)))
	must(t, f.s.CreateClientToken(f.ctx, hash("owner"), ownerID, ms(1_700_000_000_002)))

	for _, c := range []struct {
		hash []byte
		want bool
	}{
		{hash("admin"), true},
		{hash("Admin"), false},
		{hash("admin")[:16], false},
		{[]byte{}, false},
		{hash("alice"), false}, // a client token is no admin token
	} {
		if ok, err := f.s.AdminTokenExists(f.ctx, c.hash); err != nil || ok != c.want {
			t.Errorf("AdminTokenExists(%x) = %v, %v; want %v", c.hash, ok, err, c.want)
		}
	}
	for _, c := range []struct {
		hash []byte
		want snowflake.ID
	}{
		{hash("alice"), aliceID},
		{hash("alice 2"), aliceID},
		{hash("owner"), ownerID},
	} {
		if id, err := f.s.ClientTokenUser(f.ctx, c.hash); err != nil || id != c.want {
			t.Errorf("ClientTokenUser(%x) = %d, %v; want %d", c.hash, id, err, c.want)
		}
	}
	checkErrs(t, []errCase{
		{"ClientTokenUser unknown", func() error { _, err := f.s.ClientTokenUser(f.ctx, hash("nope")); return err }, store.ErrNotFound},
		{"ClientTokenUser of an admin token", func() error { _, err := f.s.ClientTokenUser(f.ctx, hash("admin")); return err }, store.ErrNotFound},
		{"ClientTokenUser prefix", func() error { _, err := f.s.ClientTokenUser(f.ctx, hash("alice")[:16]); return err }, store.ErrNotFound},
		{"CreateAdminToken twice", func() error { return f.s.CreateAdminToken(f.ctx, hash("admin"), ms(2)) }, store.ErrConflict},
		{"CreateClientToken twice", func() error { return f.s.CreateClientToken(f.ctx, hash("alice"), ownerID, ms(2)) }, store.ErrConflict},
		{"CreateClientToken of an unknown user", func() error {
			return f.s.CreateClientToken(f.ctx, hash("ghost"), unknown, ms(2))
		}, store.ErrNotFound},
	})
	// The refused writes changed nothing.
	if id, err := f.s.ClientTokenUser(f.ctx, hash("alice")); err != nil || id != aliceID {
		t.Errorf("ClientTokenUser after a duplicate = %d, %v", id, err)
	}
	if _, err := f.s.ClientTokenUser(f.ctx, hash("ghost")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("client token of an unknown user was stored: err = %v", err)
	}
	// App tokens are their own table.
	if _, err := f.s.TokenByHash(f.ctx, hash("admin")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TokenByHash(admin token): err = %v, want ErrNotFound", err)
	}
}

func testSnapshot(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("agrees with the single reads", func(t *testing.T) {
		f := newFixture(t, open)
		f.user(t, aliceID, "alice")
		f.user(t, bobID, "bob")
		global := f.upsert(t, globalScope, "global", "Global")
		f.seedGuild(t, guildID, global)
		snap, err := f.s.Snapshot(f.ctx, guildID)
		must(t, err)
		g, err := f.s.Guild(f.ctx, guildID)
		must(t, err)
		if snap.Guild != g {
			t.Errorf("Snapshot.Guild = %+v, want %+v", snap.Guild, g)
		}
		if want := f.roles(t, guildID); !reflect.DeepEqual(snap.Roles, want) || len(want) != 3 {
			t.Errorf("Snapshot.Roles = %+v, want %+v", snap.Roles, want)
		}
		if want := f.channels(t, guildID); !reflect.DeepEqual(snap.Channels, want) || len(want) != 3 {
			t.Errorf("Snapshot.Channels = %+v, want %+v", snap.Channels, want)
		}
		if want := f.installations(t, guildID); !reflect.DeepEqual(snap.Installations, want) || len(want) != 2 {
			t.Errorf("Snapshot.Installations = %+v, want %+v", snap.Installations, want)
		}

		// A bare guild: empty, non-nil lists.
		const bare snowflake.ID = 300
		must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: bare, Name: "bare", OwnerID: ownerID, CreatedAt: ms(1)}))
		snap, err = f.s.Snapshot(f.ctx, bare)
		must(t, err)
		if snap.Guild.ID != bare || !reflect.DeepEqual(snap.Roles, []guild.Role{everyone(bare)}) ||
			snap.Channels == nil || len(snap.Channels) != 0 || snap.Installations == nil || len(snap.Installations) != 0 {
			t.Errorf("Snapshot of a bare guild = %+v", snap)
		}
		if _, err := f.s.Snapshot(f.ctx, unknown); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Snapshot of an unknown guild: err = %v, want ErrNotFound", err)
		}
	})

	t.Run("is one consistent read", func(t *testing.T) {
		// A whole guild is deleted (in one transaction) while snapshots
		// are read: each one sees all of it or none of it.
		f := newFixture(t, open)
		f.user(t, aliceID, "alice")
		f.user(t, bobID, "bob")
		global := f.upsert(t, globalScope, "global", "Global")
		const g snowflake.ID = 300
		seen := 0
		for range 10 {
			f.createWholeGuild(t, g, global)
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					snap, err := f.s.Snapshot(f.ctx, g)
					if errors.Is(err, store.ErrNotFound) {
						return
					}
					if err != nil {
						t.Errorf("Snapshot: %v", err)
						return
					}
					seen++
					if len(snap.Roles) != 3 || len(snap.Channels) != 3 || len(snap.Installations) != 2 {
						t.Errorf("torn snapshot: %d roles, %d channels, %d installations; want 3, 3, 2",
							len(snap.Roles), len(snap.Channels), len(snap.Installations))
						return
					}
				}
			})
			must(t, f.s.DeleteGuild(f.ctx, g))
			wg.Wait()
		}
		t.Logf("%d complete snapshots", seen)
	})
}

// createWholeGuild makes a guild with its roles, channels and
// installations, in several transactions.
func (f *fixture) createWholeGuild(t *testing.T, g snowflake.ID, global command.Command) {
	t.Helper()
	must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: g, Name: "whole", OwnerID: ownerID, CreatedAt: ms(1)}))
	for _, app := range []snowflake.ID{appID, otherAppID} {
		must(t, f.s.Install(f.ctx, store.Installation{GuildID: g, ApplicationID: app, Scopes: []string{"bot"}, CreatedAt: ms(1)}))
	}
	f.seedGuild(t, g, global)
}

func testClaimFirstRun(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	now := ms(1_700_000_000_000)
	stale := time.Minute
	claim := func(owner string, at time.Time) bool {
		t.Helper()
		ok, err := s.ClaimFirstRun(ctx, owner, at, stale)
		if err != nil {
			t.Fatalf("ClaimFirstRun(%s): %v", owner, err)
		}
		return ok
	}
	if !claim("a", now) {
		t.Fatal("the first claim failed")
	}
	if claim("b", now.Add(time.Second)) {
		t.Fatal("a second claimer took a fresh claim")
	}
	if !claim("c", now.Add(2*time.Minute)) {
		t.Fatal("a stale claim was not taken over")
	}
	if claim("a", now.Add(2*time.Minute+time.Second)) {
		t.Fatal("the first claimer took back a fresh claim")
	}

	// Of concurrent claimers of an empty store, exactly one wins.
	s2 := open(t)
	var (
		wg   sync.WaitGroup
		wins atomic.Int32
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s2.ClaimFirstRun(ctx, fmt.Sprint("node", i), now, stale)
			if err != nil {
				t.Errorf("concurrent claim: %v", err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d concurrent claims won, want 1", n)
	}
}
