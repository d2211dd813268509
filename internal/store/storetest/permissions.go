package storetest

import (
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// errNoCommand is what the API's permissions function returns for a
// command that does not exist.
var errNoCommand = errors.New("unknown command")

// replaceWith is a PermissionsFunc that refuses unknown commands and
// replaces the list with next.
func replaceWith(next []command.Permission) store.PermissionsFunc {
	return func(exists bool, _ []command.Permission) ([]command.Permission, error) {
		if !exists {
			return nil, errNoCommand
		}
		return next, nil
	}
}

func perm(id snowflake.ID, allow bool) command.Permission {
	return command.Permission{ID: id, Type: command.PermissionRole, Permission: allow}
}

// setPermissions replaces one list and checks what comes back.
func (f *fixture) setPermissions(t *testing.T, guild, cmd snowflake.ID, list []command.Permission) {
	t.Helper()
	f.setAppPermissions(t, appID, guild, cmd, list)
}

func (f *fixture) setAppPermissions(t *testing.T, app, guild, cmd snowflake.ID, list []command.Permission) {
	t.Helper()
	gp, err := f.s.SetCommandPermissions(f.ctx, app, guild, cmd, replaceWith(list))
	if err != nil {
		t.Fatalf("SetCommandPermissions(app %d, guild %d, command %d): %v", app, guild, cmd, err)
	}
	want := command.GuildPermissions{ID: cmd, ApplicationID: app, GuildID: guild, Permissions: list}
	checkGuildPermissions(t, "SetCommandPermissions result", gp, want)
}

// hasPermissions checks that one list is stored (want non-empty) or absent.
func (f *fixture) hasPermissions(t *testing.T, app, guild, cmd snowflake.ID, want []command.Permission) {
	t.Helper()
	gp, err := f.s.CommandPermissions(f.ctx, app, guild, cmd)
	if len(want) == 0 {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("CommandPermissions(app %d, guild %d, command %d) = %s, %v; want ErrNotFound",
				app, guild, cmd, dump(gp), err)
		}
		return
	}
	if err != nil {
		t.Errorf("CommandPermissions(app %d, guild %d, command %d): %v", app, guild, cmd, err)
		return
	}
	checkGuildPermissions(t, "CommandPermissions", gp,
		command.GuildPermissions{ID: cmd, ApplicationID: app, GuildID: guild, Permissions: want})
}

func (f *fixture) guildPermissions(t *testing.T, app, guild snowflake.ID) []command.GuildPermissions {
	t.Helper()
	l, err := f.s.GuildPermissions(f.ctx, app, guild)
	if err != nil {
		t.Fatalf("GuildPermissions(app %d, guild %d): %v", app, guild, err)
	}
	if l == nil {
		t.Fatalf("GuildPermissions(app %d, guild %d): nil slice, want non-nil", app, guild)
	}
	return l
}

func checkGuildPermissions(t *testing.T, what string, got, want command.GuildPermissions) {
	t.Helper()
	if len(want.Permissions) == 0 {
		if got.Permissions == nil {
			t.Errorf("%s: nil Permissions, want an empty non-nil list", what)
		}
		got.Permissions, want.Permissions = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, dump(got), dump(want))
	}
}

func testPermissions(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("app-level permissions need no commands", func(t *testing.T) {
		f := newFixture(t, open)
		list := []command.Permission{perm(guildID, false), perm(7, true)}
		var sawExists bool
		var sawCur []command.Permission
		gp, err := f.s.SetCommandPermissions(f.ctx, appID, guildID, appID,
			func(exists bool, cur []command.Permission) ([]command.Permission, error) {
				sawExists, sawCur = exists, cur
				return list, nil
			})
		must(t, err)
		if !sawExists || len(sawCur) != 0 {
			t.Errorf("fn saw exists=%v cur=%s, want true and an empty list", sawExists, dump(sawCur))
		}
		checkGuildPermissions(t, "result", gp, command.GuildPermissions{ID: appID, ApplicationID: appID, GuildID: guildID,
			Permissions: list})
		f.hasPermissions(t, appID, guildID, appID, list)
		l := f.guildPermissions(t, appID, guildID)
		if len(l) != 1 {
			t.Fatalf("GuildPermissions = %s, want the app-level list", dump(l))
		}
		checkGuildPermissions(t, "GuildPermissions[0]", l[0], gp)
		// Only in that guild.
		f.hasPermissions(t, appID, guild2ID, appID, nil)
		if l := f.guildPermissions(t, appID, guild2ID); len(l) != 0 {
			t.Errorf("GuildPermissions of another guild = %s, want []", dump(l))
		}
	})

	t.Run("fn learns whether the command exists", func(t *testing.T) {
		f := newFixture(t, open)
		global := f.upsert(t, globalScope, "global", "Global")
		inGuild := f.upsert(t, guildScope, "local", "Local")
		otherGlobal := f.upsert(t, otherGlobalScope, "theirs", "Theirs")
		otherInGuild := f.upsert(t, otherGuildScope, "theirlocal", "Theirs")
		cases := []struct {
			name   string
			app    snowflake.ID
			guild  snowflake.ID
			cmd    snowflake.ID
			exists bool
		}{
			{"app id (app-level)", appID, guildID, appID, true},
			{"global command in a guild", appID, guildID, global.ID, true},
			{"global command in another guild", appID, guild2ID, global.ID, true},
			{"guild command in its guild", appID, guildID, inGuild.ID, true},
			{"guild command in another guild", appID, guild2ID, inGuild.ID, false},
			{"unknown command id", appID, guildID, idBase * 10, false},
			{"another app's id", appID, guildID, otherAppID, false},
			{"another app's global command", appID, guildID, otherGlobal.ID, false},
			{"another app's guild command", appID, guildID, otherInGuild.ID, false},
			{"own global command seen by the other app", otherAppID, guildID, global.ID, false},
		}
		list := []command.Permission{perm(3, true)}
		for _, tc := range cases {
			seen := -1
			_, err := f.s.SetCommandPermissions(f.ctx, tc.app, tc.guild, tc.cmd,
				func(exists bool, cur []command.Permission) ([]command.Permission, error) {
					seen = 0
					if exists {
						seen = 1
					}
					return replaceWith(list)(exists, cur)
				})
			switch {
			case seen < 0:
				t.Errorf("%s: fn was not called (err %v)", tc.name, err)
			case (seen == 1) != tc.exists:
				t.Errorf("%s: fn saw exists=%v, want %v", tc.name, seen == 1, tc.exists)
			case tc.exists && err != nil:
				t.Errorf("%s: %v", tc.name, err)
			case !tc.exists && !errors.Is(err, errNoCommand):
				t.Errorf("%s: err = %v, want fn's error", tc.name, err)
			}
			// A refused write stores nothing.
			var want []command.Permission
			if tc.exists {
				want = list
			}
			f.hasPermissions(t, tc.app, tc.guild, tc.cmd, want)
		}
	})

	t.Run("fn sees the current list and replaces it", func(t *testing.T) {
		f := newFixture(t, open)
		c := f.upsert(t, globalScope, "ping", "Ping")
		first := []command.Permission{perm(1, true), {ID: 2, Type: command.PermissionUser, Permission: false}}
		second := []command.Permission{{ID: guildID - 1, Type: command.PermissionChannel, Permission: false}}
		f.setPermissions(t, guildID, c.ID, first)
		var saw []command.Permission
		gp, err := f.s.SetCommandPermissions(f.ctx, appID, guildID, c.ID,
			func(exists bool, cur []command.Permission) ([]command.Permission, error) {
				saw = cur
				return second, nil
			})
		must(t, err)
		if !reflect.DeepEqual(saw, first) {
			t.Errorf("fn saw cur = %s, want %s", dump(saw), dump(first))
		}
		checkGuildPermissions(t, "result", gp,
			command.GuildPermissions{ID: c.ID, ApplicationID: appID, GuildID: guildID, Permissions: second})
		f.hasPermissions(t, appID, guildID, c.ID, second)

		// A failing fn keeps the stored list.
		if _, err := f.s.SetCommandPermissions(f.ctx, appID, guildID, c.ID,
			func(bool, []command.Permission) ([]command.Permission, error) { return nil, errNoCommand }); !errors.Is(err, errNoCommand) {
			t.Errorf("failing fn: err = %v, want its error", err)
		}
		f.hasPermissions(t, appID, guildID, c.ID, second)
	})

	t.Run("GuildPermissions lists non-empty lists by command id", func(t *testing.T) {
		f := newFixture(t, open)
		f.ids = countdown()
		c1 := f.upsert(t, globalScope, "one", "One")  // largest id
		c2 := f.upsert(t, guildScope, "two", "Two")   // middle
		c3 := f.upsert(t, globalScope, "three", "Th") // smallest
		lists := map[snowflake.ID][]command.Permission{
			c1.ID: {perm(1, true)},
			appID: {perm(guildID, false)},
			c3.ID: {perm(3, true), perm(4, false)},
		}
		f.setPermissions(t, guildID, c1.ID, lists[c1.ID])
		f.setPermissions(t, guildID, appID, lists[appID])
		f.setPermissions(t, guildID, c2.ID, []command.Permission{}) // empty: stored as nothing
		f.setPermissions(t, guildID, c3.ID, lists[c3.ID])
		got := f.guildPermissions(t, appID, guildID)
		wantIDs := []snowflake.ID{appID, c3.ID, c1.ID}
		var gotIDs []snowflake.ID
		for _, gp := range got {
			gotIDs = append(gotIDs, gp.ID)
			checkGuildPermissions(t, "GuildPermissions entry", gp,
				command.GuildPermissions{ID: gp.ID, ApplicationID: appID, GuildID: guildID, Permissions: lists[gp.ID]})
		}
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("GuildPermissions ids = %v, want %v", gotIDs, wantIDs)
		}
		f.hasPermissions(t, appID, guildID, c2.ID, nil)
		if l := f.guildPermissions(t, appID, guild2ID); len(l) != 0 {
			t.Errorf("GuildPermissions of guild2 = %s, want []", dump(l))
		}
	})

	t.Run("CommandPermissions without a list is ErrNotFound", func(t *testing.T) {
		f := newFixture(t, open)
		c := f.upsert(t, globalScope, "ping", "Ping")
		for _, id := range []snowflake.ID{c.ID, appID, idBase * 10} {
			f.hasPermissions(t, appID, guildID, id, nil)
		}
		if l := f.guildPermissions(t, appID, guildID); len(l) != 0 {
			t.Errorf("GuildPermissions = %s, want []", dump(l))
		}
	})

	t.Run("setting an empty list removes it", func(t *testing.T) {
		f := newFixture(t, open)
		c := f.upsert(t, globalScope, "ping", "Ping")
		for _, id := range []snowflake.ID{c.ID, appID} {
			f.setPermissions(t, guildID, id, []command.Permission{perm(1, true)})
			f.setPermissions(t, guild2ID, id, []command.Permission{perm(2, true)})
			f.setPermissions(t, guildID, id, nil)
			f.hasPermissions(t, appID, guildID, id, nil)
			f.hasPermissions(t, appID, guild2ID, id, []command.Permission{perm(2, true)})
			// Removing what is not there is fine too.
			f.setPermissions(t, guildID, id, []command.Permission{})
			f.hasPermissions(t, appID, guildID, id, nil)
		}
		if l := f.guildPermissions(t, appID, guildID); len(l) != 0 {
			t.Errorf("GuildPermissions = %s, want []", dump(l))
		}
	})

	t.Run("deleting a command drops its permissions everywhere", func(t *testing.T) {
		cases := []struct {
			name   string
			delete func(t *testing.T, f *fixture, victim command.Command) command.Plan
		}{
			{"Delete", func(t *testing.T, f *fixture, victim command.Command) command.Plan {
				p, err := f.s.WriteCommands(f.ctx, globalScope, 0, deletePlan(victim.ID))
				must(t, err)
				return p
			}},
			{"Overwrite without it", func(t *testing.T, f *fixture, victim command.Command) command.Plan {
				in := []command.Parsed{parse(t, globalScope, command.ModeBulk, cmdJSON("keep", "Keep"))}
				p, err := f.s.WriteCommands(f.ctx, globalScope, 0, overwritePlan(globalScope, in, f.ids))
				must(t, err)
				return p
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, open)
				victim := f.upsert(t, globalScope, "victim", "Victim")
				keep := f.upsert(t, globalScope, "keep", "Keep")
				local := f.upsert(t, guildScope, "local", "Local")
				l := []command.Permission{perm(9, true)}
				for _, g := range []snowflake.ID{guildID, guild2ID} {
					f.setPermissions(t, g, victim.ID, l)
					f.setPermissions(t, g, keep.ID, l)
					f.setPermissions(t, g, appID, l)
				}
				f.setPermissions(t, guildID, local.ID, l)
				f.setAppPermissions(t, otherAppID, guildID, otherAppID, l)

				p := tc.delete(t, f, victim)
				if !slices.Contains(p.DropPermissions, victim.ID) {
					t.Fatalf("plan does not drop the victim's permissions: %s", dump(p))
				}
				for _, g := range []snowflake.ID{guildID, guild2ID} {
					f.hasPermissions(t, appID, g, victim.ID, nil)
					f.hasPermissions(t, appID, g, keep.ID, l)
					f.hasPermissions(t, appID, g, appID, l)
				}
				f.hasPermissions(t, appID, guildID, local.ID, l)
				f.hasPermissions(t, otherAppID, guildID, otherAppID, l)
			})
		}
	})

	t.Run("a rename drops permissions, other edits keep them", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			sc   command.Scope
		}{{"global command", globalScope}, {"guild command", guildScope}} {
			sc := tc.sc
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, open)
				c := f.upsert(t, sc, "ping", "Ping")
				l := []command.Permission{perm(9, true)}
				f.setPermissions(t, guildID, c.ID, l)
				f.setPermissions(t, guildID, appID, l)

				p, err := f.edit(t, sc, c, `{"description":"Pong"}`)
				must(t, err)
				f.hasPermissions(t, appID, guildID, c.ID, l)

				p, err = f.edit(t, sc, p.Result[0], `{"name":"pong"}`)
				must(t, err)
				if p.Result[0].ID != c.ID {
					t.Fatalf("rename changed the id: %s", dump(p.Result[0]))
				}
				f.hasPermissions(t, appID, guildID, c.ID, nil)
				f.hasPermissions(t, appID, guildID, appID, l)
				// The renamed command can be given a new list.
				f.setPermissions(t, guildID, c.ID, l)
			})
		}
	})

	t.Run("concurrent permission writes lose no update", func(t *testing.T) {
		f := newFixture(t, open)
		c := f.upsert(t, globalScope, "ping", "Ping")
		const n = 16
		var wg sync.WaitGroup
		for i := range n {
			// Each writer adds its own entry to what it reads: a
			// read-modify-write that must see every earlier commit.
			add := perm(snowflake.ID(1000+i), true)
			wg.Go(func() {
				_, err := f.s.SetCommandPermissions(f.ctx, appID, guildID, c.ID,
					func(exists bool, cur []command.Permission) ([]command.Permission, error) {
						if !exists {
							return nil, errNoCommand
						}
						return append(slices.Clone(cur), add), nil
					})
				if err != nil {
					t.Errorf("concurrent SetCommandPermissions: %v", err)
				}
			})
		}
		wg.Wait()
		gp, err := f.s.CommandPermissions(f.ctx, appID, guildID, c.ID)
		must(t, err)
		seen := map[snowflake.ID]bool{}
		for _, p := range gp.Permissions {
			seen[p.ID] = true
		}
		if len(gp.Permissions) != n || len(seen) != n {
			t.Errorf("after %d concurrent additions the list holds %d entries (%d distinct), want %d",
				n, len(gp.Permissions), len(seen), n)
		}
	})

	t.Run("another app's permissions are never visible", func(t *testing.T) {
		f := newFixture(t, open)
		mine := f.upsert(t, globalScope, "ping", "Ping")
		l := []command.Permission{perm(9, true)}
		f.setPermissions(t, guildID, mine.ID, l)
		f.setPermissions(t, guildID, appID, l)

		if got := f.guildPermissions(t, otherAppID, guildID); len(got) != 0 {
			t.Errorf("other app's GuildPermissions = %s, want []", dump(got))
		}
		for _, id := range []snowflake.ID{mine.ID, appID} {
			f.hasPermissions(t, otherAppID, guildID, id, nil)
			var sawExists bool
			var sawCur []command.Permission
			_, err := f.s.SetCommandPermissions(f.ctx, otherAppID, guildID, id,
				func(exists bool, cur []command.Permission) ([]command.Permission, error) {
					sawExists, sawCur = exists, cur
					return replaceWith([]command.Permission{perm(1, false)})(exists, cur)
				})
			if !errors.Is(err, errNoCommand) {
				t.Errorf("other app on %d: err = %v, want fn's refusal", id, err)
			}
			if sawExists || len(sawCur) != 0 {
				t.Errorf("other app on %d: fn saw exists=%v cur=%s, want false and []", id, sawExists, dump(sawCur))
			}
			f.hasPermissions(t, appID, guildID, id, l)
		}

		theirs := f.upsert(t, otherGlobalScope, "ping", "Ping")
		f.setAppPermissions(t, otherAppID, guildID, theirs.ID, []command.Permission{perm(2, false)})
		f.setAppPermissions(t, otherAppID, guildID, otherAppID, []command.Permission{perm(3, false)})
		got := f.guildPermissions(t, appID, guildID)
		var gotIDs []snowflake.ID
		for _, gp := range got {
			gotIDs = append(gotIDs, gp.ID)
			if gp.ApplicationID != appID {
				t.Errorf("app's GuildPermissions holds %s", dump(gp))
			}
		}
		if !slices.Equal(gotIDs, []snowflake.ID{appID, mine.ID}) {
			t.Errorf("app's GuildPermissions ids = %v, want %v", gotIDs, []snowflake.ID{appID, mine.ID})
		}
		f.hasPermissions(t, appID, guildID, theirs.ID, nil)
		// Deleting the other app's command leaves this app's lists alone.
		if _, err := f.s.WriteCommands(f.ctx, otherGlobalScope, 0, deletePlan(theirs.ID)); err != nil {
			t.Fatal(err)
		}
		f.hasPermissions(t, appID, guildID, mine.ID, l)
		f.hasPermissions(t, appID, guildID, appID, l)
	})
}
