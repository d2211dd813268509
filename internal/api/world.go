package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// memberView is what deciding access for one member of one guild needs,
// read once per request.
type memberView struct {
	snap     store.Snapshot
	roles    guild.Roles
	channels map[snowflake.ID]guild.Channel
	member   guild.Member
	user     store.User
}

// errNotMember: the user is not in the guild.
var errNotMember = errors.New("not a member of the guild")

// loadMemberView reads a guild's snapshot and one member of it. It
// returns errNotMember when the user has no membership.
func (s *Server) loadMemberView(ctx context.Context, guildID, userID snowflake.ID) (memberView, error) {
	var v memberView
	snap, err := s.store.Snapshot(ctx, guildID)
	if err != nil {
		return v, fmt.Errorf("snapshot of guild %d: %w", guildID, err)
	}
	m, err := s.store.Member(ctx, guildID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return v, errNotMember
	}
	if err != nil {
		return v, err
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return v, err
	}
	v = memberView{snap: snap, member: m, user: u,
		roles: make(guild.Roles, len(snap.Roles)), channels: make(map[snowflake.ID]guild.Channel, len(snap.Channels))}
	for _, r := range snap.Roles {
		v.roles[r.ID] = r
	}
	for _, c := range snap.Channels {
		v.channels[c.ID] = c
	}
	return v, nil
}

// installed reports whether app may have commands in the guild.
func (v memberView) installed(appID snowflake.ID) bool {
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
		Channel: ch, Installed: v.installed(appID)}
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
// permission lists in the guild. A guild command shadows a global one of
// the same type and name.
func (s *Server) loadAppCommands(ctx context.Context, appID, guildID snowflake.ID) (appCommands, error) {
	app, err := s.store.Application(ctx, appID)
	if err != nil {
		return appCommands{}, err
	}
	local, err := s.store.RawCommands(ctx, command.Scope{ApplicationID: appID, GuildID: guildID})
	if err != nil {
		return appCommands{}, err
	}
	global, err := s.store.RawCommands(ctx, command.Scope{ApplicationID: appID})
	if err != nil {
		return appCommands{}, err
	}
	lists, err := s.store.GuildPermissions(ctx, appID, guildID)
	if err != nil {
		return appCommands{}, err
	}
	type key struct {
		t    command.Type
		name string
	}
	ac := appCommands{app: app, index: access.NewIndex(appID, lists)}
	shadowed := make(map[key]bool, len(local))
	for _, scope := range [][]store.RawCommand{local, global} {
		for _, rc := range scope {
			c, err := s.decodeCommand(rc)
			if err != nil {
				return appCommands{}, err
			}
			k := key{c.Type, c.Name}
			if c.GuildID == 0 && shadowed[k] {
				continue
			}
			shadowed[k] = true
			ac.commands = append(ac.commands, c)
			ac.raw = append(ac.raw, rc)
		}
	}
	return ac, nil
}

// invokerChannel reads the channel an invocation names (guildID, when
// given, must be its guild) and the user's view of its guild; the user
// must be a member who can see the channel.
func (s *Server) invokerChannel(ctx context.Context, user, channelID, guildID snowflake.ID) (guild.Channel, memberView, error) {
	ch, err := s.store.Channel(ctx, channelID)
	if err != nil {
		return guild.Channel{}, memberView{}, notFoundAs(err, errUnknownChannel)
	}
	if guildID != 0 && guildID != ch.GuildID {
		return guild.Channel{}, memberView{}, errUnknownChannel
	}
	view, err := s.loadMemberView(ctx, ch.GuildID, user)
	if errors.Is(err, errNotMember) {
		return guild.Channel{}, memberView{}, errMissingAccess
	}
	if err != nil {
		return guild.Channel{}, memberView{}, err
	}
	if !view.canView(ch) {
		return guild.Channel{}, memberView{}, errMissingAccess
	}
	return ch, view, nil
}
