package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	cachepkg "github.com/slashd/slashd/internal/store/cache"
	"github.com/slashd/slashd/internal/wire"
)

// The gateway's discovery: GET /gateway (no auth) and GET /gateway/bot
// (a bot token) answer the URL of slashd's own websocket, which is where
// the libraries connect (discordgo reads /gateway, discord.js
// /gateway/bot).

func (s *Server) getGateway(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"url": gateway.URL(r)})
	return nil
}

// getGatewayBot answers the shard count the bot's guilds call for and
// the identify budget of the real service. The count is read from the
// index identify reads its shard's guilds from (the bot's memberships).
func (s *Server) getGatewayBot(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if !p.Bot() {
		return errUnauthorized
	}
	guilds, err := s.store.ShardGuildIDs(r.Context(), p.Token.UserID, 0, 1)
	if err != nil {
		return fmt.Errorf("counting the bot's guilds: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"url":    gateway.URL(r),
		"shards": s.gateway.RecommendedShards(len(guilds)),
		"session_start_limit": map[string]int{
			"total": 1000, "remaining": 1000, "reset_after": 86_400_000, "max_concurrency": 1,
		},
	})
	return nil
}

// gatewayDirectory is the gateway's view of the store.
type gatewayDirectory struct{ s *Server }

// Bot authenticates a bot token, with or without its "Bot " prefix.
func (d gatewayDirectory) Bot(ctx context.Context, token string) (gateway.Bot, error) {
	if !strings.HasPrefix(token, "Bot ") {
		token = "Bot " + token
	}
	addr, fromClient := ctx.Value(gatewayClientKey{}).(string)
	if fromClient && !d.s.mayCheckCredential(addr, token) {
		// Over its failure budget, with a token not known to be valid:
		// refused as a bad token, without a lookup.
		d.s.countAuthFailureFrom(addr)
		return gateway.Bot{}, gateway.ErrUnknownToken
	}
	p, err := auth.Authenticate(ctx, d.s.store, token, d.s.now())
	if errors.Is(err, auth.ErrInvalidToken) || (err == nil && !p.Bot()) {
		if fromClient {
			d.s.countAuthFailureFrom(addr)
		}
		return gateway.Bot{}, gateway.ErrUnknownToken
	}
	if err != nil {
		return gateway.Bot{}, err
	}
	if d.s.accepted != nil {
		d.s.accepted.add(token)
	}
	app, err := d.s.store.Application(ctx, p.Token.ApplicationID)
	if err != nil {
		return gateway.Bot{}, err
	}
	u, err := d.s.store.User(ctx, app.ID)
	if err != nil {
		return gateway.Bot{}, err
	}
	// READY's user is the bot's own account, as GET /users/@me renders it.
	user, err := jsonenc.Marshal(currentUser(u, false))
	return gateway.Bot{ApplicationID: app.ID, Flags: app.Flags, User: user,
		InteractionsEndpointURL: app.InteractionsEndpointURL}, err
}

// Guilds returns the guilds of q's shard that the app's bot is a member
// of, with their GUILD_CREATE objects when q.WithCreate is true. The
// store picks the shard's guilds from its index of memberships: no other
// shard's guild is read, let alone rendered.
func (d gatewayDirectory) Guilds(ctx context.Context, appID snowflake.ID, q gateway.GuildsQuery) ([]gateway.Guild, error) {
	// The world's changes waiting in the outbox go out first, before the
	// session's start marker: what READY and GUILD_CREATE show is not
	// dispatched to it again.
	d.s.PublishWorldEvents(ctx)
	if d.s.cache != nil {
		// One barrier and one look at the world clock for all the
		// identify's reads, as for a request's (see internal/store/cache):
		// it sees every write made before it, and its thousands of
		// cached reads do not each read the clock again.
		ctx = d.s.cache.SyncWorld(d.s.cache.Sync(ctx))
	}
	ids, err := d.s.store.ShardGuildIDs(ctx, appID, q.Shard, q.Shards)
	if err != nil {
		return nil, err
	}
	if q.Max > 0 && len(ids) > q.Max {
		return nil, gateway.ErrShardingRequired
	}
	out := make([]gateway.Guild, 0, len(ids))
	for _, id := range ids {
		if !q.WithCreate {
			out = append(out, gateway.Guild{ID: id})
			continue
		}
		create, err := d.guildCreate(ctx, id, appID, false)
		if errors.Is(err, errNotMember) {
			continue // left meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, gateway.Guild{ID: id, Create: create})
	}
	return out, nil
}

// guildCreate renders a guild as GUILD_CREATE carries it, with the bot's
// own member (member lists need the privileged GUILD_MEMBERS intent).
// The GUILD_CREATEs that follow READY say "unavailable": false (the
// guild READY listed as unavailable is now available); the one telling a
// bot it joined a guild leaves unavailable out, and libraries tell the
// two apart by it (discord.py's parse_guild_create: on_guild_available
// for false, on_guild_join for absent).
//
// Identify's GUILD_CREATEs come from Server.creates when the read cache
// vouches for what they were rendered from (see guildCreateKey). A join's is
// rendered each time: it goes out once, to the sessions of the bot that
// joined, and would only crowd the identify's bodies out.
func (d gatewayDirectory) guildCreate(ctx context.Context, guildID, botID snowflake.ID, joined bool) (json.RawMessage, error) {
	key := guildCreateKey{guild: guildID, bot: botID}
	cacheable := !joined && d.s.cache != nil
	if cacheable {
		if stamp, ok := d.s.cache.MemberViewStamp(ctx, guildID, botID); ok {
			if body, ok := d.s.creates.get(key, stamp); ok {
				return body, nil
			}
		}
	}
	view, err := d.readGuildCreateView(ctx, guildID, botID)
	if err != nil {
		return nil, err
	}
	d.s.guildCreateRenders.Add(1)
	body, err := renderGuildCreate(view, joined)
	if err != nil {
		return nil, fmt.Errorf("render GUILD_CREATE of guild %d: %w", guildID, err)
	}
	if cacheable && view.stamp.Complete() {
		d.s.creates.put(key, view.stamp, body)
	}
	return body, nil
}

// guildCreateKey names a body of Server.creates: the rendered
// GUILD_CREATEs of identify, one per
// (guild, bot), each kept with the stamps of the four cached values it
// was rendered from (cache.MemberViewStamp: the guild's snapshot of
// roles, channels and installations, its member count, the bot's user
// and its membership), which are all a GUILD_CREATE shows. A body is
// served only while the read cache holds those very stamps; a fill
// never reuses a stamp, so any change to the four that the cache has
// learnt of (a write through this node, another node's invalidation on
// the bus after the identify's barrier, another process's write moving
// SQLite's world clock) has dropped an entry, and the next identify
// renders anew from the new one. Exactness is the read cache's own,
// with no invalidation path of this cache to get wrong: where the cache
// would read the store (it is off, suspended, or does not cache the
// world, as on PostgreSQL, where every node reads the world from the
// store) there are no stamps and every GUILD_CREATE is rendered.
// Bounded by Config.CacheBytes of bodies, as the command lists are. Only
// the body is kept: each session wraps it in a dispatch frame of its own
// sequence number, one copy.
type guildCreateKey struct{ guild, bot snowflake.ID }

// guildCreateView is what a GUILD_CREATE shows, with the read cache's
// stamps of each part (0: not read from the cache).
type guildCreateView struct {
	snap        store.Snapshot
	member      guild.Member
	user        store.User
	memberCount int
	stamp       cachepkg.MemberViewStamp
}

// readGuildCreateView reads the bot's view of a guild with the checks
// of loadMemberView (errNotMember, errOtherWorld), without the lookup
// maps GUILD_CREATE does not need, and with the stamps.
func (d gatewayDirectory) readGuildCreateView(ctx context.Context, guildID, botID snowflake.ID) (guildCreateView, error) {
	var v guildCreateView
	r := stampedReads{st: d.s.store, c: d.s.cache}
	var err error
	if v.snap, v.stamp.Snapshot, err = r.snapshot(ctx, guildID); err != nil {
		return v, fmt.Errorf("snapshot of guild %d: %w", guildID, err)
	}
	v.user, v.stamp.User, err = r.user(ctx, botID)
	if errors.Is(err, store.ErrNotFound) {
		return v, errNotMember
	}
	if err != nil {
		return v, err
	}
	if v.user.WorldID != v.snap.Guild.WorldID {
		return v, errOtherWorld
	}
	v.member, v.stamp.Member, err = r.member(ctx, guildID, botID)
	if errors.Is(err, store.ErrNotFound) {
		return v, errNotMember
	}
	if err != nil {
		return v, err
	}
	// Counted, not read: a guild of 100,000 members costs here what a
	// small one does.
	v.memberCount, v.stamp.MemberCount, err = r.memberCount(ctx, guildID)
	return v, err
}

// renderGuildCreate is view's GUILD_CREATE (joined: a join's, see
// guildCreate).
func renderGuildCreate(view guildCreateView, joined bool) (json.RawMessage, error) {
	channels := make([]guildChannel, 0, len(view.snap.Channels))
	threads := []guildChannel{}
	for _, c := range view.snap.Channels {
		gc := newGuildChannel(c)
		if guild.IsThread(c.Type) {
			threads = append(threads, gc)
			continue
		}
		channels = append(channels, gc)
	}
	self := guildMember(view.member, view.user)
	none := []json.RawMessage{}
	var unavailable *bool
	if !joined {
		unavailable = new(bool)
	}
	return jsonenc.Marshal(guildCreateObject{
		guildObject: newGuildObject(view.snap), JoinedAt: self.JoinedAt, MemberCount: view.memberCount, Unavailable: unavailable,
		Members: []wire.GuildMember{self}, Channels: channels, Threads: threads, Presences: none, VoiceStates: none,
		StageInstances: none, GuildScheduledEvents: none, SoundboardSounds: none, Lazy: true,
	})
}

// stampedReads reads the world through the read cache with each value's
// stamp, or from the store with none when there is no cache.
type stampedReads struct {
	st store.Store
	c  *cachepkg.Store // nil: CacheOff
}

func (r stampedReads) snapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, uint64, error) {
	if r.c == nil {
		snap, err := r.st.Snapshot(ctx, guildID)
		return snap, 0, err
	}
	return r.c.StampedSnapshot(ctx, guildID)
}

func (r stampedReads) user(ctx context.Context, id snowflake.ID) (store.User, uint64, error) {
	if r.c == nil {
		u, err := r.st.User(ctx, id)
		return u, 0, err
	}
	return r.c.StampedUser(ctx, id)
}

func (r stampedReads) member(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, uint64, error) {
	if r.c == nil {
		m, err := r.st.Member(ctx, guildID, userID)
		return m, 0, err
	}
	return r.c.StampedMember(ctx, guildID, userID)
}

func (r stampedReads) memberCount(ctx context.Context, guildID snowflake.ID) (int, uint64, error) {
	if r.c == nil {
		n, err := r.st.MemberCount(ctx, guildID)
		return n, 0, err
	}
	return r.c.StampedMemberCount(ctx, guildID)
}

// guildCreateObject is GUILD_CREATE's guild: the guild object with the
// bot's membership, the channels and threads, and the lists slashd keeps
// none of.
type guildCreateObject struct {
	guildObject
	JoinedAt             string             `json:"joined_at"`
	Large                bool               `json:"large"`
	Unavailable          *bool              `json:"unavailable,omitempty"` // nil: a join (see guildCreate)
	MemberCount          int                `json:"member_count"`
	Members              []wire.GuildMember `json:"members"`
	Channels             []guildChannel     `json:"channels"`
	Threads              []guildChannel     `json:"threads"`
	Presences            []json.RawMessage  `json:"presences"`
	VoiceStates          []json.RawMessage  `json:"voice_states"`
	StageInstances       []json.RawMessage  `json:"stage_instances"`
	GuildScheduledEvents []json.RawMessage  `json:"guild_scheduled_events"`
	SoundboardSounds     []json.RawMessage  `json:"soundboard_sounds"`
	Lazy                 bool               `json:"lazy"`
}

// guildMember is a member as the gateway renders one, in GUILD_CREATE
// and GUILD_MEMBERS_CHUNK: no permissions, which only an interaction's
// member carries.
func guildMember(m guild.Member, u store.User) wire.GuildMember {
	user := wireUser(u)
	return wire.NewGuildMember(&user, m.Nick, m.Roles, m.JoinedAt.UTC().Format(interaction.TimestampLayout))
}

// Members returns the members q selects of a guild the app's bot is in,
// by user id, rendered as GUILD_CREATE renders them.
func (d gatewayDirectory) Members(ctx context.Context, appID, guildID snowflake.ID, q gateway.MemberQuery) ([]gateway.Member, error) {
	if _, err := d.s.store.Member(ctx, guildID, appID); errors.Is(err, store.ErrNotFound) {
		return nil, gateway.ErrUnknownGuild
	} else if err != nil {
		return nil, fmt.Errorf("bot %d in guild %d: %w", appID, guildID, err)
	}
	found, err := d.s.store.SearchMembers(ctx, guildID, store.MemberQuery{UserIDs: q.UserIDs, Prefix: q.Prefix,
		Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]gateway.Member, len(found))
	for i, mu := range found {
		obj, err := jsonenc.Marshal(guildMember(mu.Member, mu.User))
		if err != nil {
			return nil, fmt.Errorf("render member %d: %w", mu.User.ID, err)
		}
		out[i] = gateway.Member{UserID: mu.User.ID, Object: obj}
	}
	return out, nil
}

// guildChannel is a channel as GUILD_CREATE lists it.
type guildChannel struct {
	ID                   snowflake.ID      `json:"id"`
	Type                 int               `json:"type"`
	Name                 string            `json:"name"`
	Position             int               `json:"position"`
	ParentID             *snowflake.ID     `json:"parent_id"`
	NSFW                 bool              `json:"nsfw"`
	Topic                *string           `json:"topic"`
	LastMessageID        *snowflake.ID     `json:"last_message_id"`
	RateLimitPerUser     int               `json:"rate_limit_per_user"`
	Flags                int               `json:"flags"`
	PermissionOverwrites []guild.Overwrite `json:"permission_overwrites"`
}

func newGuildChannel(c guild.Channel) guildChannel {
	gc := guildChannel{ID: c.ID, Type: c.Type, Name: c.Name, Position: c.Position, NSFW: c.NSFW,
		PermissionOverwrites: c.Overwrites}
	if gc.PermissionOverwrites == nil {
		gc.PermissionOverwrites = []guild.Overwrite{}
	}
	if c.ParentID != 0 {
		p := c.ParentID
		gc.ParentID = &p
	}
	return gc
}

var _ gateway.Directory = gatewayDirectory{}
