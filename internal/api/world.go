package api

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	cachepkg "github.com/slashd/slashd/internal/store/cache"
)

// memberView is what deciding access for one user where they are needs,
// read once per request: in a guild, its snapshot and their membership
// (snap, roles and channels may be shared with other requests: read only);
// in a DM or group DM, that channel (snap, roles and member are then
// empty). Either way, the apps the user installed to their account.
type memberView struct {
	snap     store.Snapshot
	roles    guild.Roles
	channels map[snowflake.ID]guild.Channel
	member   guild.Member
	user     store.User

	private  *privateChannel       // nil in guilds
	userApps map[snowflake.ID]bool // apps the user installed to their account
	// botShares: in a DM with an app's bot, whether the bot shares a
	// guild with the user (the app's guild installs reach the DM then).
	botShares map[snowflake.ID]bool
}

// privateChannel is a DM or group DM with its participants.
type privateChannel struct {
	channel    guild.Channel // id, type (guild.ChannelDM or ChannelGroupDM), name
	ownerID    snowflake.ID  // group DMs
	recipients []store.User  // every participant, the viewer included
}

// has reports whether user id takes part in the channel.
func (p *privateChannel) has(id snowflake.ID) bool {
	return slices.ContainsFunc(p.recipients, func(u store.User) bool { return u.ID == id })
}

// where is the interaction context of app's commands for the viewer:
// GUILD in a guild, BOT_DM in a DM with the app's bot, PRIVATE_CHANNEL in
// any other DM or group DM.
func (v memberView) where(appID snowflake.ID) int {
	switch {
	case v.private == nil:
		return command.ContextGuild
	case v.private.channel.Type == guild.ChannelDM && v.private.has(appID):
		return command.ContextBotDM
	}
	return command.ContextPrivateChannel
}

// apps lists the apps whose commands may reach the viewer, by id: in a
// guild, those installed there; in a DM with an app's bot, that app when
// the bot shares a guild with the user; and the user's own installs.
func (v memberView) apps() []snowflake.ID {
	var ids []snowflake.ID
	if v.private == nil {
		for _, inst := range v.snap.Installations {
			if v.installed(inst.ApplicationID) {
				ids = append(ids, inst.ApplicationID)
			}
		}
	}
	for id, ok := range v.botShares {
		if ok {
			ids = append(ids, id)
		}
	}
	for id := range v.userApps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// errNotMember: the user is not in the guild.
var errNotMember = errors.New("not a member of the guild")

// loadMemberView reads a guild's snapshot and one member of it. It
// returns errNotMember when the user has no membership.
func (s *Server) loadMemberView(ctx context.Context, guildID, userID snowflake.ID) (memberView, error) {
	var v memberView
	gv, err := s.sharedGuild(ctx, guildID)
	if err != nil {
		return v, fmt.Errorf("snapshot of guild %d: %w", guildID, err)
	}
	u, err := s.store.User(ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return v, errNotMember // no such user: no such member
	}
	if err != nil {
		return v, err
	}
	if u.WorldID != gv.Snapshot.Guild.WorldID {
		return v, errOtherWorld // before the membership: nothing of it shows
	}
	m, err := s.store.Member(ctx, guildID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return v, errNotMember
	}
	if err != nil {
		return v, err
	}
	return memberView{snap: gv.Snapshot, member: m, user: u, roles: gv.Roles, channels: gv.Channels}, nil
}

// sharedGuild is a guild's snapshot with its roles and channels by id:
// the cache's, shared with other requests (a memberView only reads it),
// or read for this request when there is no cache.
func (s *Server) sharedGuild(ctx context.Context, guildID snowflake.ID) (*cachepkg.GuildView, error) {
	if s.cache != nil {
		return s.cache.SharedGuildView(ctx, guildID)
	}
	snap, err := s.store.Snapshot(ctx, guildID)
	if err != nil {
		return nil, err
	}
	return cachepkg.NewGuildView(snap), nil
}

// installed reports whether app may have commands in the guild through
// its installation there; in a DM with its bot, whether the bot shares a
// guild with the user.
func (v memberView) installed(appID snowflake.ID) bool {
	if v.private != nil {
		return v.where(appID) == command.ContextBotDM && v.botShares[appID]
	}
	for _, inst := range v.snap.Installations {
		if inst.ApplicationID == appID && (inst.HasScope("applications.commands") || inst.HasScope("bot")) {
			return true
		}
	}
	return false
}

// context is the access context of the member in channel ch (zero for a
// guild-wide check, where no channel-specific overwrite applies) for app.
func (v memberView) context(ch guild.Channel, appID snowflake.ID) access.Context {
	ctx := access.Context{Guild: v.snap.Guild, Roles: v.roles, Member: v.member, Adult: v.user.Adult,
		Channel: ch, Where: v.where(appID), Installed: v.installed(appID), UserInstalled: v.userApps[appID]}
	if v.private != nil {
		ctx.Member.UserID = v.user.ID
	}
	if guild.IsThread(ch.Type) {
		if p, ok := v.channels[ch.ParentID]; ok {
			ctx.Parent = &p
		}
	}
	return ctx
}

// canView reports whether the member may see channel ch (a thread: its
// parent).
func (v memberView) canView(ch guild.Channel) bool {
	return v.permissionsIn(ch).Has(guild.ViewChannel)
}

// permissionsIn is the member's permissions in channel ch (a thread: its
// parent's).
func (v memberView) permissionsIn(ch guild.Channel) guild.Permissions {
	return v.permissionsOf(v.member, ch)
}

// permissionsOf is member m's permissions in channel ch (a thread: its
// parent's).
func (v memberView) permissionsOf(m guild.Member, ch guild.Channel) guild.Permissions {
	if v.private != nil {
		return guild.DMPermissions
	}
	if guild.IsThread(ch.Type) {
		if p, ok := v.channels[ch.ParentID]; ok {
			ch = p
		}
	}
	return guild.ChannelPermissions(v.snap.Guild, v.roles, m, ch)
}

// basePermissions is the member's guild-wide permissions.
func (v memberView) basePermissions() guild.Permissions {
	return guild.BasePermissions(v.snap.Guild, v.roles, v.member)
}

// appCommands are an app's commands visible in a guild, with the
// permission index for them.
type appCommands struct {
	app      store.Application
	commands []command.Command // decoded: shared with the cache, read only
	raw      []store.RawCommand
	index    *access.Index
}

// embedded reports whether the app has Activities (the EMBEDDED flag).
func (ac appCommands) embedded() bool { return ac.app.Flags&command.ApplicationFlagEmbedded != 0 }

// loadAppCommands reads an app's guild and global commands and its
// permission lists in the guild (guildID 0: its global commands only),
// the guild's first. A guild command and a global one of the same type
// and name are both kept: the real service shows and runs both (see
// docs/compat.md, "Command picker").
func (s *Server) loadAppCommands(ctx context.Context, appID, guildID snowflake.ID) (appCommands, error) {
	app, err := s.store.Application(ctx, appID)
	if err != nil {
		return appCommands{}, err
	}
	var local []store.RawCommand
	var lists []command.GuildPermissions
	if guildID != 0 { // outside guilds: global commands, no permission lists
		local, err = s.store.RawCommands(ctx, command.Scope{ApplicationID: appID, GuildID: guildID})
		if err != nil {
			return appCommands{}, err
		}
		lists, err = s.store.GuildPermissions(ctx, appID, guildID)
		if err != nil {
			return appCommands{}, err
		}
	}
	global, err := s.store.RawCommands(ctx, command.Scope{ApplicationID: appID})
	if err != nil {
		return appCommands{}, err
	}
	ac := appCommands{app: app, index: access.NewIndex(appID, lists)}
	ac.commands = make([]command.Command, 0, len(local)+len(global))
	ac.raw = make([]store.RawCommand, 0, len(local)+len(global))
	for _, scope := range [][]store.RawCommand{local, global} {
		for _, rc := range scope {
			c, err := s.decodeCommand(rc)
			if err != nil {
				return appCommands{}, err
			}
			ac.commands = append(ac.commands, c)
			ac.raw = append(ac.raw, rc)
		}
	}
	return ac, nil
}

// invokerChannel reads the channel an invocation names (guildID, when
// given, must be its guild) and the user's view of where it is: in a
// guild, the user must be a member who can see the channel; a DM or group
// DM, they must take part in.
func (s *Server) invokerChannel(ctx context.Context, user, channelID, guildID snowflake.ID) (guild.Channel, memberView, error) {
	ch, err := s.store.Channel(ctx, channelID)
	if errors.Is(err, store.ErrNotFound) {
		return s.privateView(ctx, user, channelID, guildID)
	}
	if err != nil {
		return guild.Channel{}, memberView{}, err
	}
	if guildID != 0 && guildID != ch.GuildID {
		return guild.Channel{}, memberView{}, errUnknownChannel
	}
	view, err := s.loadMemberView(ctx, ch.GuildID, user)
	if errors.Is(err, errOtherWorld) {
		return guild.Channel{}, memberView{}, errUnknownChannel
	}
	if errors.Is(err, errNotMember) {
		return guild.Channel{}, memberView{}, errMissingAccess
	}
	if err != nil {
		return guild.Channel{}, memberView{}, err
	}
	if !view.canView(ch) {
		return guild.Channel{}, memberView{}, errMissingAccess
	}
	if view.userApps, err = s.userApps(ctx, user); err != nil {
		return guild.Channel{}, memberView{}, err
	}
	return ch, view, nil
}

// privateView is invokerChannel for a DM or group DM: the channel (as a
// guild.Channel of its type, outside any guild), its participants, the
// user's installed apps and, in a DM with an app's bot, whether that bot
// shares a guild with the user.
func (s *Server) privateView(ctx context.Context, user, channelID, guildID snowflake.ID) (guild.Channel, memberView, error) {
	pc, err := s.store.PrivateChannel(ctx, channelID)
	if err != nil {
		return guild.Channel{}, memberView{}, store.NotFoundAs(err, errUnknownChannel)
	}
	if guildID != 0 {
		return guild.Channel{}, memberView{}, errUnknownChannel
	}
	if !pc.HasRecipient(user) {
		return guild.Channel{}, memberView{}, s.notRecipient(ctx, user, pc)
	}
	ch := guild.Channel{ID: pc.ID, Type: pc.Type, Name: pc.Name}
	view := memberView{private: &privateChannel{channel: ch, ownerID: pc.OwnerID},
		channels: map[snowflake.ID]guild.Channel{ch.ID: ch}}
	for _, id := range pc.Recipients {
		u, err := s.store.User(ctx, id)
		if err != nil {
			return guild.Channel{}, memberView{}, fmt.Errorf("participant %d of channel %d: %w", id, pc.ID, err)
		}
		view.private.recipients = append(view.private.recipients, u)
		if id == user {
			view.user = u
		}
	}
	if pc.Type == guild.ChannelDM {
		for _, u := range view.private.recipients {
			if u.Bot && u.ID != user {
				shares, err := s.sharesGuild(ctx, user, u.ID)
				if err != nil {
					return guild.Channel{}, memberView{}, err
				}
				view.botShares = map[snowflake.ID]bool{u.ID: shares}
			}
		}
	}
	if view.userApps, err = s.userApps(ctx, user); err != nil {
		return guild.Channel{}, memberView{}, err
	}
	return ch, view, nil
}

// sharesGuild reports whether two users are members of a guild in common.
func (s *Server) sharesGuild(ctx context.Context, a, b snowflake.ID) (bool, error) {
	ga, err := s.store.MemberGuilds(ctx, a)
	if err != nil {
		return false, err
	}
	gb, err := s.store.MemberGuilds(ctx, b)
	if err != nil {
		return false, err
	}
	for _, g := range ga {
		if slices.ContainsFunc(gb, func(h store.Guild) bool { return h.ID == g.ID }) {
			return true, nil
		}
	}
	return false, nil
}

// userApps is the set of apps the user installed to their account.
func (s *Server) userApps(ctx context.Context, user snowflake.ID) (map[snowflake.ID]bool, error) {
	ins, err := s.store.UserInstallations(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("installations of user %d: %w", user, err)
	}
	out := make(map[snowflake.ID]bool, len(ins))
	for _, in := range ins {
		out[in.ApplicationID] = true
	}
	return out, nil
}
