package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

func testIdentity(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("application and bot user round trip", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		if n, err := s.CountApplications(ctx); err != nil || n != 0 {
			t.Fatalf("CountApplications on empty store = %d, %v; want 0", n, err)
		}
		must(t, s.CreateUser(ctx, store.User{ID: ownerID, Username: "owner", CreatedAt: ms(1_600_000_000_000)}))
		app, bot := newApp(appID)
		must(t, s.CreateApplication(ctx, app, bot))
		got, err := s.Application(ctx, appID)
		must(t, err)
		checkApplication(t, got, app)
		gotBot, err := s.User(ctx, appID)
		must(t, err)
		checkUser(t, gotBot, bot)
		if !gotBot.Bot {
			t.Error("bot user read back with Bot = false")
		}
		other, otherBot := newApp(otherAppID)
		must(t, s.CreateApplication(ctx, other, otherBot))
		if n, err := s.CountApplications(ctx); err != nil || n != 2 {
			t.Fatalf("CountApplications = %d, %v; want 2", n, err)
		}
	})

	t.Run("unknown ids are ErrNotFound", func(t *testing.T) {
		f := newFixture(t, open)
		const unknown snowflake.ID = 999
		cases := []struct {
			name string
			read func() error
		}{
			{"Application", func() error { _, err := f.s.Application(f.ctx, unknown); return err }},
			{"Application of a plain user", func() error { _, err := f.s.Application(f.ctx, ownerID); return err }},
			{"User", func() error { _, err := f.s.User(f.ctx, unknown); return err }},
			{"Guild", func() error { _, err := f.s.Guild(f.ctx, unknown); return err }},
			{"Installation of unknown app", func() error { _, err := f.s.Installation(f.ctx, guildID, unknown); return err }},
			{"Installation in unknown guild", func() error { _, err := f.s.Installation(f.ctx, unknown, appID); return err }},
			{"TokenByHash", func() error { _, err := f.s.TokenByHash(f.ctx, hash("nope")); return err }},
		}
		for _, c := range cases {
			if err := c.read(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: err = %v, want ErrNotFound", c.name, err)
			}
		}
	})

	t.Run("duplicate ids are ErrConflict", func(t *testing.T) {
		f := newFixture(t, open)
		must(t, f.s.CreateToken(f.ctx, store.Token{Hash: hash("t"), Kind: store.TokenBot, ApplicationID: appID,
			UserID: appID, CreatedAt: ms(1)}))
		third, thirdBot := newApp(30)
		must(t, f.s.CreateUser(f.ctx, store.User{ID: 40, Username: "taken", CreatedAt: ms(1)}))
		clash, clashBot := newApp(40)
		cases := []struct {
			name  string
			write func() error
		}{
			{"CreateApplication with an existing id", func() error {
				app, bot := newApp(appID)
				return f.s.CreateApplication(f.ctx, app, bot)
			}},
			{"CreateApplication whose bot id is a user", func() error { return f.s.CreateApplication(f.ctx, clash, clashBot) }},
			{"CreateUser", func() error {
				return f.s.CreateUser(f.ctx, store.User{ID: ownerID, Username: "again", CreatedAt: ms(1)})
			}},
			{"CreateUser over a bot user", func() error {
				return f.s.CreateUser(f.ctx, store.User{ID: appID, Username: "again", CreatedAt: ms(1)})
			}},
			{"CreateGuild", func() error {
				return f.s.CreateGuild(f.ctx, store.Guild{ID: guildID, Name: "again", OwnerID: ownerID, CreatedAt: ms(1)})
			}},
			{"CreateToken", func() error {
				return f.s.CreateToken(f.ctx, store.Token{Hash: hash("t"), Kind: store.TokenBearer, ApplicationID: appID,
					UserID: ownerID, CreatedAt: ms(2)})
			}},
		}
		for _, c := range cases {
			if err := c.write(); !errors.Is(err, store.ErrConflict) {
				t.Errorf("%s: err = %v, want ErrConflict", c.name, err)
			}
		}
		// The failed writes changed nothing.
		if u, err := f.s.User(f.ctx, ownerID); err != nil || u.Username != "owner" {
			t.Errorf("owner after failed duplicate = %+v, %v", u, err)
		}
		if u, err := f.s.User(f.ctx, 40); err != nil || u.Username != "taken" || u.Bot {
			t.Errorf("user 40 after failed CreateApplication = %+v, %v", u, err)
		}
		if _, err := f.s.Application(f.ctx, 40); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("application 40 after failed CreateApplication: err = %v, want ErrNotFound", err)
		}
		if g, err := f.s.Guild(f.ctx, guildID); err != nil || g.Name != "guild "+guildID.String() {
			t.Errorf("guild after failed duplicate = %+v, %v", g, err)
		}
		if tok, err := f.s.TokenByHash(f.ctx, hash("t")); err != nil || tok.Kind != store.TokenBot {
			t.Errorf("token after failed duplicate = %+v, %v", tok, err)
		}
		// An unrelated new application still goes in.
		must(t, f.s.CreateApplication(f.ctx, third, thirdBot))
	})

	t.Run("failed CreateApplication creates no bot user", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		// The owner does not exist: the application row cannot go in,
		// and the bot user inserted before it must be rolled back.
		app, bot := newApp(appID)
		if err := s.CreateApplication(ctx, app, bot); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("CreateApplication with unknown owner: err = %v, want ErrNotFound", err)
		}
		if _, err := s.User(ctx, appID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("bot user after failed CreateApplication: err = %v, want ErrNotFound", err)
		}
		if n, err := s.CountApplications(ctx); err != nil || n != 0 {
			t.Errorf("CountApplications = %d, %v; want 0", n, err)
		}
	})

	t.Run("users round trip", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		users := []store.User{
			{ID: 1, Username: "alice", GlobalName: "Alice", Locale: "fr", CreatedAt: ms(1_700_000_000_123)},
			{ID: 2, Username: "bob", CreatedAt: ms(1_700_000_000_456)},
			{ID: 3, Username: "robot", Bot: true, Locale: "en-US", CreatedAt: ms(1_700_000_000_789)},
			{ID: 1 << 62, Username: "big", CreatedAt: ms(1)},
		}
		for _, u := range users {
			must(t, s.CreateUser(ctx, u))
		}
		for _, want := range users {
			got, err := s.User(ctx, want.ID)
			if err != nil {
				t.Errorf("User(%d): %v", want.ID, err)
				continue
			}
			checkUser(t, got, want)
		}
	})

	t.Run("guilds round trip", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		must(t, s.CreateUser(ctx, store.User{ID: ownerID, Username: "owner", CreatedAt: ms(1)}))
		guilds := []store.Guild{
			{ID: guildID, Name: "One", OwnerID: ownerID, CreatedAt: ms(1_700_000_000_001)},
			{ID: guild2ID, Name: "Two", OwnerID: ownerID, CreatedAt: ms(1_700_000_000_002)},
		}
		for _, g := range guilds {
			must(t, s.CreateGuild(ctx, g))
		}
		for _, want := range guilds {
			got, err := s.Guild(ctx, want.ID)
			if err != nil {
				t.Errorf("Guild(%d): %v", want.ID, err)
				continue
			}
			if got.ID != want.ID || got.Name != want.Name || got.OwnerID != want.OwnerID || !got.CreatedAt.Equal(want.CreatedAt) {
				t.Errorf("Guild(%d) = %+v, want %+v", want.ID, got, want)
			}
		}
	})

	t.Run("installation upsert replaces scopes", func(t *testing.T) {
		f := newFixture(t, open)
		const g snowflake.ID = 300
		must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: g, Name: "three", OwnerID: ownerID, CreatedAt: ms(1)}))
		if _, err := f.s.Installation(f.ctx, g, appID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Installation before Install: err = %v, want ErrNotFound", err)
		}
		steps := []struct {
			scopes []string
			has    []string
			hasnt  []string
		}{
			{[]string{"bot"}, []string{"bot"}, []string{"applications.commands", ""}},
			{[]string{"applications.commands"}, []string{"applications.commands"}, []string{"bot"}},
			{[]string{"bot", "applications.commands"}, []string{"bot", "applications.commands"}, []string{"identify"}},
		}
		created := ms(1_700_000_000_000)
		for i, st := range steps {
			must(t, f.s.Install(f.ctx, store.Installation{GuildID: g, ApplicationID: appID, Scopes: st.scopes,
				CreatedAt: created.Add(time.Duration(i) * time.Hour)}))
			inst, err := f.s.Installation(f.ctx, g, appID)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if inst.GuildID != g || inst.ApplicationID != appID || !slices.Equal(inst.Scopes, st.scopes) {
				t.Errorf("step %d: installation = %+v, want scopes %q", i, inst, st.scopes)
			}
			for _, sc := range st.has {
				if !inst.HasScope(sc) {
					t.Errorf("step %d: HasScope(%q) = false", i, sc)
				}
			}
			for _, sc := range st.hasnt {
				if inst.HasScope(sc) {
					t.Errorf("step %d: HasScope(%q) = true", i, sc)
				}
			}
		}
		// Another app's installation in the guild is its own.
		if _, err := f.s.Installation(f.ctx, g, otherAppID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other app's installation: err = %v, want ErrNotFound", err)
		}
		must(t, f.s.Install(f.ctx, store.Installation{GuildID: g, ApplicationID: otherAppID, Scopes: []string{"bot"},
			CreatedAt: created}))
		if inst, err := f.s.Installation(f.ctx, g, appID); err != nil || len(inst.Scopes) != 2 {
			t.Errorf("app's installation after the other app's = %+v, %v", inst, err)
		}
	})

	t.Run("tokens by hash", func(t *testing.T) {
		f := newFixture(t, open)
		tokens := []store.Token{
			{Hash: hash("bot"), Kind: store.TokenBot, ApplicationID: appID, UserID: appID,
				CreatedAt: ms(1_700_000_000_001)}, // ExpiresAt zero: never
			{Hash: hash("bearer"), Kind: store.TokenBearer, ApplicationID: appID, UserID: ownerID,
				Scopes:    []string{"applications.commands.update", "applications.commands.permissions.update", "identify"},
				ExpiresAt: ms(1_700_604_800_002), CreatedAt: ms(1_700_000_000_002)},
			{Hash: hash("other"), Kind: store.TokenBearer, ApplicationID: otherAppID, UserID: ownerID,
				Scopes: []string{"applications.commands.update"}, ExpiresAt: ms(1_800_000_000_003), CreatedAt: ms(1_700_000_000_003)},
		}
		for _, tok := range tokens {
			must(t, f.s.CreateToken(f.ctx, tok))
		}
		for _, want := range tokens {
			got, err := f.s.TokenByHash(f.ctx, want.Hash)
			if err != nil {
				t.Errorf("TokenByHash(%x): %v", want.Hash, err)
				continue
			}
			scopesOK := slices.Equal(got.Scopes, want.Scopes) || len(got.Scopes) == 0 && len(want.Scopes) == 0
			if !bytes.Equal(got.Hash, want.Hash) || got.Kind != want.Kind || got.ApplicationID != want.ApplicationID ||
				got.UserID != want.UserID || !scopesOK {
				t.Errorf("TokenByHash(%x) = %+v, want %+v", want.Hash, got, want)
			}
			if got.ExpiresAt.IsZero() != want.ExpiresAt.IsZero() || !got.ExpiresAt.Equal(want.ExpiresAt) {
				t.Errorf("token %s: ExpiresAt = %v, want %v", want.Kind, got.ExpiresAt, want.ExpiresAt)
			}
			if !got.CreatedAt.Equal(want.CreatedAt) {
				t.Errorf("token %s: CreatedAt = %v, want %v", want.Kind, got.CreatedAt, want.CreatedAt)
			}
			for _, sc := range want.Scopes {
				if !got.HasScope(sc) {
					t.Errorf("token %s: HasScope(%q) = false", want.Kind, sc)
				}
			}
		}
		// Lookups are by the exact hash only.
		for _, h := range [][]byte{hash("Bot"), hash("bot")[:16], {}} {
			if _, err := f.s.TokenByHash(f.ctx, h); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("TokenByHash(%x): err = %v, want ErrNotFound", h, err)
			}
		}
	})
}

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func checkApplication(t *testing.T, got, want store.Application) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("application %d: CreatedAt = %v, want %v", want.ID, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt, want.CreatedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("application %d:\n got  %+v\n want %+v", want.ID, got, want)
	}
}

func checkUser(t *testing.T, got, want store.User) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("user %d: CreatedAt = %v, want %v", want.ID, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt, want.CreatedAt = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("user %d:\n got  %+v\n want %+v", want.ID, got, want)
	}
}

// testWorldIDs: the world an application, a user and a guild belong to
// is kept with them and read back by every read of them.
func testWorldIDs(t *testing.T, open func(t *testing.T) store.Store) {
	s, ctx := open(t), t.Context()
	const world = snowflake.ID(777)
	owner := store.User{ID: ownerID, Username: "owner", CreatedAt: ms(1_600_000_000_000), WorldID: world}
	must(t, s.CreateUser(ctx, owner))
	app, bot := newApp(appID)
	app.WorldID, bot.WorldID = world, world
	must(t, s.CreateApplication(ctx, app, bot))
	must(t, s.CreateGuild(ctx, store.Guild{ID: guildID, Name: "g", OwnerID: ownerID, CreatedAt: ms(1_600_000_000_000), WorldID: world}))
	if u, err := s.User(ctx, ownerID); err != nil || u.WorldID != world {
		t.Errorf("User = %+v, %v; want world %d", u, err, world)
	}
	if a, err := s.Application(ctx, appID); err != nil || a.WorldID != world {
		t.Errorf("Application world = %d, %v; want %d", a.WorldID, err, world)
	}
	if g, err := s.Guild(ctx, guildID); err != nil || g.WorldID != world {
		t.Errorf("Guild = %+v, %v; want world %d", g, err, world)
	}
	if gs, err := s.MemberGuilds(ctx, ownerID); err != nil || len(gs) != 1 || gs[0].WorldID != world {
		t.Errorf("MemberGuilds = %+v, %v; want the guild of world %d", gs, err, world)
	}
	if us, err := s.Users(ctx); err != nil || len(us) != 2 || us[0].WorldID != world || us[1].WorldID != world {
		t.Errorf("Users = %+v, %v; want both in world %d", us, err, world)
	}
}
