// Package cache keeps the store's hottest reads in memory: the token
// behind an Authorization header (and a client token's user),
// applications, guilds, installations, a scope's stored commands and
// the world an invocation reads (a guild's snapshot, members, users,
// channels, users' installed apps, an app's permission lists in a
// guild). It wraps a store.Store; every write
// made through the wrapper invalidates exactly what it changed before it
// returns, so a node never reads its own writes stale.
//
// Several nodes on one store (a cluster) must see each other's writes
// too. A writer publishes its invalidation on the event bus and flushes
// it to the bus's server before the write returns (before the API
// acknowledges it); in Shared mode a read first waits for a barrier: a
// marker the node publishes on the bus and waits to receive back. The
// bus delivers one subscription's messages in the order its server
// received them, so once the marker is back every invalidation
// acknowledged before the read began has been applied. Concurrent reads
// share a marker. If the marker does not come back in time (the bus is
// down or dropped messages) the cache is emptied and the read goes to
// the store. A subscription that lost events to its full buffer gets the
// next event marked AfterGap, and the cache is emptied before that event
// (a marker, perhaps) is applied.
//
// A fill that raced an invalidation is not kept: every invalidation
// bumps a generation, and a value read from the store is cached only if
// the generation did not move while it was read. Not-found results are
// never cached, so a row created elsewhere (the CLI writes to a running
// server's SQLite store) is seen at once. Memory is bounded: each map
// holds at most a fixed number of entries, the commands at most a
// number of bytes; when one fills, its older half is dropped.
//
// The world's maps hold lists (a guild's roles and channels, a user's
// installed apps), which a row another process creates changes: never
// caching a not-found is not enough there. So the world is cached only
// with Options.WorldClock (SQLite, whose data directory the CLI writes
// beside a running server): a request's first world read compares the
// store's world version, which every process's world write moves, with
// the one the maps were filled under, and empties them when it moved.
// Within a request (SyncWorld) the clock is not read again: the
// wrapper's own invalidations keep those reads exact, as they keep the
// other nodes' in Shared mode.
package cache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Event types on the bus.
const (
	// EventInvalidate carries an Invalidation from the node that wrote.
	EventInvalidate = "CACHE_INVALIDATE"
	// EventBarrier is a node's marker to itself (see Store).
	EventBarrier = "CACHE_BARRIER"
)

// Options configure a Store.
type Options struct {
	// Bus carries invalidations between nodes (Shared only).
	Bus event.Bus
	// Shared: other nodes write the same store and publish their
	// invalidations on Bus; reads wait for a barrier.
	Shared bool
	// Entries bounds each of the token, application, guild and
	// installation maps; CommandBytes the stored commands' bodies.
	Entries      int
	CommandBytes int
	// BarrierTimeout is how long a read waits for its marker before it
	// empties the cache and reads the store (default 2 s).
	BarrierTimeout time.Duration
	Logger         *slog.Logger
	// OnGap is called when the bus subscription lost events to its full
	// buffer and the cache emptied itself (nil: only logged).
	OnGap func()
	// WorldClock reads the store's world version (see
	// sqlstore.Store.WorldClock): when set, the world's maps are emptied
	// whenever it moved since they were filled, so that another
	// process's world writes are seen by the next request.
	WorldClock func(context.Context) (int64, error)
}

// Defaults: 100,000 entries per map and 64 MiB of commands.
const (
	DefaultEntries      = 100_000
	DefaultCommandBytes = 64 << 20
)

// Invalidation says what a write changed. All* flags drop every entry of
// a map (writes that change many rows at once, all rare).
type Invalidation struct {
	Node          string         `json:"node"`
	AllTokens     bool           `json:"all_tokens,omitempty"`
	Apps          []snowflake.ID `json:"apps,omitempty"`
	Guilds        []snowflake.ID `json:"guilds,omitempty"` // the guild, its installations and its commands
	Installations []instKey      `json:"installations,omitempty"`
	Scopes        []scopeKey     `json:"scopes,omitempty"`
	All           bool           `json:"all,omitempty"`

	// The world's maps. Guilds above also drop their snapshots.
	Snapshots    []snowflake.ID `json:"snapshots,omitempty"` // a guild's roles, channels or installations changed
	Members      []memberKey    `json:"members,omitempty"`
	Users        []snowflake.ID `json:"users,omitempty"`
	Channels     []snowflake.ID `json:"channels,omitempty"`
	UserInstalls []snowflake.ID `json:"user_installs,omitempty"` // a user's installed apps
	Permissions  []scopeKey     `json:"permissions,omitempty"`   // an app's lists in a guild; guild 0: in every guild
	// GuildWorld: everything of these guilds (snapshot, members,
	// channels, permission lists), for the rare writes that change
	// many of their rows (a role or a channel deleted).
	GuildWorld []snowflake.ID `json:"guild_world,omitempty"`
	World      bool           `json:"world,omitempty"` // every world entry (and client tokens)
}

type memberKey struct {
	Guild snowflake.ID `json:"g"`
	User  snowflake.ID `json:"u"`
}

type instKey struct {
	Guild snowflake.ID `json:"g"`
	App   snowflake.ID `json:"a"`
}

type scopeKey struct {
	App   snowflake.ID `json:"a"`
	Guild snowflake.ID `json:"g"`
}

type barrierMsg struct {
	Node string `json:"node"`
	Seq  uint64 `json:"seq"`
}

// commands is a scope's cached list with the version this fill got.
type commands struct {
	raw     []store.RawCommand
	version uint64
}

// Store is a caching store.Store.
type Store struct {
	store.Store
	opt  Options
	node string
	log  *slog.Logger

	mu     sync.Mutex
	gen    uint64 // bumped by every invalidation
	tokens *bounded[string, store.Token]
	apps   *bounded[snowflake.ID, store.Application]
	guilds *bounded[snowflake.ID, store.Guild]
	insts  *bounded[instKey, store.Installation]
	cmds   *bounded[scopeKey, commands]
	fills  atomic.Uint64 // numbers fills: command lists' versions, the view's stamps

	// The world an invocation reads.
	// A member's view of a guild (its snapshot, member count, the user
	// and the membership) is stamped with its fill: see MemberViewStamp.
	clientTokens *bounded[string, snowflake.ID]
	snaps        *bounded[snowflake.ID, stamped[*guildSnap]]
	members      *bounded[memberKey, stamped[guild.Member]]
	memberCounts *bounded[snowflake.ID, stamped[int]] // by guild: GUILD_CREATE's member_count
	users        *bounded[snowflake.ID, stamped[store.User]]
	channels     *bounded[snowflake.ID, guild.Channel]
	userInsts    *bounded[snowflake.ID, []store.UserInstallation]
	perms        *bounded[scopeKey, []command.GuildPermissions]
	worldVersion int64 // the world clock's value the world maps were filled under
	worldKnown   bool

	suspended atomic.Bool
	barrier   barrier
}

// New wraps st. In Shared mode it subscribes to the bus until ctx ends;
// the subscription exists when New returns.
func New(ctx context.Context, st store.Store, o Options) *Store {
	if o.Entries <= 0 {
		o.Entries = DefaultEntries
	}
	if o.CommandBytes <= 0 {
		o.CommandBytes = DefaultCommandBytes
	}
	if o.BarrierTimeout <= 0 {
		o.BarrierTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	s := &Store{
		Store: st, opt: o, node: hex.EncodeToString(id[:]), log: o.Logger,
		tokens: newBounded[string, store.Token](o.Entries, nil),
		apps:   newBounded[snowflake.ID, store.Application](o.Entries, nil),
		guilds: newBounded[snowflake.ID, store.Guild](o.Entries, nil),
		insts:  newBounded[instKey, store.Installation](o.Entries, nil),
		cmds: newBounded[scopeKey, commands](o.CommandBytes, func(c commands) int {
			n := 64
			for _, rc := range c.raw {
				n += len(rc.Body) + 48
			}
			return n
		}),
		clientTokens: newBounded[string, snowflake.ID](o.Entries, nil),
		snaps:        newBounded[snowflake.ID, stamped[*guildSnap]](o.Entries, nil),
		members:      newBounded[memberKey, stamped[guild.Member]](o.Entries, nil),
		memberCounts: newBounded[snowflake.ID, stamped[int]](o.Entries, nil),
		users:        newBounded[snowflake.ID, stamped[store.User]](o.Entries, nil),
		channels:     newBounded[snowflake.ID, guild.Channel](o.Entries, nil),
		userInsts:    newBounded[snowflake.ID, []store.UserInstallation](o.Entries, nil),
		perms:        newBounded[scopeKey, []command.GuildPermissions](o.Entries, nil),
	}
	s.barrier.waiting = map[uint64]chan struct{}{}
	if o.Shared && o.Bus != nil {
		go s.listen(ctx, o.Bus.Subscribe(ctx, 8192))
	}
	return s
}

// Suspend makes reads bypass the cache (the bus is disconnected: other
// nodes' invalidations may be lost); Resume empties it and uses it
// again.
func (s *Store) Suspend() { s.suspended.Store(true) }

// Resume: see Suspend.
func (s *Store) Resume() {
	s.apply(Invalidation{All: true})
	s.suspended.Store(false)
}

// ---- reads ----

// syncKey marks a context whose barrier was passed (or failed) by Sync.
type syncKey struct{ s *Store }

// Sync passes a barrier once for all the reads made with the returned
// context (a request's): each then sees every write acknowledged, on
// any node, before Sync was called. It does nothing unless Shared.
func (s *Store) Sync(ctx context.Context) context.Context {
	if !s.opt.Shared {
		return ctx
	}
	return context.WithValue(ctx, syncKey{s}, s.opt.Bus != nil && s.sync(ctx))
}

// ready says whether a read may use the cache: not suspended and, when
// shared, past a barrier (its context's, or its own).
func (s *Store) ready(ctx context.Context) bool {
	if s.suspended.Load() {
		return false
	}
	if !s.opt.Shared {
		return true
	}
	passed, synced := ctx.Value(syncKey{s}).(bool)
	if !synced {
		passed = s.opt.Bus != nil && s.sync(ctx)
	}
	return passed && !s.suspended.Load()
}

// worldKey marks a context whose world clock was checked by SyncWorld.
type worldKey struct{ s *Store }

// SyncWorld checks the world clock once for all the world reads made
// with the returned context (a request's): each then sees every world
// write any process committed before SyncWorld was called. Without a
// clock it does nothing.
func (s *Store) SyncWorld(ctx context.Context) context.Context {
	if s.opt.WorldClock == nil {
		return ctx
	}
	return context.WithValue(ctx, worldKey{s}, s.checkWorld(ctx))
}

// worldReady says whether a world read may use the cache: as ready
// says, and past a check of the world clock (its context's, or its own).
// Without a clock the world is not cached: another process's new role
// or channel would change a cached list, and nothing would say so.
func (s *Store) worldReady(ctx context.Context) bool {
	if s.opt.WorldClock == nil || !s.ready(ctx) {
		return false
	}
	if passed, checked := ctx.Value(worldKey{s}).(bool); checked {
		return passed
	}
	return s.checkWorld(ctx)
}

// checkWorld reads the world clock and empties the world's maps when it
// moved since they were filled; false when it cannot be read.
func (s *Store) checkWorld(ctx context.Context) bool {
	v, err := s.opt.WorldClock(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// The caller went away (a request cut off, a shutdown): not a
			// store fault, and nothing read uses the answer.
			return false
		}
		s.log.Warn("cache: read the world clock: reading the store", "err", err)
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.worldKnown || v != s.worldVersion {
		s.gen++
		s.clearWorld()
		s.worldVersion, s.worldKnown = v, true
	}
	return true
}

// read serves k from m or fills it with load.
func read[K comparable, V any](ctx context.Context, s *Store, m *bounded[K, V], k K, load func() (V, error)) (V, error) {
	v, _, err := readIf(s.ready(ctx), s, m, k, load)
	return v, err
}

// readWorld is read for the world's maps.
func readWorld[K comparable, V any](ctx context.Context, s *Store, m *bounded[K, V], k K, load func() (V, error)) (V, error) {
	v, _, err := readIf(s.worldReady(ctx), s, m, k, load)
	return v, err
}

// readIf serves k from m or fills it with load when ready, and says
// whether the value it returns is the one m holds (a hit, or a fill it
// kept).
func readIf[K comparable, V any](ready bool, s *Store, m *bounded[K, V], k K, load func() (V, error)) (V, bool, error) {
	if !ready {
		v, err := load()
		return v, false, err
	}
	s.mu.Lock()
	v, ok := m.get(k)
	gen := s.gen
	s.mu.Unlock()
	if ok {
		return v, true, nil
	}
	v, err := load()
	if err != nil {
		return v, false, err
	}
	s.mu.Lock()
	kept := s.gen == gen
	if kept {
		m.put(k, v)
	}
	s.mu.Unlock()
	return v, kept, nil
}

// stamped is a cached value with the number of the fill that read it.
// Fill numbers are never reused, and an entry is only ever dropped or
// kept as it is (a later fill is a new entry with a new number): while
// an entry holds the stamp a reader saw, it holds the very value that
// reader saw.
type stamped[V any] struct {
	v     V
	stamp uint64
}

// readStamped is readWorld for a stamped map: the value with its stamp,
// 0 when the value is not the one the map holds (the cache is not in use
// for this read, or an invalidation raced the fill), so that nothing
// made from it can be vouched for by the cache.
func readStamped[K comparable, V any](ctx context.Context, s *Store, m *bounded[K, stamped[V]], k K,
	load func() (V, error)) (V, uint64, error) {
	e, held, err := readIf(s.worldReady(ctx), s, m, k, func() (stamped[V], error) {
		v, err := load()
		return stamped[V]{v: v, stamp: s.fills.Add(1)}, err
	})
	if !held {
		e.stamp = 0
	}
	return e.v, e.stamp, err
}

func (s *Store) TokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	t, err := read(ctx, s, s.tokens, string(hash), func() (store.Token, error) { return s.Store.TokenByHash(ctx, hash) })
	t.Hash, t.Scopes = slices.Clone(t.Hash), slices.Clone(t.Scopes)
	return t, err
}

func (s *Store) Application(ctx context.Context, id snowflake.ID) (store.Application, error) {
	a, err := read(ctx, s, s.apps, id, func() (store.Application, error) { return s.Store.Application(ctx, id) })
	a.IntegrationTypes = slices.Clone(a.IntegrationTypes)
	return a, err
}

func (s *Store) Guild(ctx context.Context, id snowflake.ID) (store.Guild, error) {
	return read(ctx, s, s.guilds, id, func() (store.Guild, error) { return s.Store.Guild(ctx, id) })
}

func (s *Store) Installation(ctx context.Context, guildID, appID snowflake.ID) (store.Installation, error) {
	i, err := read(ctx, s, s.insts, instKey{guildID, appID}, func() (store.Installation, error) {
		return s.Store.Installation(ctx, guildID, appID)
	})
	i.Scopes = slices.Clone(i.Scopes)
	return i, err
}

// RawCommands returns the scope's stored commands; the slice and the
// bodies are shared: callers must not change them.
func (s *Store) RawCommands(ctx context.Context, scope command.Scope) ([]store.RawCommand, error) {
	raw, _, err := s.VersionedCommands(ctx, scope)
	return raw, err
}

// VersionedCommands is RawCommands with the version of the cached list:
// it changes whenever the list may have changed (every write of the
// scope), so a rendering of the list can be cached under it. Version 0:
// the list did not come from the cache and must not be cached.
func (s *Store) VersionedCommands(ctx context.Context, scope command.Scope) ([]store.RawCommand, uint64, error) {
	// Every fill gets a version of its own, so a rendering cached under
	// it is never served for another fill's list (and one made from a
	// fill a racing invalidation kept out of the cache is never served
	// at all).
	c, err := read(ctx, s, s.cmds, scopeKey{scope.ApplicationID, scope.GuildID}, func() (commands, error) {
		raw, err := s.Store.RawCommands(ctx, scope)
		return commands{raw: raw, version: s.fills.Add(1)}, err
	})
	return c.raw, c.version, err
}

// ---- the world an invocation reads: every value is the caller's own
// copy, as the store's are ----

func (s *Store) ClientTokenUser(ctx context.Context, hash []byte) (snowflake.ID, error) {
	return readWorld(ctx, s, s.clientTokens, string(hash), func() (snowflake.ID, error) {
		return s.Store.ClientTokenUser(ctx, hash)
	})
}

func (s *Store) Snapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, error) {
	snap, _, err := s.StampedSnapshot(ctx, guildID)
	return snap, err
}

// StampedSnapshot is Snapshot with the stamp of the cached value (see
// MemberViewStamp); 0: not the cache's. The snapshot is the caller's: a
// copy of the cached one.
func (s *Store) StampedSnapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, uint64, error) {
	g, stamp, err := s.stampedGuildSnap(ctx, guildID)
	if err != nil {
		return store.Snapshot{}, 0, err
	}
	snap := g.snap
	snap.Roles = slices.Clone(snap.Roles)
	snap.Channels = slices.Clone(snap.Channels)
	for i := range snap.Channels {
		snap.Channels[i].Overwrites = slices.Clone(snap.Channels[i].Overwrites)
	}
	snap.Installations = slices.Clone(snap.Installations)
	for i := range snap.Installations {
		snap.Installations[i].Scopes = slices.Clone(snap.Installations[i].Scopes)
	}
	return snap, stamp, nil
}

func (s *Store) Member(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, error) {
	m, _, err := s.StampedMember(ctx, guildID, userID)
	return m, err
}

// StampedMember is Member with its stamp (see MemberViewStamp).
func (s *Store) StampedMember(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, uint64, error) {
	m, stamp, err := readStamped(ctx, s, s.members, memberKey{guildID, userID}, func() (guild.Member, error) {
		return s.Store.Member(ctx, guildID, userID)
	})
	m.Roles = slices.Clone(m.Roles)
	return m, stamp, err
}

// MemberCount is cached with the members: every write that adds or
// removes one names it (Invalidation.Members), and so drops its guild's
// count. An identify renders thousands of GUILD_CREATEs, each with one.
func (s *Store) MemberCount(ctx context.Context, guildID snowflake.ID) (int, error) {
	n, _, err := s.StampedMemberCount(ctx, guildID)
	return n, err
}

// StampedMemberCount is MemberCount with its stamp (see MemberViewStamp).
func (s *Store) StampedMemberCount(ctx context.Context, guildID snowflake.ID) (int, uint64, error) {
	return readStamped(ctx, s, s.memberCounts, guildID, func() (int, error) { return s.Store.MemberCount(ctx, guildID) })
}

func (s *Store) User(ctx context.Context, id snowflake.ID) (store.User, error) {
	u, _, err := s.StampedUser(ctx, id)
	return u, err
}

// StampedUser is User with its stamp (see MemberViewStamp).
func (s *Store) StampedUser(ctx context.Context, id snowflake.ID) (store.User, uint64, error) {
	return readStamped(ctx, s, s.users, id, func() (store.User, error) { return s.Store.User(ctx, id) })
}

// MemberViewStamp names the cached fills of one member's view of a
// guild: the guild's snapshot and member count, the user and their
// membership. Something made from values read with these stamps (the
// Stamped reads) is made from the same values as long as the cache
// holds the same stamps: the stamps stand for the values, and the
// cache's own invalidations (this node's writes, the other nodes' over
// the bus, the world clock) keep them exact.
type MemberViewStamp struct {
	Snapshot, MemberCount, User, Member uint64
}

// Complete says whether every stamp is the cache's (none is 0).
func (v MemberViewStamp) Complete() bool {
	return v.Snapshot != 0 && v.MemberCount != 0 && v.User != 0 && v.Member != 0
}

// MemberViewStamp returns the stamps the cache holds now for user
// userID's view of guild guildID, without copying or reading anything;
// false unless the cache may serve the world to ctx and holds all four.
func (s *Store) MemberViewStamp(ctx context.Context, guildID, userID snowflake.ID) (MemberViewStamp, bool) {
	if !s.worldReady(ctx) {
		return MemberViewStamp{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, okSnap := s.snaps.get(guildID)
	count, okCount := s.memberCounts.get(guildID)
	u, okUser := s.users.get(userID)
	m, okMember := s.members.get(memberKey{guildID, userID})
	v := MemberViewStamp{Snapshot: snap.stamp, MemberCount: count.stamp, User: u.stamp, Member: m.stamp}
	return v, okSnap && okCount && okUser && okMember
}

func (s *Store) Channel(ctx context.Context, id snowflake.ID) (guild.Channel, error) {
	c, err := readWorld(ctx, s, s.channels, id, func() (guild.Channel, error) { return s.Store.Channel(ctx, id) })
	c.Overwrites = slices.Clone(c.Overwrites)
	return c, err
}

func (s *Store) UserInstallations(ctx context.Context, userID snowflake.ID) ([]store.UserInstallation, error) {
	ins, err := readWorld(ctx, s, s.userInsts, userID, func() ([]store.UserInstallation, error) {
		return s.Store.UserInstallations(ctx, userID)
	})
	ins = slices.Clone(ins)
	for i := range ins {
		ins[i].Scopes = slices.Clone(ins[i].Scopes)
	}
	return ins, err
}

func (s *Store) GuildPermissions(ctx context.Context, appID, guildID snowflake.ID) ([]command.GuildPermissions, error) {
	lists, err := readWorld(ctx, s, s.perms, scopeKey{appID, guildID}, func() ([]command.GuildPermissions, error) {
		return s.Store.GuildPermissions(ctx, appID, guildID)
	})
	lists = slices.Clone(lists)
	for i := range lists {
		lists[i].Permissions = slices.Clone(lists[i].Permissions)
	}
	return lists, err
}

// ---- writes: each invalidates what it changed, after it ran ----

func (s *Store) after(ctx context.Context, inv Invalidation) {
	s.apply(inv)
	if !s.opt.Shared || s.opt.Bus == nil {
		return
	}
	inv.Node = s.node
	s.opt.Bus.Publish(ctx, event.Event{Type: EventInvalidate, Data: inv})
	if f, ok := s.opt.Bus.(interface{ Flush(context.Context) error }); ok {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opt.BarrierTimeout)
		defer cancel()
		if err := f.Flush(fctx); err != nil {
			s.log.Warn("cache: flush an invalidation to the bus", "err", err)
		}
	}
}

func (s *Store) apply(inv Invalidation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if inv.All {
		s.tokens.clear()
		s.apps.clear()
		s.guilds.clear()
		s.insts.clear()
		s.cmds.clear()
		s.clearWorld()
		return
	}
	if inv.AllTokens {
		s.tokens.clear()
	}
	if inv.World {
		s.clearWorld()
	}
	for _, g := range inv.Snapshots {
		s.snaps.remove(g)
	}
	for _, k := range inv.Members {
		s.members.remove(k)
		s.memberCounts.remove(k.Guild) // a member added or removed
	}
	for _, id := range inv.Users {
		s.users.remove(id)
	}
	for _, id := range inv.Channels {
		s.channels.remove(id)
	}
	for _, id := range inv.UserInstalls {
		s.userInsts.remove(id)
	}
	for _, k := range inv.Permissions {
		if k.Guild == 0 { // a global write: the app's lists in every guild
			s.perms.removeIf(func(p scopeKey, _ []command.GuildPermissions) bool { return p.App == k.App })
		} else {
			s.perms.remove(k)
		}
	}
	for _, g := range inv.GuildWorld {
		s.snaps.remove(g)
		s.members.removeIf(func(k memberKey, _ stamped[guild.Member]) bool { return k.Guild == g })
		s.memberCounts.remove(g)
		s.channels.removeIf(func(_ snowflake.ID, c guild.Channel) bool { return c.GuildID == g })
		s.perms.removeIf(func(k scopeKey, _ []command.GuildPermissions) bool { return k.Guild == g })
	}
	for _, id := range inv.Apps {
		s.apps.remove(id)
	}
	for _, k := range inv.Installations {
		s.insts.remove(k)
	}
	for _, k := range inv.Scopes {
		s.cmds.remove(k)
	}
	for _, g := range inv.Guilds {
		s.guilds.remove(g)
		s.snaps.remove(g)
		s.insts.removeIf(func(k instKey, _ store.Installation) bool { return k.Guild == g })
		s.cmds.removeIf(func(k scopeKey, _ commands) bool { return k.Guild == g })
	}
}

// clearWorld empties the world's maps. Callers hold s.mu.
func (s *Store) clearWorld() {
	s.clientTokens.clear()
	s.snaps.clear()
	s.members.clear()
	s.memberCounts.clear()
	s.users.clear()
	s.channels.clear()
	s.userInsts.clear()
	s.perms.clear()
}

func (s *Store) WriteCommands(ctx context.Context, scope command.Scope, day int64, plan store.PlanFunc) (command.Plan, error) {
	p, err := s.Store.WriteCommands(ctx, scope, day, plan)
	if err == nil && len(p.Put) == 0 && len(p.Delete) == 0 {
		return p, nil // nothing written
	}
	// A deleted command's permission lists go with it (for a global
	// command, in every guild).
	k := scopeKey{scope.ApplicationID, scope.GuildID}
	s.after(ctx, Invalidation{Scopes: []scopeKey{k}, Permissions: []scopeKey{k}})
	return p, err
}

func (s *Store) SetCommandPermissions(ctx context.Context, appID, guildID, commandID snowflake.ID,
	fn store.PermissionsFunc) (command.GuildPermissions, error) {
	p, err := s.Store.SetCommandPermissions(ctx, appID, guildID, commandID, fn)
	s.after(ctx, Invalidation{Permissions: []scopeKey{{appID, guildID}}})
	return p, err
}

func (s *Store) CreateGuild(ctx context.Context, g store.Guild) error {
	err := s.Store.CreateGuild(ctx, g)
	s.after(ctx, Invalidation{Guilds: []snowflake.ID{g.ID}, Members: []memberKey{{g.ID, g.OwnerID}}})
	return err
}

func (s *Store) UpdateGuild(ctx context.Context, g store.Guild) error {
	err := s.Store.UpdateGuild(ctx, g)
	s.after(ctx, Invalidation{Guilds: []snowflake.ID{g.ID}})
	return err
}

// DeleteGuild takes everything of the guild with it.
func (s *Store) DeleteGuild(ctx context.Context, id snowflake.ID) error {
	err := s.Store.DeleteGuild(ctx, id)
	s.after(ctx, Invalidation{Guilds: []snowflake.ID{id}, World: true})
	return err
}

func (s *Store) Install(ctx context.Context, inst store.Installation) error {
	err := s.Store.Install(ctx, inst)
	s.after(ctx, Invalidation{Installations: []instKey{{inst.GuildID, inst.ApplicationID}},
		Snapshots: []snowflake.ID{inst.GuildID}})
	return err
}

func (s *Store) Uninstall(ctx context.Context, guildID, appID snowflake.ID) error {
	err := s.Store.Uninstall(ctx, guildID, appID)
	s.after(ctx, Invalidation{Installations: []instKey{{guildID, appID}}, Snapshots: []snowflake.ID{guildID}})
	return err
}

func (s *Store) UpdateUser(ctx context.Context, u store.User) error {
	err := s.Store.UpdateUser(ctx, u)
	s.after(ctx, Invalidation{Users: []snowflake.ID{u.ID}})
	return err
}

func (s *Store) CreateRole(ctx context.Context, r guild.Role) error {
	err := s.Store.CreateRole(ctx, r)
	s.after(ctx, Invalidation{Snapshots: []snowflake.ID{r.GuildID}})
	return err
}

func (s *Store) UpdateRole(ctx context.Context, r guild.Role) error {
	err := s.Store.UpdateRole(ctx, r)
	s.after(ctx, Invalidation{Snapshots: []snowflake.ID{r.GuildID}})
	return err
}

// DeleteRole also takes the role from the guild's members.
func (s *Store) DeleteRole(ctx context.Context, guildID, roleID snowflake.ID) error {
	err := s.Store.DeleteRole(ctx, guildID, roleID)
	s.after(ctx, Invalidation{GuildWorld: []snowflake.ID{guildID}})
	return err
}

func (s *Store) PutMember(ctx context.Context, m guild.Member) error {
	err := s.Store.PutMember(ctx, m)
	s.after(ctx, Invalidation{Members: []memberKey{{m.GuildID, m.UserID}}})
	return err
}

func (s *Store) DeleteMember(ctx context.Context, guildID, userID snowflake.ID) error {
	err := s.Store.DeleteMember(ctx, guildID, userID)
	s.after(ctx, Invalidation{Members: []memberKey{{guildID, userID}}})
	return err
}

func (s *Store) CreateChannel(ctx context.Context, c guild.Channel) error {
	err := s.Store.CreateChannel(ctx, c)
	s.after(ctx, Invalidation{Snapshots: []snowflake.ID{c.GuildID}, Channels: []snowflake.ID{c.ID}})
	return err
}

func (s *Store) UpdateChannel(ctx context.Context, c guild.Channel) error {
	err := s.Store.UpdateChannel(ctx, c)
	s.after(ctx, Invalidation{Snapshots: []snowflake.ID{c.GuildID}, Channels: []snowflake.ID{c.ID}})
	return err
}

// DeleteChannel also deletes its threads and orphans its children.
func (s *Store) DeleteChannel(ctx context.Context, guildID, channelID snowflake.ID) error {
	err := s.Store.DeleteChannel(ctx, guildID, channelID)
	s.after(ctx, Invalidation{GuildWorld: []snowflake.ID{guildID}, Channels: []snowflake.ID{channelID}})
	return err
}

func (s *Store) InstallForUser(ctx context.Context, in store.UserInstallation) error {
	err := s.Store.InstallForUser(ctx, in)
	s.after(ctx, Invalidation{UserInstalls: []snowflake.ID{in.UserID}})
	return err
}

func (s *Store) UninstallForUser(ctx context.Context, userID, appID snowflake.ID) error {
	err := s.Store.UninstallForUser(ctx, userID, appID)
	s.after(ctx, Invalidation{UserInstalls: []snowflake.ID{userID}})
	return err
}

func (s *Store) SetInteractionsEndpoint(ctx context.Context, appID snowflake.ID, url string) error {
	err := s.Store.SetInteractionsEndpoint(ctx, appID, url)
	s.after(ctx, Invalidation{Apps: []snowflake.ID{appID}})
	return err
}

func (s *Store) SetApplicationFlags(ctx context.Context, appID snowflake.ID, flags uint64) error {
	err := s.Store.SetApplicationFlags(ctx, appID, flags)
	s.after(ctx, Invalidation{Apps: []snowflake.ID{appID}})
	return err
}

func (s *Store) SetIntegrationTypes(ctx context.Context, appID snowflake.ID, types []int, params map[int]store.InstallParams) error {
	err := s.Store.SetIntegrationTypes(ctx, appID, types, params)
	s.after(ctx, Invalidation{Apps: []snowflake.ID{appID}})
	return err
}

func (s *Store) SetDiscoverable(ctx context.Context, appID snowflake.ID, on bool) error {
	err := s.Store.SetDiscoverable(ctx, appID, on)
	s.after(ctx, Invalidation{Apps: []snowflake.ID{appID}})
	return err
}

// DeleteUser also deletes the user's tokens (client tokens too) and
// memberships.
func (s *Store) DeleteUser(ctx context.Context, id snowflake.ID) error {
	err := s.Store.DeleteUser(ctx, id)
	s.after(ctx, Invalidation{AllTokens: true, World: true})
	return err
}

// RevokeGrant also deletes the grant's access tokens and the
// installations (in guilds and on accounts) it made.
func (s *Store) RevokeGrant(ctx context.Context, id snowflake.ID) error {
	err := s.Store.RevokeGrant(ctx, id)
	s.after(ctx, Invalidation{AllTokens: true, World: true})
	return err
}

// ---- the bus ----

func (s *Store) listen(ctx context.Context, events <-chan event.Event) {
	for e := range events {
		if e.AfterGap {
			// The subscription lost events to a full buffer: some of
			// them may have been invalidations. Empty the cache before
			// this event (a barrier marker) can vouch for it.
			s.log.Warn("cache: the bus lost events to a full subscriber buffer: emptying the cache")
			s.apply(Invalidation{All: true})
			if s.opt.OnGap != nil {
				s.opt.OnGap()
			}
		}
		switch e.Type {
		case EventInvalidate:
			var inv Invalidation
			if err := event.DecodeData(e.Data, &inv); err != nil {
				s.log.Error("cache: undecodable invalidation: emptying the cache", "err", err)
				inv = Invalidation{All: true}
			}
			if inv.Node != s.node {
				s.apply(inv)
			}
		case EventBarrier:
			var m barrierMsg
			if event.DecodeData(e.Data, &m) == nil && m.Node == s.node {
				s.arrived(m.Seq)
			}
		}
	}
	// The subscription ended (shutdown or a closed bus): never trust the
	// cache again.
	s.Suspend()
}

// barrier coalesces the markers of concurrent reads: a read joins the
// marker not yet published, since a marker published after the read
// began is all it needs. At most one marker is on its way at a time
// (the next is published when it arrives), so markers cost the bus at
// most one message per round trip however many reads wait.
type barrier struct {
	mu       sync.Mutex
	seq      uint64
	next     chan struct{} // the marker not yet published (nil: none)
	inflight bool
	waiting  map[uint64]chan struct{}
}

func (s *Store) arrived(seq uint64) {
	b := &s.barrier
	b.mu.Lock()
	defer b.mu.Unlock()
	for n, ch := range b.waiting {
		if n <= seq {
			close(ch)
			delete(b.waiting, n)
		}
	}
	b.inflight = false
	if b.next != nil {
		b.inflight = true
		go s.publishMarker()
	}
}

// sync waits for a marker published after it was called; false when it
// did not come back in time (then the cache was emptied).
func (s *Store) sync(ctx context.Context) bool {
	b := &s.barrier
	b.mu.Lock()
	if b.next == nil {
		b.next = make(chan struct{})
	}
	ch := b.next
	if !b.inflight {
		b.inflight = true
		go s.publishMarker()
	}
	b.mu.Unlock()
	t := time.NewTimer(s.opt.BarrierTimeout)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		s.log.Warn("cache: the bus did not return a marker in time: emptying the cache")
		s.apply(Invalidation{All: true})
		b.mu.Lock()
		b.inflight = false // lost: the next read publishes another
		b.mu.Unlock()
		return false
	}
}

func (s *Store) publishMarker() {
	b := &s.barrier
	b.mu.Lock()
	ch := b.next
	b.next = nil
	b.seq++
	seq := b.seq
	b.waiting[seq] = ch
	b.mu.Unlock()
	s.opt.Bus.Publish(context.Background(), event.Event{Type: EventBarrier, Data: barrierMsg{Node: s.node, Seq: seq}})
}

// ---- bounded maps ----

// bounded is a map with two generations: lookups check the current and
// the previous one (promoting hits); when the current one's cost
// reaches half the limit it becomes the previous one and the old
// previous one is dropped. Callers hold Store.mu.
type bounded[K comparable, V any] struct {
	limit     int
	cost      func(V) int // nil: 1 per entry
	cur, prev map[K]V
	curCost   int
}

func newBounded[K comparable, V any](limit int, cost func(V) int) *bounded[K, V] {
	return &bounded[K, V]{limit: limit, cost: cost, cur: map[K]V{}}
}

func (m *bounded[K, V]) get(k K) (V, bool) {
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	if v, ok := m.prev[k]; ok {
		delete(m.prev, k)
		m.put(k, v)
		return v, true
	}
	var zero V
	return zero, false
}

func (m *bounded[K, V]) put(k K, v V) {
	c := 1
	if m.cost != nil {
		c = m.cost(v)
	}
	if 2*c > m.limit {
		return // too big to keep
	}
	if old, ok := m.cur[k]; ok && m.cost != nil {
		m.curCost -= m.cost(old)
	} else if ok {
		m.curCost--
	}
	if m.curCost+c > m.limit/2 {
		m.prev, m.cur, m.curCost = m.cur, map[K]V{}, 0
	}
	delete(m.prev, k)
	m.cur[k] = v
	m.curCost += c
}

func (m *bounded[K, V]) remove(k K) {
	if old, ok := m.cur[k]; ok {
		if m.cost != nil {
			m.curCost -= m.cost(old)
		} else {
			m.curCost--
		}
		delete(m.cur, k)
	}
	delete(m.prev, k)
}

func (m *bounded[K, V]) removeIf(f func(K, V) bool) {
	for k, v := range m.cur {
		if f(k, v) {
			m.remove(k)
		}
	}
	for k, v := range m.prev {
		if f(k, v) {
			delete(m.prev, k)
		}
	}
}

func (m *bounded[K, V]) clear() {
	m.cur, m.prev, m.curCost = map[K]V{}, nil, 0
}

// ---- test worlds ----

// CreateWorld makes users, apps and guilds that no entry holds yet; the
// tokens it makes were never looked up, but a not-found is not cached,
// so nothing needs to go.
func (s *Store) CreateWorld(ctx context.Context, w store.TestWorld, plan store.WorldPlan) error {
	err := s.Store.CreateWorld(ctx, w, plan)
	s.after(ctx, Invalidation{World: true})
	return err
}

// DeleteWorld takes a world's users, apps (with their tokens and
// commands) and guilds with it: everything goes.
func (s *Store) DeleteWorld(ctx context.Context, id snowflake.ID) error {
	err := s.Store.DeleteWorld(ctx, id)
	s.after(ctx, Invalidation{All: true, AllTokens: true, World: true})
	return err
}

// ResetWorld rewrites every row of a world (same ids, same tokens).
func (s *Store) ResetWorld(ctx context.Context, w store.TestWorld, plan store.WorldPlan) error {
	err := s.Store.ResetWorld(ctx, w, plan)
	s.after(ctx, Invalidation{All: true, AllTokens: true, World: true})
	return err
}
