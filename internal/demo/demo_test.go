package demo

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// made is what a demo made, with its ids replaced by roles, so that two
// demos compare.
type made struct {
	Owner, Bot               store.User
	App                      store.Application
	Guild                    store.Guild
	Roles                    []guild.Role
	Channels                 []guild.Channel
	Members                  []guild.Member
	Installation             store.Installation
	BotToken, OwnerBearer    store.Token
	OwnerHasClientToken      bool
	BotTokenApp, BearerOwner bool
}

// read reads back every object of the demo whose credentials are c.
func read(t *testing.T, ctx context.Context, st store.Store, c bootstrap.Credentials) made {
	t.Helper()
	id := func(s string) snowflake.ID {
		v, err := snowflake.Parse(s)
		if err != nil {
			t.Fatalf("id %q: %v", s, err)
		}
		return v
	}
	var m made
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	appID, ownerID, guildID := id(c.ApplicationID), id(c.OwnerUserID), id(c.GuildID)
	m.Owner, err = st.User(ctx, ownerID)
	must(err)
	m.Bot, err = st.User(ctx, appID)
	must(err)
	m.App, err = st.Application(ctx, appID)
	must(err)
	m.Guild, err = st.Guild(ctx, guildID)
	must(err)
	m.Roles, err = st.Roles(ctx, guildID)
	must(err)
	m.Channels, err = st.Channels(ctx, guildID)
	must(err)
	for _, uid := range []snowflake.ID{ownerID, appID} {
		mem, err := st.Member(ctx, guildID, uid)
		must(err)
		m.Members = append(m.Members, mem)
	}
	m.Installation, err = st.Installation(ctx, guildID, appID)
	must(err)
	m.BotToken, err = st.TokenByHash(ctx, auth.Hash(c.BotToken))
	must(err)
	m.OwnerBearer, err = st.TokenByHash(ctx, auth.Hash(c.OwnerBearerToken))
	must(err)
	m.BotTokenApp = m.BotToken.ApplicationID == appID && m.BotToken.UserID == appID
	m.BearerOwner = m.OwnerBearer.ApplicationID == appID && m.OwnerBearer.UserID == ownerID
	u, err := st.ClientTokenUser(ctx, auth.Hash(c.OwnerClientToken))
	m.OwnerHasClientToken = err == nil && u == ownerID
	if c.ChannelID != m.Channels[0].ID.String() {
		t.Errorf("channel_id %s is not #%s (%d)", c.ChannelID, m.Channels[0].Name, m.Channels[0].ID)
	}

	// What differs by nature: ids, times, keys, hashes, the world.
	roleNames := map[snowflake.ID]string{}
	for i := range m.Roles {
		r := &m.Roles[i]
		roleNames[r.ID] = r.Name
		r.ID, r.GuildID = 0, 0
	}
	for i := range m.Members {
		mem := &m.Members[i]
		for j, r := range mem.Roles {
			mem.Roles[j] = snowflake.ID(len(roleNames[r]))
		}
		mem.GuildID, mem.UserID, mem.JoinedAt = 0, 0, time.Time{}
		if len(mem.Roles) == 0 {
			mem.Roles = nil
		}
	}
	for i := range m.Channels {
		ch := &m.Channels[i]
		ch.ID, ch.GuildID = 0, 0
		if len(ch.Overwrites) == 0 {
			ch.Overwrites = nil
		}
	}
	for _, u := range []*store.User{&m.Owner, &m.Bot} {
		u.ID, u.CreatedAt, u.WorldID = 0, time.Time{}, 0
	}
	m.App.ID, m.App.OwnerID, m.App.CreatedAt, m.App.WorldID = 0, 0, time.Time{}, 0
	m.App.ClientSecretHash, m.App.PublicKey, m.App.PrivateKey = nil, "", nil
	m.Guild.ID, m.Guild.OwnerID, m.Guild.CreatedAt, m.Guild.WorldID = 0, 0, time.Time{}, 0
	m.Installation.GuildID, m.Installation.ApplicationID, m.Installation.CreatedAt = 0, 0, time.Time{}
	slices.Sort(m.Installation.Scopes)
	for _, tok := range []*store.Token{&m.BotToken, &m.OwnerBearer} {
		tok.Hash, tok.ApplicationID, tok.UserID, tok.CreatedAt = nil, 0, 0, time.Time{}
		slices.Sort(tok.Scopes)
	}
	return m
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSameObjectsAsBefore: the demo world holds, object for object, what
// the first start made before the demo was a world (bootstrap.CreateApp
// then bootstrap.Furnish), with every credential bootstrap.json holds.
func TestSameObjectsAsBefore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	env := func(st store.Store) bootstrap.Env {
		return bootstrap.Env{Store: st, IDs: snowflake.NewGenerator(0, nil), Rand: rand.Reader, Now: time.Now}
	}
	before := openStore(t)
	old, err := bootstrap.CreateApp(ctx, env(before), bootstrap.AppOptions{Name: "demo", GuildName: "demo guild", BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bootstrap.Furnish(ctx, env(before), &old); err != nil {
		t.Fatal(err)
	}
	now := openStore(t)
	creds, err := Create(ctx, env(now), "http://x")
	if err != nil {
		t.Fatal(err)
	}
	if creds.WorldName != WorldName || creds.WorldID == "" || creds.BaseURL != "http://x" || creds.ClientID != creds.ApplicationID {
		t.Errorf("credentials %+v: want world %q with an id, the base URL, client_id = application_id", creds, WorldName)
	}
	want, got := read(t, ctx, before, old), read(t, ctx, now, creds)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the demo world made\n%+v\nwhere the first start made\n%+v", got, want)
	}
	if w, err := now.TestWorldByName(ctx, WorldName); err != nil || !w.Default || w.ID.String() != creds.WorldID {
		t.Errorf("world %q: %+v, %v; want the default world of id %s", WorldName, w, err, creds.WorldID)
	}
	if id, err := now.DefaultWorld(ctx); err != nil || id.String() != creds.WorldID {
		t.Errorf("DefaultWorld = %d, %v; want %s", id, err, creds.WorldID)
	}
	// A second one is refused: one default world, one name.
	if _, err := Create(ctx, env(now), "http://x"); err == nil {
		t.Error("a second demo world was made")
	}
}
