package cache_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/cache"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
	"github.com/slashd/slashd/internal/store/storetest"
)

// The contract holds through a cache that also watches the world clock.
func TestContractWithWorldClock(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		st := openSQLite(t).(*sqlstore.Store)
		return cache.New(ctx, st, cache.Options{WorldClock: st.WorldClock()})
	})
}

// worldWarmer reads everything of the world an invocation reads, so that
// the cache holds it.
type worldWarmer struct {
	c       *cache.Store
	f       *fixture
	channel snowflake.ID
}

func (w worldWarmer) warm(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, read := range []func() error{
		func() error { _, err := w.c.Snapshot(ctx, w.f.Guild); return err },
		func() error { _, err := w.c.SharedGuildView(ctx, w.f.Guild); return err },
		func() error { _, err := w.c.Member(ctx, w.f.Guild, w.f.User); return err },
		func() error { _, err := w.c.MemberCount(ctx, w.f.Guild); return err },
		func() error { _, err := w.c.User(ctx, w.f.User); return err },
		func() error { _, err := w.c.Channel(ctx, w.channel); return err },
		func() error { _, err := w.c.UserInstallations(ctx, w.f.User); return err },
		func() error { _, err := w.c.GuildPermissions(ctx, w.f.App, w.f.Guild); return err },
	} {
		if err := read(); err != nil {
			t.Fatal(err)
		}
	}
}

// worldSeed adds to the fixture what the world reads need: the user as
// a member and a channel.
func worldSeed(t *testing.T, st store.Store, f *fixture) snowflake.ID {
	t.Helper()
	ctx := t.Context()
	const channel = 400
	if err := st.PutMember(ctx, guild.Member{GuildID: f.Guild, UserID: f.User, JoinedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateChannel(ctx, guild.Channel{ID: channel, GuildID: f.Guild, Name: "general"}); err != nil {
		t.Fatal(err)
	}
	return channel
}

// worldWrites are the writes to the world whose effect the next read
// must show, each with the read that checks it.
func worldWrites(f *fixture, channel snowflake.ID) []struct {
	name  string
	write func(ctx context.Context, st store.Store) error
	check func(ctx context.Context, c *cache.Store) error
} {
	const role = 500
	seen := func(ok bool, what string) error {
		if !ok {
			return errors.New(what + " not seen")
		}
		return nil
	}
	return []struct {
		name  string
		write func(ctx context.Context, st store.Store) error
		check func(ctx context.Context, c *cache.Store) error
	}{
		{"CreateRole", func(ctx context.Context, st store.Store) error {
			return st.CreateRole(ctx, guild.Role{ID: role, GuildID: f.Guild, Name: "mod", Position: 1})
		}, func(ctx context.Context, c *cache.Store) error {
			snap, err := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, seen(slices.ContainsFunc(snap.Roles, func(r guild.Role) bool { return r.ID == role }), "new role"))
		}},
		{"UpdateRole", func(ctx context.Context, st store.Store) error {
			return st.UpdateRole(ctx, guild.Role{ID: role, GuildID: f.Guild, Name: "admin", Position: 1,
				Permissions: guild.Administrator})
		}, func(ctx context.Context, c *cache.Store) error {
			snap, err := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, seen(slices.ContainsFunc(snap.Roles, func(r guild.Role) bool {
				return r.ID == role && r.Permissions == guild.Administrator
			}), "role's new permissions"))
		}},
		{"PutMember", func(ctx context.Context, st store.Store) error {
			return st.PutMember(ctx, guild.Member{GuildID: f.Guild, UserID: f.User, Roles: []snowflake.ID{role}})
		}, func(ctx context.Context, c *cache.Store) error {
			m, err := c.Member(ctx, f.Guild, f.User)
			return errors.Join(err, seen(slices.Equal(m.Roles, []snowflake.ID{role}), "member's role"))
		}},
		{"DeleteRole", func(ctx context.Context, st store.Store) error {
			return st.DeleteRole(ctx, f.Guild, role)
		}, func(ctx context.Context, c *cache.Store) error {
			m, err := c.Member(ctx, f.Guild, f.User)
			snap, err2 := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, err2, seen(len(m.Roles) == 0, "role taken from the member"),
				seen(!slices.ContainsFunc(snap.Roles, func(r guild.Role) bool { return r.ID == role }), "role deleted"))
		}},
		{"UpdateChannel", func(ctx context.Context, st store.Store) error {
			return st.UpdateChannel(ctx, guild.Channel{ID: channel, GuildID: f.Guild, Name: "renamed"})
		}, func(ctx context.Context, c *cache.Store) error {
			ch, err := c.Channel(ctx, channel)
			snap, err2 := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, err2, seen(ch.Name == "renamed", "channel's new name"),
				seen(slices.ContainsFunc(snap.Channels, func(c guild.Channel) bool { return c.Name == "renamed" }),
					"channel's new name in the snapshot"))
		}},
		{"CreateChannel", func(ctx context.Context, st store.Store) error {
			return st.CreateChannel(ctx, guild.Channel{ID: channel + 1, GuildID: f.Guild, Name: "second"})
		}, func(ctx context.Context, c *cache.Store) error {
			snap, err := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, seen(len(snap.Channels) == 2, "new channel"))
		}},
		{"DeleteChannel", func(ctx context.Context, st store.Store) error {
			return st.DeleteChannel(ctx, f.Guild, channel+1)
		}, func(ctx context.Context, c *cache.Store) error {
			snap, err := c.Snapshot(ctx, f.Guild)
			_, err2 := c.Channel(ctx, channel+1)
			return errors.Join(err, seen(len(snap.Channels) == 1, "channel deleted"),
				seen(errors.Is(err2, store.ErrNotFound), "channel deleted"))
		}},
		{"UpdateUser", func(ctx context.Context, st store.Store) error {
			return st.UpdateUser(ctx, store.User{ID: f.User, Username: "renamed", Locale: "fr"})
		}, func(ctx context.Context, c *cache.Store) error {
			u, err := c.User(ctx, f.User)
			return errors.Join(err, seen(u.Username == "renamed" && u.Locale == "fr", "user's new name"))
		}},
		{"InstallForUser", func(ctx context.Context, st store.Store) error {
			return st.InstallForUser(ctx, store.UserInstallation{UserID: f.User, ApplicationID: f.App,
				Scopes: []string{"applications.commands"}, CreatedAt: time.Now()})
		}, func(ctx context.Context, c *cache.Store) error {
			ins, err := c.UserInstallations(ctx, f.User)
			return errors.Join(err, seen(len(ins) == 1, "user's install"))
		}},
		{"UninstallForUser", func(ctx context.Context, st store.Store) error {
			return st.UninstallForUser(ctx, f.User, f.App)
		}, func(ctx context.Context, c *cache.Store) error {
			ins, err := c.UserInstallations(ctx, f.User)
			return errors.Join(err, seen(len(ins) == 0, "user's uninstall"))
		}},
		{"SetCommandPermissions", func(ctx context.Context, st store.Store) error {
			_, err := st.SetCommandPermissions(ctx, f.App, f.Guild, f.App, func(bool, []command.Permission) ([]command.Permission, error) {
				return []command.Permission{{ID: f.User, Type: command.PermissionUser, Permission: false}}, nil
			})
			return err
		}, func(ctx context.Context, c *cache.Store) error {
			lists, err := c.GuildPermissions(ctx, f.App, f.Guild)
			return errors.Join(err, seen(len(lists) == 1, "new permission list"))
		}},
		{"Uninstall", func(ctx context.Context, st store.Store) error {
			return st.Uninstall(ctx, f.Guild, f.App)
		}, func(ctx context.Context, c *cache.Store) error {
			snap, err := c.Snapshot(ctx, f.Guild)
			return errors.Join(err, seen(len(snap.Installations) == 0, "uninstall"))
		}},
		{"DeleteMember", func(ctx context.Context, st store.Store) error {
			return st.DeleteMember(ctx, f.Guild, f.User)
		}, func(ctx context.Context, c *cache.Store) error {
			_, err := c.Member(ctx, f.Guild, f.User)
			return errors.Join(seen(errors.Is(err, store.ErrNotFound), "member deleted"), countSeen(ctx, c, f.Guild))
		}},
	}
}

// viewMatchesSnapshot checks the guild's shared view (built once per
// fill of the snapshot) against its snapshot: the same guild, roles,
// channels and installations, indexed by id.
func viewMatchesSnapshot(ctx context.Context, c *cache.Store, guildID snowflake.ID) error {
	v, err := c.SharedGuildView(ctx, guildID)
	snap, err2 := c.Snapshot(ctx, guildID)
	if err := errors.Join(err, err2); err != nil {
		return err
	}
	if !reflect.DeepEqual(v.Snapshot, snap) {
		return fmt.Errorf("shared view's snapshot %+v, snapshot %+v", v.Snapshot, snap)
	}
	if !reflect.DeepEqual(v.Roles, cache.NewGuildView(snap).Roles) ||
		!reflect.DeepEqual(v.Channels, cache.NewGuildView(snap).Channels) {
		return fmt.Errorf("shared view's roles %v and channels %v, snapshot's %v and %v", v.Roles, v.Channels, snap.Roles, snap.Channels)
	}
	return nil
}

// countSeen checks the guild's cached member count against its members
// (a read the cache passes on).
func countSeen(ctx context.Context, c *cache.Store, guildID snowflake.ID) error {
	n, err := c.MemberCount(ctx, guildID)
	members, err2 := c.Members(ctx, guildID)
	if err := errors.Join(err, err2); err != nil {
		return err
	}
	if n != len(members) {
		return fmt.Errorf("member count %d, but %d members", n, len(members))
	}
	return nil
}

// A world write made through the cache is seen by the next read: the
// world an invocation reads (a guild's roles, channels and
// installations, members, users, user installs, permission lists) is
// never served stale after a write through the same cache. All of it
// runs in one request's context, where the clock is not read again: the
// wrapper's invalidations alone keep the reads exact.
func TestWorldWritesSeenByNextRead(t *testing.T) {
	inner := openSQLite(t).(*sqlstore.Store)
	f := seed(t, inner)
	channel := worldSeed(t, inner, f)
	c := cache.New(t.Context(), inner, cache.Options{WorldClock: inner.WorldClock()})
	ctx := c.SyncWorld(t.Context())
	w := worldWarmer{c: c, f: f, channel: channel}
	for _, step := range worldWrites(f, channel) {
		w.warm(t, ctx)
		if err := step.write(ctx, c); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if err := step.check(ctx, c); err != nil {
			t.Errorf("after %s through the cache: %v", step.name, err)
		}
		if err := viewMatchesSnapshot(ctx, c, f.Guild); err != nil {
			t.Errorf("after %s through the cache: %v", step.name, err)
		}
		if err := c.PutMember(ctx, guild.Member{GuildID: f.Guild, UserID: f.User, Roles: nil}); err != nil {
			t.Fatal(err) // a member again, for the next warm-up
		}
	}
}

// Another process writing the same SQLite file (the CLI, beside a
// running server) is seen by the next request too: its writes move the
// world clock, and the request's check empties the world's maps.
func TestOtherProcessWorldWritesSeen(t *testing.T) {
	ctx := t.Context()
	server, cli := openPair(t, filepath.Join(t.TempDir(), "db.sqlite"))
	f := seed(t, server)
	channel := worldSeed(t, server, f)
	c := cache.New(ctx, server, cache.Options{WorldClock: server.WorldClock()})
	w := worldWarmer{c: c, f: f, channel: channel}
	for _, step := range worldWrites(f, channel) {
		w.warm(t, ctx)
		if err := step.write(ctx, cli); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		// A request checks the clock once, then reads.
		if err := step.check(c.SyncWorld(ctx), c); err != nil {
			t.Errorf("after %s by another process, in the next request: %v", step.name, err)
		}
		if err := viewMatchesSnapshot(c.SyncWorld(ctx), c, f.Guild); err != nil {
			t.Errorf("after %s by another process, in the next request: %v", step.name, err)
		}
		if err := step.check(ctx, c); err != nil { // and a read outside any request checks by itself
			t.Errorf("after %s by another process: %v", step.name, err)
		}
		if err := cli.PutMember(ctx, guild.Member{GuildID: f.Guild, UserID: f.User}); err != nil {
			t.Fatal(err)
		}
	}
}

// A guild's shared view is built once per fill of its snapshot: read
// again, it is the same; after a write to the guild's roles, the next
// read builds a new one with the write in it.
func TestSharedGuildViewOncePerFill(t *testing.T) {
	inner := openSQLite(t).(*sqlstore.Store)
	f := seed(t, inner)
	worldSeed(t, inner, f)
	c := cache.New(t.Context(), inner, cache.Options{WorldClock: inner.WorldClock()})
	ctx := c.SyncWorld(t.Context())
	first, err := c.SharedGuildView(ctx, f.Guild)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.SharedGuildView(ctx, f.Guild)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Fatal("the second read built the view again")
	}
	const role = 501
	if err := c.CreateRole(ctx, guild.Role{ID: role, GuildID: f.Guild, Name: "mod", Position: 1}); err != nil {
		t.Fatal(err)
	}
	after, err := c.SharedGuildView(ctx, f.Guild)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := after.Roles[role]; !ok || after == first {
		t.Fatalf("after the role's creation the view has roles %v (a new view: %v)", after.Roles, after != first)
	}
	if _, ok := first.Roles[role]; ok {
		t.Fatal("the write changed the view readers already held")
	}
	if _, err := c.SharedGuildView(ctx, 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown guild's view: %v, want ErrNotFound", err)
	}
}

// Within one request the clock is read once: another process's write
// after it is seen by the next request, not by this one (so the test
// above shows the clock at work, not an empty cache).
func TestWorldClockReadOncePerRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	server, cli := openPair(t, path)
	f := seed(t, server)
	channel := worldSeed(t, server, f)
	c := cache.New(t.Context(), server, cache.Options{WorldClock: server.WorldClock()})
	ctx := c.SyncWorld(t.Context())
	worldWarmer{c: c, f: f, channel: channel}.warm(t, ctx)
	if err := cli.UpdateUser(ctx, store.User{ID: f.User, Username: "renamed"}); err != nil {
		t.Fatal(err)
	}
	if u, err := c.User(ctx, f.User); err != nil || u.Username == "renamed" {
		t.Fatalf("the request that read the clock before the write saw it (%q, %v): is the world cached at all?", u.Username, err)
	}
	if u, err := c.User(c.SyncWorld(t.Context()), f.User); err != nil || u.Username != "renamed" {
		t.Fatalf("the next request: %q, %v; want the new name", u.Username, err)
	}
}

// Without a clock the world is not cached: another process's write is
// seen at once.
func TestNoWorldCacheWithoutClock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	server, cli := openPair(t, path)
	f := seed(t, server)
	channel := worldSeed(t, server, f)
	c := cache.New(t.Context(), server, cache.Options{})
	ctx := c.SyncWorld(t.Context())
	worldWarmer{c: c, f: f, channel: channel}.warm(t, ctx)
	if err := cli.UpdateUser(ctx, store.User{ID: f.User, Username: "renamed"}); err != nil {
		t.Fatal(err)
	}
	if u, err := c.User(ctx, f.User); err != nil || u.Username != "renamed" {
		t.Fatalf("without a clock: %q, %v; want the new name", u.Username, err)
	}
}

// openPair makes a fresh SQLite file at path (copied from the migrated
// template) and opens it twice: a server's handle and the CLI's.
func openPair(t *testing.T, path string) (server, cli *sqlstore.Store) {
	t.Helper()
	if err := sqlite.CreateFromTemplate(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	open := func() *sqlstore.Store {
		st, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open()
}

// memberView is a member's view of a guild read with its stamps.
type memberView struct {
	snap  store.Snapshot
	count int
	user  store.User
	m     guild.Member
	stamp cache.MemberViewStamp
}

func readMemberView(t *testing.T, ctx context.Context, c *cache.Store, guildID, userID snowflake.ID) memberView {
	t.Helper()
	var v memberView
	var err1, err2, err3, err4 error
	v.snap, v.stamp.Snapshot, err1 = c.StampedSnapshot(ctx, guildID)
	v.count, v.stamp.MemberCount, err2 = c.StampedMemberCount(ctx, guildID)
	v.user, v.stamp.User, err3 = c.StampedUser(ctx, userID)
	v.m, v.stamp.Member, err4 = c.StampedMember(ctx, guildID, userID)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	return v
}

// A member's view stamps (what identify's GUILD_CREATE cache keys its
// bodies by) stand for their values: after each world write through
// the cache, within one request (where only the cache's own
// invalidations keep it exact, not the world clock), a view read again
// with the stamps the cache still holds is the view read before, and
// every write that changed the view changed a stamp. Stamps are held
// only while the cache serves the world.
func TestMemberViewStampsStandForTheirValues(t *testing.T) {
	inner := openSQLite(t).(*sqlstore.Store)
	f := seed(t, inner)
	channel := worldSeed(t, inner, f)
	c := cache.New(t.Context(), inner, cache.Options{WorldClock: inner.WorldClock()})
	ctx := c.SyncWorld(t.Context())
	changed := 0
	for _, step := range worldWrites(f, channel) {
		if step.name == "DeleteMember" {
			continue // no view left to compare
		}
		before := readMemberView(t, ctx, c, f.Guild, f.User)
		if !before.stamp.Complete() {
			t.Fatalf("before %s: stamps %+v, want all four held", step.name, before.stamp)
		}
		if held, ok := c.MemberViewStamp(ctx, f.Guild, f.User); !ok || held != before.stamp {
			t.Fatalf("before %s: the cache holds %+v (%v), the reads got %+v", step.name, held, ok, before.stamp)
		}
		if err := step.write(ctx, c); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		held, ok := c.MemberViewStamp(ctx, f.Guild, f.User)
		after := readMemberView(t, ctx, c, f.Guild, f.User)
		same := reflect.DeepEqual(before.snap, after.snap) && before.count == after.count &&
			reflect.DeepEqual(before.user, after.user) && reflect.DeepEqual(before.m, after.m)
		if ok && held == before.stamp && !same {
			t.Errorf("after %s the cache still holds the stamps %+v, but the view changed", step.name, held)
		}
		if !same {
			changed++
			if after.stamp == before.stamp {
				t.Errorf("after %s the view changed under the same stamps %+v", step.name, after.stamp)
			}
		}
		if err := c.PutMember(ctx, guild.Member{GuildID: f.Guild, UserID: f.User}); err != nil {
			t.Fatal(err)
		}
	}
	if changed < 8 {
		t.Errorf("only %d writes changed the view: the test checks little", changed)
	}

	// A cache that does not serve the world (no clock) holds no stamps.
	off := cache.New(t.Context(), inner, cache.Options{})
	if v := readMemberView(t, ctx, off, f.Guild, f.User); v.stamp != (cache.MemberViewStamp{}) {
		t.Errorf("without a world clock the reads got stamps %+v, want none", v.stamp)
	}
	if _, ok := off.MemberViewStamp(ctx, f.Guild, f.User); ok {
		t.Error("without a world clock the cache vouches for a view")
	}
}
