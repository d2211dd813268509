package storetest

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
)

// worldSpec is issue 24's example, widened with what a spec may also
// hold: a DM, a group DM, a user install, a Bearer grant, a category,
// guild commands, command permissions and messages.
const worldSpec = `{"name": "ban-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}, "carol": {"installs": ["modbot"],
   "grants": {"modbot": ["identify", "applications.commands.permissions.update"]}}},
 "apps": {"modbot": {"commands": [{"name": "ban", "description": "Ban someone",
           "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
                       {"type": 3, "name": "reason", "description": "Why"}]}],
   "guild_commands": {"club": [{"name": "Report", "type": 3}]}}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {"messages": [{"author": "alice", "content": "hi"}, {"author": "modbot", "content": "hello"}]}, "text": {"type": 4}, "staff": {"parent": "text",
     "overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]}, "mods": {"allow": ["VIEW_CHANNEL"]}, "bob": {"allow": "1024"}}}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {"nick": "Bobby"}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}},
   "command_permissions": {"modbot": {"ban": [{"role": "mods", "permission": true}, {"user": "bob", "permission": false}],
     "*": [{"channel": "*", "permission": false}, {"channel": "general", "permission": true}]}}}},
 "dms": {"alice-bot": {"between": ["alice", "modbot"], "messages": [{"author": "modbot", "content": "psst"}]}},
 "group_dms": {"trio": {"recipients": ["alice", "bob", "carol"], "name": "Trio"}}}`

// planned is a world planned from a spec, ready for CreateWorld.
type planned struct {
	w     store.TestWorld
	plan  store.WorldPlan
	state world.State
}

func planWorld(t *testing.T, ids command.IDs, spec string, now time.Time) planned {
	t.Helper()
	body, err := form.DecodeJSON([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	s, err := world.Decode(body)
	if err != nil {
		t.Fatalf("decode spec: %v", err)
	}
	id := ids()
	plan, st, err := world.Plan(s, id, world.State{}, world.Sources{IDs: ids, Rand: rand.Reader, Now: now})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	handles, _ := json.Marshal(st.IDs)
	creds, _ := json.Marshal(st.Secrets)
	return planned{w: store.TestWorld{ID: id, Name: s.Name, Spec: []byte(spec), Handles: handles, Credentials: creds,
		CreatedAt: now, UpdatedAt: now}, plan: plan, state: st}
}

func testTestWorlds(t *testing.T, open func(t *testing.T) store.Store) {
	now := ms(1_700_000_000_000)
	t.Run("CreateReadList", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		for _, get := range []func() (store.TestWorld, error){
			func() (store.TestWorld, error) { return f.s.TestWorld(f.ctx, p.w.ID) },
			func() (store.TestWorld, error) { return f.s.TestWorldByName(f.ctx, "ban-tests") },
		} {
			w, err := get()
			if err != nil || w.ID != p.w.ID || w.Name != p.w.Name || !bytes.Equal(w.Credentials, p.w.Credentials) ||
				!bytes.Equal(w.Handles, p.w.Handles) || !bytes.Equal(w.Spec, p.w.Spec) || !w.CreatedAt.Equal(now) {
				t.Fatalf("read world = %+v, %v; want %+v", w, err, p.w)
			}
		}
		list, err := f.s.TestWorldList(f.ctx)
		if err != nil || len(list) != 1 || list[0].ID != p.w.ID {
			t.Fatalf("TestWorldList = %+v, %v", list, err)
		}
		if _, err := f.s.TestWorld(f.ctx, 12345); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown world: %v", err)
		}
		if _, err := f.s.TestWorldByName(f.ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown world name: %v", err)
		}
		checkWorldRows(t, f, p, true)
	})

	t.Run("NameTakenWritesNothing", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		users := countUsers(t, f)
		q := planWorld(t, f.ids, worldSpec, now)
		if err := f.s.CreateWorld(f.ctx, q.w, q.plan); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second world of one name: %v, want ErrConflict", err)
		}
		if n := countUsers(t, f); n != users {
			t.Fatalf("users %d after a refused world, want %d", n, users)
		}
	})

	t.Run("FailureLeavesNothing", func(t *testing.T) {
		f := newFixture(t, open)
		users := countUsers(t, f)
		p := planWorld(t, f.ids, worldSpec, now)
		// A row the store refuses, last: a channel whose id is taken.
		p.plan.Private = append(p.plan.Private, p.plan.Private[0])
		if err := f.s.CreateWorld(f.ctx, p.w, p.plan); err == nil {
			t.Fatal("a plan with a repeated row was written")
		}
		if _, err := f.s.TestWorld(f.ctx, p.w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the world is there after its plan failed: %v", err)
		}
		if n := countUsers(t, f); n != users {
			t.Fatalf("users %d after a failed world, want %d", n, users)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		users := countUsers(t, f) - len(p.plan.Users) - len(p.plan.Apps)
		addWorldContent(t, f, p)
		// Its apps are listed (an app made in it later too), no others.
		later := f.ids()
		app, bot := newApp(later)
		app.WorldID, bot.WorldID = p.w.ID, p.w.ID
		must(t, f.s.CreateApplication(f.ctx, app, bot))
		want := []snowflake.ID{later}
		for _, a := range p.plan.Apps {
			want = append(want, a.App.ID)
		}
		slices.Sort(want)
		if apps, err := f.s.WorldApplications(f.ctx, p.w.ID); err != nil || !slices.Equal(apps, want) {
			t.Fatalf("WorldApplications = %v, %v; want %v", apps, err, want)
		}
		must(t, f.s.DeleteWorld(f.ctx, p.w.ID))
		if apps, err := f.s.WorldApplications(f.ctx, p.w.ID); err != nil || len(apps) != 0 {
			t.Fatalf("WorldApplications of a deleted world = %v, %v; want none", apps, err)
		}
		if apps, err := f.s.WorldApplications(f.ctx, 0); err != nil || len(apps) != 0 {
			t.Fatalf("WorldApplications of world 0 = %v, %v; want none (world 0 is no test world)", apps, err)
		}
		if _, err := f.s.TestWorld(f.ctx, p.w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted world: %v", err)
		}
		checkWorldRows(t, f, p, false)
		if n := countUsers(t, f); n != users {
			t.Fatalf("users %d after delete, want %d (the fixture's)", n, users)
		}
		// The fixture's world (world 0) is untouched.
		if _, err := f.s.Application(f.ctx, appID); err != nil {
			t.Fatalf("fixture app: %v", err)
		}
		if g, err := f.s.Guild(f.ctx, guildID); err != nil || g.WorldID != 0 {
			t.Fatalf("fixture guild: %+v, %v", g, err)
		}
		if err := f.s.DeleteWorld(f.ctx, p.w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v, want ErrNotFound", err)
		}
	})

	t.Run("ResetKeepsIDsAndTokens", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		extra := addWorldContent(t, f, p)
		// Replan with the world's state: the same ids and secrets.
		body, _ := form.DecodeJSON(p.w.Spec)
		spec, err := world.Decode(body)
		must(t, err)
		later := now.Add(time.Hour)
		plan, st, err := world.Plan(spec, p.w.ID, p.state, world.Sources{IDs: f.ids, Rand: rand.Reader, Now: later})
		must(t, err)
		for k, id := range p.state.IDs {
			if st.IDs[k] != id {
				t.Fatalf("reset plan changed %s: %d → %d", k, id, st.IDs[k])
			}
		}
		w := p.w
		w.UpdatedAt = later
		must(t, f.s.ResetWorld(f.ctx, w, plan))
		checkWorldRows(t, f, planned{w: w, plan: plan, state: st}, true)
		for what, gone := range map[string]func() error{
			"message": func() error { _, err := f.s.Message(f.ctx, extra.message); return err },
			"role":    func() error { _, err := f.s.Role(f.ctx, extra.guild, extra.role); return err },
			"channel": func() error { _, err := f.s.Channel(f.ctx, extra.channel); return err },
			"member":  func() error { _, err := f.s.Member(f.ctx, extra.guild, extra.member); return err },
		} {
			if err := gone(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s added after creation survived the reset: %v", what, err)
			}
		}
		got, err := f.s.TestWorld(f.ctx, p.w.ID)
		if err != nil || !got.UpdatedAt.Equal(later) || !got.CreatedAt.Equal(now) {
			t.Fatalf("reset world = %+v, %v", got, err)
		}
		if err := f.s.ResetWorld(f.ctx, store.TestWorld{ID: 4242}, plan); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("reset of an unknown world: %v", err)
		}
	})

	t.Run("WorldRows", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		extra := addWorldContent(t, f, p)
		rows, err := f.s.WorldRows(f.ctx, p.w.ID, 1000)
		must(t, err)
		idsOf := func(n int, id func(i int) snowflake.ID) []snowflake.ID {
			out := make([]snowflake.ID, n)
			for i := range out {
				out[i] = id(i)
			}
			slices.Sort(out)
			return out
		}
		same := func(what string, got, want []snowflake.ID) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", what, got, want)
			}
		}
		same("users", idsOf(len(rows.Users), func(i int) snowflake.ID { return rows.Users[i].ID }),
			idsOf(len(p.plan.Users), func(i int) snowflake.ID { return p.plan.Users[i].ID }))
		same("apps", idsOf(len(rows.Apps), func(i int) snowflake.ID { return rows.Apps[i].Bot.ID }),
			idsOf(len(p.plan.Apps), func(i int) snowflake.ID { return p.plan.Apps[i].App.ID }))
		for _, a := range rows.Apps {
			if a.App.PrivateKey != nil || a.App.ClientSecretHash != nil || a.App.WorldID != p.w.ID {
				t.Errorf("app %+v: a secret was read", a.App)
			}
		}
		same("guilds", idsOf(len(rows.Guilds), func(i int) snowflake.ID { return rows.Guilds[i].ID }),
			idsOf(len(p.plan.Guilds), func(i int) snowflake.ID { return p.plan.Guilds[i].ID }))
		same("roles", idsOf(len(rows.Roles), func(i int) snowflake.ID { return rows.Roles[i].ID }),
			append(idsOf(len(p.plan.Roles), func(i int) snowflake.ID { return p.plan.Roles[i].ID }), extra.role))
		same("channels", idsOf(len(rows.Channels), func(i int) snowflake.ID { return rows.Channels[i].ID }),
			append(idsOf(len(p.plan.Channels), func(i int) snowflake.ID { return p.plan.Channels[i].ID }), extra.channel))
		if len(rows.Members) != len(p.plan.Members)+1 || len(rows.Installations) != len(p.plan.Installations) ||
			len(rows.UserInstalls) != len(p.plan.UserInstalls) || len(rows.Private) != len(p.plan.Private) ||
			len(rows.Tokens) != 0 || len(rows.ClientTokens) != 0 {
			t.Errorf("rows = %+v", rows)
		}
		if !reflect.DeepEqual(rows.Permissions, p.plan.Permissions) {
			t.Errorf("permissions %+v, want %+v", rows.Permissions, p.plan.Permissions)
		}
		cmds := 0
		for _, wc := range rows.Commands {
			cmds += len(wc.Commands)
		}
		if len(rows.Commands) != len(p.plan.Commands) || cmds != 2 {
			t.Errorf("commands %+v", rows.Commands)
		}
		// Messages: the newest first kept, listed oldest first.
		if len(rows.Messages) != len(p.plan.Messages)+1 || rows.Messages[0].ID != p.plan.Messages[0].ID ||
			rows.Messages[2].ID != extra.message {
			t.Errorf("messages %+v", rows.Messages)
		}
		if rows, err := f.s.WorldRows(f.ctx, p.w.ID, 1); err != nil || len(rows.Messages) != 2 || rows.Messages[0].ID != extra.message {
			t.Errorf("the newest message of each channel: %+v, %v", rows.Messages, err)
		}
		if rows, err := f.s.WorldRows(f.ctx, p.w.ID, 0); err != nil || len(rows.Messages) != 0 {
			t.Errorf("no messages asked: %+v, %v", rows.Messages, err)
		}
		if rows, err := f.s.WorldRows(f.ctx, 4242, 10); err != nil || len(rows.Users)+len(rows.Guilds)+len(rows.Apps) != 0 {
			t.Errorf("an unknown world: %+v, %v", rows, err)
		}
	})

	t.Run("DefaultWorld", func(t *testing.T) {
		f := newFixture(t, open)
		defaultIs := func(want snowflake.ID) {
			t.Helper()
			if id, err := f.s.DefaultWorld(f.ctx); err != nil || id != want {
				t.Fatalf("DefaultWorld = %d, %v; want %d", id, err, want)
			}
		}
		defaultIs(0) // none: world 0
		plain := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, plain.w, plain.plan))
		defaultIs(0)
		demo := planWorld(t, f.ids, strings.Replace(worldSpec, `"ban-tests"`, `"demo"`, 1), now)
		demo.w.Default = true
		must(t, f.s.CreateWorld(f.ctx, demo.w, demo.plan))
		defaultIs(demo.w.ID)
		for _, get := range []func() (store.TestWorld, error){
			func() (store.TestWorld, error) { return f.s.TestWorld(f.ctx, demo.w.ID) },
			func() (store.TestWorld, error) { return f.s.TestWorldByName(f.ctx, "demo") },
		} {
			if w, err := get(); err != nil || !w.Default {
				t.Fatalf("the default world reads as %+v, %v", w, err)
			}
		}
		list, err := f.s.TestWorldList(f.ctx)
		must(t, err)
		for _, w := range list {
			if w.Default != (w.ID == demo.w.ID) {
				t.Fatalf("listed world %q: Default = %v", w.Name, w.Default)
			}
		}
		// One default at most: a second is refused and writes nothing.
		other := planWorld(t, f.ids, strings.Replace(worldSpec, `"ban-tests"`, `"other"`, 1), now)
		other.w.Default = true
		if err := f.s.CreateWorld(f.ctx, other.w, other.plan); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second default world: %v, want ErrConflict", err)
		}
		if _, err := f.s.TestWorld(f.ctx, other.w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the refused second default world was stored: %v", err)
		}
		// A reset keeps the mark; a delete takes it away.
		must(t, f.s.ResetWorld(f.ctx, demo.w, demo.plan))
		defaultIs(demo.w.ID)
		must(t, f.s.DeleteWorld(f.ctx, demo.w.ID))
		defaultIs(0)
	})

	t.Run("Clock", func(t *testing.T) {
		f := newFixture(t, open)
		p := planWorld(t, f.ids, worldSpec, now)
		must(t, f.s.CreateWorld(f.ctx, p.w, p.plan))
		must(t, f.s.SetWorldClock(f.ctx, p.w.ID, 15*time.Minute))
		if w, err := f.s.TestWorld(f.ctx, p.w.ID); err != nil || w.ClockOffset != 15*time.Minute {
			t.Fatalf("clock = %v, %v", w.ClockOffset, err)
		}
		if d, err := f.s.WorldClockOffset(f.ctx, p.w.ID); err != nil || d != 15*time.Minute {
			t.Fatalf("WorldClockOffset = %v, %v", d, err)
		}
		if _, err := f.s.WorldClockOffset(f.ctx, 4242); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("WorldClockOffset of an unknown world: %v", err)
		}
		if err := f.s.SetWorldClock(f.ctx, 4242, time.Minute); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("clock of an unknown world: %v", err)
		}
		// Advances racing each other all count.
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := f.s.AdvanceWorldClock(f.ctx, p.w.ID, time.Minute); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if d, err := f.s.AdvanceWorldClock(f.ctx, p.w.ID, 90*time.Second); err != nil || d != 23*time.Minute+90*time.Second {
			t.Fatalf("AdvanceWorldClock after 8 racing advances of a minute from 15m = %v, %v; want 24m30s", d, err)
		}
		if _, err := f.s.AdvanceWorldClock(f.ctx, 4242, time.Minute); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("AdvanceWorldClock of an unknown world: %v", err)
		}
	})
}

func countUsers(t *testing.T, f *fixture) int {
	t.Helper()
	us, err := f.s.Users(f.ctx)
	must(t, err)
	return len(us)
}

// extraContent is what a world gained after its creation.
type extraContent struct {
	guild, role, channel, member, message snowflake.ID
}

// addWorldContent adds to the world's guild a role, a channel, a member
// (a user of no world) and a message, as a running world would gain.
func addWorldContent(t *testing.T, f *fixture, p planned) extraContent {
	t.Helper()
	x := extraContent{guild: p.state.IDs["guilds.club"], role: f.ids(), channel: f.ids(), member: ownerID, message: f.ids()}
	must(t, f.s.CreateRole(f.ctx, guild.Role{ID: x.role, GuildID: x.guild, Name: "later", Position: 9}))
	must(t, f.s.CreateChannel(f.ctx, guild.Channel{ID: x.channel, GuildID: x.guild, Name: "later"}))
	must(t, f.s.PutMember(f.ctx, guild.Member{GuildID: x.guild, UserID: x.member, JoinedAt: now()}))
	must(t, f.s.CreateMessage(f.ctx, store.Message{ID: x.message, ChannelID: p.state.IDs["guilds.club.channels.general"],
		GuildID: x.guild, AuthorID: p.state.IDs["users.alice"], Body: []byte(`{}`), CreatedAt: now()}))
	return x
}

func now() time.Time { return ms(1_700_000_100_000) }

// checkWorldRows checks every row of the plan is there (present) or gone.
func checkWorldRows(t *testing.T, f *fixture, p planned, present bool) {
	t.Helper()
	is := func(what string, err error) {
		t.Helper()
		switch {
		case present && err != nil:
			t.Errorf("%s: %v", what, err)
		case !present && !errors.Is(err, store.ErrNotFound):
			t.Errorf("%s after delete: %v, want ErrNotFound", what, err)
		}
	}
	for _, u := range p.plan.Users {
		got, err := f.s.User(f.ctx, u.ID)
		is("user "+u.Username, err)
		if present && err == nil && (got.WorldID != p.w.ID || got.Username != u.Username || got.Locale != u.Locale) {
			t.Errorf("user = %+v, want %+v", got, u)
		}
	}
	for _, a := range p.plan.Apps {
		got, err := f.s.Application(f.ctx, a.App.ID)
		is("app "+a.App.Name, err)
		if present && err == nil && (got.WorldID != p.w.ID || !bytes.Equal(got.PrivateKey, a.App.PrivateKey)) {
			t.Errorf("app = %+v, want %+v", got, a.App)
		}
		_, err = f.s.User(f.ctx, a.Bot.ID)
		is("bot user", err)
	}
	for _, tok := range p.plan.Tokens {
		got, err := f.s.TokenByHash(f.ctx, tok.Hash)
		is("token "+tok.Kind, err)
		if present && err == nil && (got.UserID != tok.UserID || got.ApplicationID != tok.ApplicationID) {
			t.Errorf("token = %+v, want %+v", got, tok)
		}
	}
	for _, ct := range p.plan.ClientTokens {
		_, err := f.s.ClientTokenUser(f.ctx, ct.Hash)
		is("client token", err)
	}
	for _, g := range p.plan.Guilds {
		_, err := f.s.Guild(f.ctx, g.ID)
		is("guild", err)
	}
	for _, r := range p.plan.Roles {
		got, err := f.s.Role(f.ctx, r.GuildID, r.ID)
		is("role "+r.Name, err)
		if present && err == nil && got != r {
			t.Errorf("role = %+v, want %+v", got, r)
		}
	}
	for _, c := range p.plan.Channels {
		_, err := f.s.Channel(f.ctx, c.ID)
		is("channel "+c.Name, err)
	}
	for _, m := range p.plan.Members {
		got, err := f.s.Member(f.ctx, m.GuildID, m.UserID)
		is("member", err)
		if present && err == nil && (got.Nick != m.Nick || len(got.Roles) != len(m.Roles)) {
			t.Errorf("member = %+v, want %+v", got, m)
		}
	}
	for _, in := range p.plan.Installations {
		_, err := f.s.Installation(f.ctx, in.GuildID, in.ApplicationID)
		is("installation", err)
	}
	for _, in := range p.plan.UserInstalls {
		_, err := f.s.UserInstallation(f.ctx, in.UserID, in.ApplicationID)
		is("user installation", err)
	}
	for _, c := range p.plan.Private {
		_, err := f.s.PrivateChannel(f.ctx, c.ID)
		is("private channel", err)
	}
	for _, wc := range p.plan.Commands {
		for _, c := range wc.Commands {
			_, err := f.s.Command(f.ctx, wc.Scope, c.ID)
			is("command "+c.Name, err)
		}
	}
	for _, gp := range p.plan.Permissions {
		got, err := f.s.CommandPermissions(f.ctx, gp.ApplicationID, gp.GuildID, gp.ID)
		switch {
		case present && (err != nil || !reflect.DeepEqual(got.Permissions, gp.Permissions)):
			t.Errorf("permissions of %d = %+v, %v; want %+v", gp.ID, got, err, gp.Permissions)
		case !present && err == nil && len(got.Permissions) > 0:
			t.Errorf("permissions of %d after delete: %+v", gp.ID, got)
		}
	}
	for _, m := range p.plan.Messages {
		got, err := f.s.Message(f.ctx, m.ID)
		is("message", err)
		if present && err == nil && (!bytes.Equal(got.Body, m.Body) || got.ChannelID != m.ChannelID || got.AuthorID != m.AuthorID ||
			got.GuildID != m.GuildID) {
			t.Errorf("message = %+v, want %+v", got, m)
		}
	}
	if present {
		if len(p.plan.Permissions) != 2 || len(p.plan.Messages) != 3 {
			t.Errorf("permissions %+v, messages %+v", p.plan.Permissions, p.plan.Messages)
		}
		// The counts the spec implies.
		if len(p.plan.Private) != 2 || len(p.plan.UserInstalls) != 1 || len(p.plan.Commands) != 2 ||
			len(p.plan.Tokens) != 2 || len(p.plan.Members) != 3 || len(p.plan.Roles) != 3 || len(p.plan.Channels) != 3 {
			t.Errorf("plan = %+v", p.plan)
		}
		if p.state.Secrets["apps.modbot.bot_token"] == "" || !bytes.Equal(auth.Hash(p.state.Secrets["apps.modbot.bot_token"]), p.plan.Tokens[0].Hash) {
			t.Errorf("the bot token's hash is not the plan's first token")
		}
	}
}
