package cache

import (
	"context"
	"sync"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// GuildView is a guild's snapshot with its roles and channels by id, as
// deciding a member's access reads them. The cache's (SharedGuildView)
// is built once per fill of the snapshot and shared by every reader: it
// is read only, its slices and maps included.
type GuildView struct {
	Snapshot store.Snapshot
	Roles    guild.Roles
	Channels map[snowflake.ID]guild.Channel
}

// NewGuildView indexes snap (which the view then holds: not copied).
func NewGuildView(snap store.Snapshot) *GuildView {
	v := &GuildView{Snapshot: snap, Roles: make(guild.Roles, len(snap.Roles)),
		Channels: make(map[snowflake.ID]guild.Channel, len(snap.Channels))}
	for _, r := range snap.Roles {
		v.Roles[r.ID] = r
	}
	for _, c := range snap.Channels {
		v.Channels[c.ID] = c
	}
	return v
}

// guildSnap is a cached snapshot and, once a reader asked for it, its
// view. Every invocation reads its guild's view: copying the snapshot
// and indexing it for each took time in proportion to the guild's roles,
// channels and overwrites, for data that changes far less often than
// it is read.
type guildSnap struct {
	snap store.Snapshot
	once sync.Once
	view *GuildView
}

func (g *guildSnap) indexed() *GuildView {
	g.once.Do(func() { g.view = NewGuildView(g.snap) })
	return g.view
}

// stampedGuildSnap is the guild's cached snapshot with its stamp.
func (s *Store) stampedGuildSnap(ctx context.Context, guildID snowflake.ID) (*guildSnap, uint64, error) {
	return readStamped(ctx, s, s.snaps, guildID, func() (*guildSnap, error) {
		snap, err := s.Store.Snapshot(ctx, guildID)
		return &guildSnap{snap: snap}, err
	})
}

// SharedGuildView is guild guildID's view, shared with every other reader
// of the same fill: callers must not change it.
func (s *Store) SharedGuildView(ctx context.Context, guildID snowflake.ID) (*GuildView, error) {
	g, _, err := s.stampedGuildSnap(ctx, guildID)
	if err != nil {
		return nil, err
	}
	return g.indexed(), nil
}
