package api

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// World events: every write to a guild, its roles, members or channels
// records its change in the store's outbox (store.WorldEvents), in the
// writing transaction, whichever process wrote it: this server, another
// node, or the CLI writing the data directory beside it. Each node tails
// the outbox; a claim takes the oldest changes in a transaction and
// publishes their dispatches on the bus before it commits, so that
// claims (which serialize in the store) publish in the order the changes
// were made, whichever node claims. Each dispatch shows the role,
// member or channel as its change recorded it (GUILD_CREATE and
// GUILD_UPDATE: the guild as it is when claimed), and is addressed to
// the apps whose bots are members of the guild when claimed
// (event.World.Apps), so that every node dispatches it alike.
// docs/design.md, Gateway, "World and message events".

// worldPoll is how often a node looks for changes: one indexed one-row
// read, so that an idle server writes nothing.
const worldPoll = 100 * time.Millisecond

// worldBatch is how many changes one claim takes.
const worldBatch = 256

// PublishWorldEvents publishes the changes waiting in the outbox now,
// without waiting for the next poll (tests call it after building their
// world, so that a bot connecting next does not hear of it again).
func (s *Server) PublishWorldEvents(ctx context.Context) { s.publishWorld(ctx, s.outbox) }

// tailWorld publishes the world's changes until ctx ends.
func (s *Server) tailWorld(ctx context.Context) {
	t := time.NewTicker(worldPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.publishWorld(ctx, s.outbox)
		}
	}
}

// publishWorld claims and publishes every waiting change. One claim at
// a time in a process: a claim holds a connection while it renders
// through others, and a second claim of this process waiting on its rows
// (PostgreSQL) would hold one more, which a small pool may not have.
func (s *Server) publishWorld(ctx context.Context, polled store.WorldEvents) {
	s.claiming.Lock()
	defer s.claiming.Unlock()
	for ctx.Err() == nil {
		has, err := polled.HasWorldEvents(ctx)
		if err != nil {
			if ctx.Err() == nil { // not the server stopping
				s.log.Warn("world events: look for changes", "err", err)
			}
			return
		}
		if !has {
			return
		}
		n := 0
		err = s.store.ClaimWorldEvents(ctx, worldBatch, func(es []store.WorldEvent) error {
			n = len(es)
			return s.publishChanges(ctx, es)
		})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("world events: claim", "err", err)
			}
			return
		}
		if n < worldBatch {
			return
		}
	}
}

// publishChanges renders and publishes a batch of changes, then flushes
// the bus (a networked one), so that they are out before the claim
// commits and the next claimer publishes.
func (s *Server) publishChanges(ctx context.Context, es []store.WorldEvent) error {
	if s.cache != nil {
		// Read what every node acknowledged before now, and what the
		// CLI wrote (the world clock).
		ctx = s.cache.SyncWorld(s.cache.Sync(ctx))
	}
	w := worldRender{s: s, ctx: ctx, bots: map[snowflake.ID][]snowflake.ID{}, joins: joinsIn(es), last: es[len(es)-1].ID}
	for i, e := range es {
		w.at = i
		if err := w.change(e); err != nil {
			return err
		}
	}
	if f, ok := s.events.(interface{ Flush(context.Context) error }); ok {
		return f.Flush(ctx)
	}
	return nil
}

// worldRender renders one batch's dispatches.
type worldRender struct {
	s    *Server
	ctx  context.Context
	bots map[snowflake.ID][]snowflake.ID // per guild: its bot members when the batch was claimed
	// joins: per guild and user, the index of the batch's first change
	// making the user a member; at: the change being rendered.
	joins map[[2]snowflake.ID]int
	at    int
	// last is the batch's last change: a bot whose joining waits in the
	// outbox after it (committed while this batch renders, which
	// PostgreSQL allows) is not yet a member to its sessions.
	last int64
}

// joinsIn indexes the memberships a batch makes.
func joinsIn(es []store.WorldEvent) map[[2]snowflake.ID]int {
	out := map[[2]snowflake.ID]int{}
	for i, e := range es {
		k := [2]snowflake.ID{e.GuildID, e.ObjectID}
		if _, seen := out[k]; !seen && e.Kind == store.WorldMember && e.Op == store.WorldCreate {
			out[k] = i
		}
	}
	return out
}

// guildBots returns the apps whose bots are members of the guild now,
// less those whose joining comes later in the batch: a change made
// before a bot joined is not the bot's (its GUILD_CREATE, rendered
// now, holds it).
func (w worldRender) guildBots(guildID snowflake.ID) ([]snowflake.ID, error) {
	b, ok := w.bots[guildID]
	if !ok {
		var err error
		if b, err = w.s.store.BotMembers(w.ctx, guildID, w.last); err != nil {
			return nil, err
		}
		w.bots[guildID] = b
	}
	return slices.DeleteFunc(slices.Clone(b), func(id snowflake.ID) bool {
		j, joins := w.joins[[2]snowflake.ID{guildID, id}]
		return joins && j > w.at
	}), nil
}

// publish sends one dispatch to apps (none: nothing).
func (w worldRender) publish(typ string, guildID snowflake.ID, apps []snowflake.ID, data any) error {
	if len(apps) == 0 {
		return nil
	}
	body, err := jsonenc.Marshal(data)
	if err != nil {
		return err
	}
	w.s.events.Publish(w.ctx, event.Event{Type: typ, GuildID: guildID, Data: event.World{Apps: apps, Body: body}})
	return nil
}

// gone reports a change whose object no longer exists (a later change
// in the outbox says so): it is skipped.
func gone(err error) bool { return errors.Is(err, store.ErrNotFound) || errors.Is(err, errNotMember) }

func (w worldRender) change(e store.WorldEvent) error {
	var err error
	switch e.Kind {
	case store.WorldGuild:
		err = w.guildUpdate(e)
	case store.WorldRole:
		err = w.role(e)
	case store.WorldMember:
		err = w.member(e)
	case store.WorldChannel:
		err = w.channel(e)
	}
	if gone(err) {
		return nil
	}
	return err
}

func (w worldRender) guildUpdate(e store.WorldEvent) error {
	bots, err := w.guildBots(e.GuildID)
	if err != nil || len(bots) == 0 {
		return err
	}
	snap, err := w.s.store.Snapshot(w.ctx, e.GuildID)
	if err != nil {
		return err
	}
	return w.publish(event.GuildUpdate, e.GuildID, bots, newGuildObject(snap))
}

// guildRoleEvent is GUILD_ROLE_CREATE's and GUILD_ROLE_UPDATE's data.
type guildRoleEvent struct {
	GuildID snowflake.ID     `json:"guild_id"`
	Role    interaction.Role `json:"role"`
}

// guildRoleDelete is GUILD_ROLE_DELETE's data.
type guildRoleDelete struct {
	GuildID snowflake.ID `json:"guild_id"`
	RoleID  snowflake.ID `json:"role_id"`
}

func (w worldRender) role(e store.WorldEvent) error {
	bots, err := w.guildBots(e.GuildID)
	if err != nil || len(bots) == 0 {
		return err
	}
	if e.Op == store.WorldDelete {
		return w.publish(event.GuildRoleDelete, e.GuildID, bots, guildRoleDelete{GuildID: e.GuildID, RoleID: e.ObjectID})
	}
	if e.Role == nil {
		return nil
	}
	typ := event.GuildRoleCreate
	if e.Op == store.WorldUpdate {
		typ = event.GuildRoleUpdate
	}
	return w.publish(typ, e.GuildID, bots, guildRoleEvent{GuildID: e.GuildID, Role: interaction.NewRole(*e.Role)})
}

// guildMemberEvent is GUILD_MEMBER_ADD's and GUILD_MEMBER_UPDATE's data:
// the member with its guild.
type guildMemberEvent struct {
	wire.GuildMember
	GuildID snowflake.ID `json:"guild_id"`
}

// guildMemberRemove is GUILD_MEMBER_REMOVE's data.
type guildMemberRemove struct {
	GuildID snowflake.ID `json:"guild_id"`
	User    wire.User    `json:"user"`
}

// guildDelete is GUILD_DELETE's data when the bot left (or was removed
// from) the guild: no "unavailable" (docs/compat.md).
type guildDelete struct {
	ID snowflake.ID `json:"id"`
}

// member: a bot joining gets GUILD_CREATE and one leaving GUILD_DELETE;
// the guild's other bots get GUILD_MEMBER_ADD, _UPDATE or _REMOVE.
func (w worldRender) member(e store.WorldEvent) error {
	bots, err := w.guildBots(e.GuildID)
	if err != nil {
		return err
	}
	isBot, err := w.isApp(e.ObjectID)
	if err != nil {
		return err
	}
	others := slices.DeleteFunc(slices.Clone(bots), func(id snowflake.ID) bool { return id == e.ObjectID })
	if e.Op == store.WorldDelete {
		if isBot && !slices.Contains(bots, e.ObjectID) {
			err := w.publish(event.GuildDelete, e.GuildID, []snowflake.ID{e.ObjectID}, guildDelete{ID: e.GuildID})
			if err != nil {
				return err
			}
		}
		if len(others) == 0 {
			return nil
		}
		u, err := w.user(e.ObjectID)
		if err != nil {
			return err
		}
		return w.publish(event.GuildMemberRemove, e.GuildID, others, guildMemberRemove{GuildID: e.GuildID, User: wireUser(u)})
	}
	if e.Op == store.WorldCreate && isBot && slices.Contains(bots, e.ObjectID) {
		create, err := gatewayDirectory{w.s}.guildCreate(w.ctx, e.GuildID, e.ObjectID, true)
		if err != nil {
			return err
		}
		if err := w.publish(event.GuildCreate, e.GuildID, []snowflake.ID{e.ObjectID}, create); err != nil {
			return err
		}
	}
	to, typ := others, event.GuildMemberAdd
	if e.Op == store.WorldUpdate {
		// A bot hears of its own membership changing too (its roles).
		to, typ = bots, event.GuildMemberUpdate
	}
	if len(to) == 0 || e.Member == nil {
		return nil
	}
	u, err := w.user(e.ObjectID)
	if err != nil {
		return err
	}
	return w.publish(typ, e.GuildID, to, guildMemberEvent{GuildMember: guildMember(*e.Member, u), GuildID: e.GuildID})
}

// user reads a member's user; one deleted since is rendered by its id.
func (w worldRender) user(id snowflake.ID) (store.User, error) {
	u, err := w.s.store.User(w.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{ID: id}, nil
	}
	return u, err
}

// isApp reports whether a user is an application's bot user.
func (w worldRender) isApp(userID snowflake.ID) (bool, error) {
	_, err := w.s.store.Application(w.ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// threadDelete is THREAD_DELETE's data.
type threadDelete struct {
	ID       snowflake.ID `json:"id"`
	GuildID  snowflake.ID `json:"guild_id"`
	ParentID snowflake.ID `json:"parent_id"`
	Type     int          `json:"type"`
}

// channel: CHANNEL_* for channels and categories, THREAD_* for threads,
// to the guild's bots that can view it (a thread: its parent).
func (w worldRender) channel(e store.WorldEvent) error {
	if e.Channel == nil {
		return nil
	}
	c := *e.Channel
	members, err := w.guildBots(e.GuildID)
	if err != nil {
		return err
	}
	bots, err := w.s.viewers(w.ctx, e.GuildID, c, members)
	if err != nil || len(bots) == 0 {
		return err
	}
	thread := guild.IsThread(c.Type)
	switch {
	case e.Op == store.WorldDelete && thread:
		return w.publish(event.ThreadDelete, e.GuildID, bots,
			threadDelete{ID: c.ID, GuildID: c.GuildID, ParentID: c.ParentID, Type: c.Type})
	case e.Op == store.WorldDelete:
		return w.publish(event.ChannelDelete, e.GuildID, bots, newChannelObject(c, nil))
	}
	typ := map[bool]map[string]string{
		false: {store.WorldCreate: event.ChannelCreate, store.WorldUpdate: event.ChannelUpdate},
		true:  {store.WorldCreate: event.ThreadCreate, store.WorldUpdate: event.ThreadUpdate},
	}[thread][e.Op]
	return w.publish(typ, e.GuildID, bots, newChannelObject(c, nil))
}

// botsSeeing returns the apps whose bots are members of the guild and
// may view channel c there (VIEW_CHANNEL; a thread: its parent's).
func (s *Server) botsSeeing(ctx context.Context, guildID snowflake.ID, c guild.Channel) ([]snowflake.ID, error) {
	bots, err := s.store.BotMembers(ctx, guildID, 0)
	if err != nil {
		return nil, err
	}
	return s.viewers(ctx, guildID, c, bots)
}

// viewers returns those of bots (members of the guild) who may view
// channel c.
func (s *Server) viewers(ctx context.Context, guildID snowflake.ID, c guild.Channel, bots []snowflake.ID) ([]snowflake.ID, error) {
	if len(bots) == 0 {
		return nil, nil
	}
	out := make([]snowflake.ID, 0, len(bots))
	for _, b := range bots {
		view, err := s.loadMemberView(ctx, guildID, b)
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if view.canView(c) {
			out = append(out, b)
		}
	}
	return out, nil
}
