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
func (d gatewayDirectory) guildCreate(ctx context.Context, guildID, botID snowflake.ID, joined bool) (json.RawMessage, error) {
	view, err := d.s.loadMemberView(ctx, guildID, botID)
	if err != nil {
		return nil, err
	}
	// Counted, not read: a guild of 100,000 members costs here what a
	// small one does.
	memberCount, err := d.s.store.MemberCount(ctx, guildID)
	if err != nil {
		return nil, err
	}
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
		guildObject: newGuildObject(view.snap), JoinedAt: self.JoinedAt, MemberCount: memberCount, Unavailable: unavailable,
		Members: []wire.GuildMember{self}, Channels: channels, Threads: threads, Presences: none, VoiceStates: none,
		StageInstances: none, GuildScheduledEvents: none, SoundboardSounds: none, Lazy: true,
	})
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
