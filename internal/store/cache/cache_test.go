package cache_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/cache"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/storetest"
)

func openSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.OpenFromTemplate(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// The store contract holds through the cache, alone and shared (reads
// waiting for the bus's barrier): every read after a write sees it.
func TestContract(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(map[bool]string{false: "local", true: "shared"}[shared], func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				return cache.New(ctx, openSQLite(t), cache.Options{Bus: event.NewMemory(), Shared: shared})
			})
		})
	}
}

// Every method of store.Store is either wrapped (cached, or
// invalidating what it changes) or listed here as touching nothing the
// cache holds: a new store method must be classified before it ships.
func TestEveryMethodClassified(t *testing.T) {
	wrapped := []string{
		"TokenByHash", "Application", "Guild", "Installation", "RawCommands", // cached
		"ClientTokenUser", "Snapshot", "Member", "MemberCount", "User", "Channel", "UserInstallations", "GuildPermissions",
		"WriteCommands", "UpdateGuild", "DeleteGuild", "Install", "Uninstall", "SetInteractionsEndpoint",
		"SetApplicationFlags", "SetIntegrationTypes", "SetDiscoverable", "DeleteUser", "RevokeGrant",
		"SetCommandPermissions", "CreateGuild", "UpdateUser", "CreateRole", "UpdateRole", "DeleteRole",
		"PutMember", "DeleteMember", "CreateChannel", "UpdateChannel", "DeleteChannel", "InstallForUser",
		"UninstallForUser", "CreateWorld", "DeleteWorld", "ResetWorld",
	}
	untouched := []string{
		// creations: the cache never holds a not-found
		"CreateApplication", "CreateUser", "CreateToken", "OpenDM", "CreateGroupDM", "CreateAdminToken", "CreateClientToken",
		"SetLogin", "CreateSession", "SetOAuthSettings", "CreateGrant", "CreateCode", "IssueTokens",
		"CreateSigningKey", "CreateMessage", "CreateInteraction", "CreateFollowup",
		// reads and writes of rows the cache does not hold
		"CountApplications", "ApplicationCounts", "Commands", "Command", "CommandPermissions", "Users", "Guilds", "Role", "Roles", "Members", "MemberGuilds", "ShardGuildIDs", "SearchMembers",
		"Channels", "Installations", "Applications",
		"UserInstallation", "PrivateChannel", "PrivateChannels",
		"DeletePrivateChannel", "AdminTokenExists", "ReplaceAdminTokens", "ClaimFirstRun", "MaxID", "LoginByName", "LoginOfUser", "SessionByHash", "DeleteSession", "OAuthSettings", "Grant", "Grants",
		"UseCode", "UseRefreshToken", "SigningKeys", "Message", "UpdateMessage", "DeleteMessage",
		// uploaded files (read by id, written with their messages)
		"File", "FileSigningKey",
		"ChannelMessages", "Interaction", "AnswerInteraction", "CreateAnsweredInteraction", "DeleteInteractionsBefore",
		"HitRateLimit", "DeleteRateLimitsBefore", "Close",
		// the world events outbox (written by triggers with the writes above)
		"HasWorldEvents", "ClaimWorldEvents", "BotMembers",
		// the playground's sessions
		"CreatePlaygroundSession", "PlaygroundSession", "DeletePlaygroundSession",
		// test worlds' journals (never cached)
		"AppendJournal", "JournalEntries", "JournalLast",
		// test worlds' faults (each node's fault engine keeps its own copy)
		"CreateFault", "WorldFaults", "LiveFaults", "DeleteFault", "DeleteWorldFaults", "MatchFault",
		// test worlds' own rows (their users, apps and guilds are written by the wrapped ones)
		"TestWorld", "TestWorldByName", "TestWorldList", "SetWorldClock", "AdvanceWorldClock", "WorldApplications", "WorldClockOffset", "DefaultWorld",
		// an export's read of a world's rows (read past the cache: one consistent read)
		"WorldRows",
	}
	known := slices.Concat(wrapped, untouched)
	typ := reflect.TypeFor[store.Store]()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !slices.Contains(known, name) {
			t.Errorf("store.Store.%s is not classified: wrap it in internal/store/cache if it changes tokens, "+
				"applications, guilds, installations or commands, else list it here", name)
		}
	}
	own := reflect.TypeFor[*cache.Store]()
	for _, name := range wrapped {
		m, ok := own.MethodByName(name)
		if !ok {
			t.Errorf("%s: not a method", name)
			continue
		}
		// A promoted method's wrapper is generated code with no file of ours.
		if f := runtimeFile(m); f != "cache.go" {
			t.Errorf("%s is listed as wrapped but is promoted from the inner store (%s)", name, f)
		}
	}
}

// A fill that read the store before an invalidation is not cached after
// it: a reader racing a writer never leaves the old value behind.
func TestFillRacingInvalidationIsDropped(t *testing.T) {
	inner := &slowStore{Store: openSQLite(t), reading: make(chan struct{}), release: make(chan struct{})}
	ctx := t.Context()
	f := seed(t, inner.Store)
	c := cache.New(ctx, inner, cache.Options{})
	scope := command.Scope{ApplicationID: f.App, GuildID: f.Guild}
	inner.slow.Store(true)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // reads the empty list, slowly
		defer wg.Done()
		if _, err := c.RawCommands(ctx, scope); err != nil {
			t.Error(err)
		}
	}()
	<-inner.reading
	inner.slow.Store(false)
	if _, err := c.WriteCommands(ctx, scope, 0, f.upsert(t, "ping")); err != nil {
		t.Fatal(err)
	}
	close(inner.release)
	wg.Wait()
	raw, err := c.RawCommands(ctx, scope)
	if err != nil || len(raw) != 1 {
		t.Fatalf("after the write: %d commands, %v; want the written one", len(raw), err)
	}
}

// slowStore holds its first RawCommands after reading until released.
type slowStore struct {
	store.Store
	slow             atomic.Bool
	reading, release chan struct{}
}

func (s *slowStore) RawCommands(ctx context.Context, scope command.Scope) ([]store.RawCommand, error) {
	raw, err := s.Store.RawCommands(ctx, scope)
	if s.slow.Load() {
		close(s.reading)
		<-s.release
	}
	return raw, err
}

// A deleted guild, a revoked token, a changed app and a removed
// installation are never served from the cache.
func TestInvalidations(t *testing.T) {
	inner := openSQLite(t)
	ctx := t.Context()
	f := seed(t, inner)
	c := cache.New(ctx, inner, cache.Options{})
	// Warm everything.
	for _, h := range [][]byte{f.TokenHash, f.UserTokenHash} {
		if _, err := c.TokenByHash(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	for _, warm := range []func() error{
		func() error { _, err := c.Application(ctx, f.App); return err },
		func() error { _, err := c.Guild(ctx, f.Guild); return err },
		func() error { _, err := c.Installation(ctx, f.Guild, f.App); return err },
	} {
		if err := warm(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetInteractionsEndpoint(ctx, f.App, "https://example.com/i"); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Application(ctx, f.App); a.InteractionsEndpointURL != "https://example.com/i" {
		t.Errorf("application after the endpoint changed: %q", a.InteractionsEndpointURL)
	}
	if err := c.Uninstall(ctx, f.Guild, f.App); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Installation(ctx, f.Guild, f.App); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("installation after uninstall: %v, want not found", err)
	}
	if err := c.DeleteGuild(ctx, f.Guild); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Guild(ctx, f.Guild); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("guild after delete: %v, want not found", err)
	}
	if err := c.DeleteUser(ctx, f.User); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TokenByHash(ctx, f.UserTokenHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("token after its user was deleted: %v, want not found", err)
	}
}

// Two nodes on one store and one bus: a write acknowledged through one
// is never read stale through the other, however the bus delays it.
func TestSharedNeverStale(t *testing.T) {
	inner := openSQLite(t)
	ctx := t.Context()
	f := seed(t, inner)
	bus := newDelayBus(t)
	a := cache.New(ctx, inner, cache.Options{Bus: bus, Shared: true})
	b := cache.New(ctx, inner, cache.Options{Bus: bus, Shared: true})
	scope := command.Scope{ApplicationID: f.App, GuildID: f.Guild}
	for i := range 20 {
		if _, err := b.RawCommands(ctx, scope); err != nil { // warm b
			t.Fatal(err)
		}
		if _, err := a.WriteCommands(ctx, scope, 0, f.upsert(t, "cmd"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
		raw, err := b.RawCommands(ctx, scope)
		if err != nil || len(raw) != i+1 {
			t.Fatalf("write %d: node b reads %d commands (%v), want %d", i, len(raw), err, i+1)
		}
	}
}

// A subscriber that lost an invalidation to a full buffer (the bus marks
// the next event it gets AfterGap) empties its cache: the write whose
// invalidation was lost is not read stale once the read's marker is back.
func TestSharedLostInvalidationEmptiesTheCache(t *testing.T) {
	inner := openSQLite(t)
	ctx := t.Context()
	f := seed(t, inner)
	shared := event.NewMemory()
	lossy := &lossyBus{Memory: shared}
	a := cache.New(ctx, inner, cache.Options{Bus: shared, Shared: true})
	var gaps atomic.Int32
	b := cache.New(ctx, inner, cache.Options{Bus: lossy, Shared: true, OnGap: func() { gaps.Add(1) }})
	scope := command.Scope{ApplicationID: f.App, GuildID: f.Guild}
	for i := range 5 {
		if _, err := b.RawCommands(ctx, scope); err != nil { // warm b
			t.Fatal(err)
		}
		lossy.loseInvalidations.Store(1)
		if _, err := a.WriteCommands(ctx, scope, 0, f.upsert(t, "cmd"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
		raw, err := b.RawCommands(ctx, scope)
		if err != nil || len(raw) != i+1 {
			t.Fatalf("write %d, its invalidation lost: node b reads %d commands (%v), want %d", i, len(raw), err, i+1)
		}
		if n := lossy.lost.Load(); n != int32(i+1) {
			t.Fatalf("the bus lost %d invalidations, want %d: the test lost nothing", n, i+1)
		}
		if n := gaps.Load(); n != int32(i+1) {
			t.Fatalf("OnGap called %d times after %d gaps", n, i+1)
		}
	}
}

// lossyBus is a Memory bus whose subscriptions lose the next
// loseInvalidations cache invalidations, as a full subscriber buffer
// would, and mark the next event they pass on AfterGap.
type lossyBus struct {
	*event.Memory
	loseInvalidations atomic.Int32
	lost              atomic.Int32
}

func (l *lossyBus) Subscribe(ctx context.Context, buffer int) <-chan event.Event {
	in := l.Memory.Subscribe(ctx, buffer)
	out := make(chan event.Event, buffer)
	go func() {
		defer close(out)
		gap := false
		for e := range in {
			if e.Type == cache.EventInvalidate && l.loseInvalidations.Load() > 0 {
				l.loseInvalidations.Add(-1)
				l.lost.Add(1)
				gap = true
				continue
			}
			e.AfterGap = e.AfterGap || gap
			gap = false
			out <- e
		}
	}()
	return out
}

// delayBus delivers every event late, in order, as a networked bus may;
// Flush waits until what was published before it is delivered.
type delayBus struct {
	*event.Memory
	queue chan delayed
}

type delayed struct {
	e       event.Event
	flushed chan struct{} // a Flush marker when non-nil
}

func newDelayBus(t *testing.T) *delayBus {
	d := &delayBus{Memory: event.NewMemory(), queue: make(chan delayed, 1024)}
	go func() {
		for {
			select {
			case x := <-d.queue:
				if x.flushed != nil {
					close(x.flushed)
					continue
				}
				time.Sleep(time.Millisecond) // the network
				d.Memory.Publish(context.Background(), x.e)
			case <-t.Context().Done():
				return
			}
		}
	}()
	return d
}

func (d *delayBus) Publish(_ context.Context, e event.Event) { d.queue <- delayed{e: e} }

// Flush: the server has the events (here: they were handed to the
// subscribers' channels), not that subscribers processed them.
func (d *delayBus) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	d.queue <- delayed{flushed: ch}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fixture: an app with its bot and bot token, installed in a guild.
type fixture struct {
	App, Guild, Bot snowflake.ID
	TokenHash       []byte
	// User has a Bearer token (UserTokenHash) for the app.
	User          snowflake.ID
	UserTokenHash []byte
	ids           *snowflake.Generator
}

func seed(t *testing.T, st store.Store) *fixture {
	t.Helper()
	ctx := t.Context()
	f := &fixture{App: 100, Guild: 200, Bot: 100, TokenHash: []byte("hash-of-the-bot-token"),
		User: 300, UserTokenHash: []byte("hash-of-a-bearer-token"),
		ids: snowflake.NewGenerator(1, nil)}
	now := time.Now()
	steps := []error{
		st.CreateUser(ctx, store.User{ID: 1, Username: "owner", CreatedAt: now}),
		st.CreateApplication(ctx, store.Application{ID: f.App, Name: "app", OwnerID: 1, PublicKey: "00",
			PrivateKey: []byte{1}, ClientSecretHash: []byte{2}, CreatedAt: now}, store.User{ID: f.Bot, Username: "bot", Bot: true, CreatedAt: now}),
		st.CreateGuild(ctx, store.Guild{ID: f.Guild, Name: "guild", OwnerID: 1, CreatedAt: now}),
		st.Install(ctx, store.Installation{GuildID: f.Guild, ApplicationID: f.App, Scopes: []string{"bot"}, CreatedAt: now}),
		st.CreateToken(ctx, store.Token{Hash: f.TokenHash, Kind: store.TokenBot, ApplicationID: f.App, UserID: f.Bot,
			CreatedAt: now}),
		st.CreateUser(ctx, store.User{ID: f.User, Username: "user", CreatedAt: now}),
		st.CreateToken(ctx, store.Token{Hash: f.UserTokenHash, Kind: store.TokenBearer, ApplicationID: f.App,
			UserID: f.User, Scopes: []string{"identify"}, CreatedAt: now}),
	}
	for _, err := range steps {
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// upsert is a write plan creating (or replacing) the command name.
func (f *fixture) upsert(t *testing.T, name string) store.PlanFunc {
	t.Helper()
	v, err := form.DecodeJSON([]byte(`{"name":"` + name + `","description":"d"}`))
	if err != nil {
		t.Fatal(err)
	}
	scope := command.Scope{ApplicationID: f.App, GuildID: f.Guild}
	in, errs := command.Parse(v, command.Target{App: command.App{ID: f.App}, Scope: scope, Mode: command.ModeCreate})
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	return func(cur []command.Command, today int) (command.Plan, error) {
		return command.Upsert(cur, in, today, f.ids.Next)
	}
}

// runtimeFile is the base name of the file that defines m.
func runtimeFile(m reflect.Method) string {
	fn := runtime.FuncForPC(m.Func.Pointer())
	if fn == nil {
		return ""
	}
	file, _ := fn.FileLine(fn.Entry())
	return filepath.Base(file)
}
