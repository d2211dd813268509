package access

import (
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// The test world: guild 1000 owned by user 1; @everyone is role 1000 and
// All Channels is 999.
const (
	gID      snowflake.ID = 1000
	allChans snowflake.ID = 999
	appID    snowflake.ID = 7000
	cmdID    snowflake.ID = 5000

	// Roles.
	roleMod     snowflake.ID = 2001 // MANAGE_GUILD | MANAGE_ROLES
	roleHelper  snowflake.ID = 2002 // nothing extra
	roleAdmin   snowflake.ID = 2003 // ADMINISTRATOR
	roleKicker  snowflake.ID = 2004 // KICK_MEMBERS
	roleFriends snowflake.ID = 2005 // nothing extra
	roleUnused  snowflake.ID = 2006 // nobody has it

	// Users.
	uOwner  snowflake.ID = 1
	uPlain  snowflake.ID = 10 // no roles
	uMod    snowflake.ID = 11 // mod
	uAdmin  snowflake.ID = 12 // admin (via role)
	uHelper snowflake.ID = 13 // helper + friends
	uKicker snowflake.ID = 14 // kicker, with a member overwrite in #restricted
	uKick2  snowflake.ID = 15 // kicker, no member overwrite
	uBoth   snowflake.ID = 16 // mod + helper

	// Channels.
	chCategory   snowflake.ID = 3000 // category holding #general
	chGeneral    snowflake.ID = 3001 // no overwrites
	chRestricted snowflake.ID = 3002 // @everyone loses view/send; mod loses MANAGE_GUILD; kicker loses KICK, but user 14 gets it back
	chThread     snowflake.ID = 3003 // public thread in #restricted
	chNSFW       snowflake.ID = 3004 // age-restricted
	chNSFWThread snowflake.ID = 3005 // thread in #nsfw
	chHelpers    snowflake.ID = 3006 // helper role gains MANAGE_GUILD
	chOrphan     snowflake.ID = 3007 // a thread in #restricted given without its Parent
)

type world struct {
	guild    guild.Guild
	roles    guild.Roles
	members  map[snowflake.ID]guild.Member
	channels map[snowflake.ID]guild.Channel
}

func newWorld() *world {
	w := &world{
		guild:    guild.Guild{ID: gID, Name: "test", OwnerID: uOwner},
		roles:    guild.Roles{},
		members:  map[snowflake.ID]guild.Member{},
		channels: map[snowflake.ID]guild.Channel{},
	}
	addRole := func(id snowflake.ID, p guild.Permissions) {
		w.roles[id] = guild.Role{ID: id, GuildID: gID, Permissions: p}
	}
	addRole(gID, guild.DefaultEveryone)
	addRole(roleMod, guild.ManageGuild|guild.ManageRoles)
	addRole(roleHelper, 0)
	addRole(roleAdmin, guild.Administrator)
	addRole(roleKicker, guild.KickMembers)
	addRole(roleFriends, 0)
	addRole(roleUnused, guild.ManageGuild)

	addMember := func(id snowflake.ID, roles ...snowflake.ID) {
		w.members[id] = guild.Member{GuildID: gID, UserID: id, Roles: roles}
	}
	addMember(uOwner)
	addMember(uPlain)
	addMember(uMod, roleMod)
	addMember(uAdmin, roleAdmin)
	addMember(uHelper, roleHelper, roleFriends)
	addMember(uKicker, roleKicker)
	addMember(uKick2, roleKicker)
	addMember(uBoth, roleMod, roleHelper)

	addChannel := func(c guild.Channel) { c.GuildID = gID; w.channels[c.ID] = c }
	addChannel(guild.Channel{ID: chCategory, Type: guild.ChannelCategory, Name: "cat"})
	addChannel(guild.Channel{ID: chGeneral, Type: guild.ChannelText, Name: "general", ParentID: chCategory})
	addChannel(guild.Channel{ID: chRestricted, Type: guild.ChannelText, Name: "restricted", Overwrites: []guild.Overwrite{
		{ID: uKicker, Type: guild.OverwriteMember, Allow: guild.KickMembers}, // listed first on purpose
		{ID: roleKicker, Type: guild.OverwriteRole, Deny: guild.KickMembers},
		{ID: roleMod, Type: guild.OverwriteRole, Deny: guild.ManageGuild},
		{ID: gID, Type: guild.OverwriteRole, Deny: guild.ViewChannel | guild.SendMessages},
	}})
	addChannel(guild.Channel{ID: chThread, Type: guild.ChannelPublicThread, Name: "thread", ParentID: chRestricted})
	addChannel(guild.Channel{ID: chNSFW, Type: guild.ChannelText, Name: "nsfw", NSFW: true})
	addChannel(guild.Channel{ID: chNSFWThread, Type: guild.ChannelPublicThread, Name: "nsfw-thread", ParentID: chNSFW})
	addChannel(guild.Channel{ID: chHelpers, Type: guild.ChannelText, Name: "helpers", Overwrites: []guild.Overwrite{
		{ID: roleHelper, Type: guild.OverwriteRole, Allow: guild.ManageGuild},
	}})
	addChannel(guild.Channel{ID: chOrphan, Type: guild.ChannelPrivateThread, Name: "orphan", ParentID: chRestricted})
	return w
}

// input is user u about to use the default command (global, no contexts,
// no integration types, no default_member_permissions) in channel ch, the
// app installed and the user adult. Threads get their parent, except
// chOrphan.
func (w *world) input(u, ch snowflake.ID) Input {
	c := w.channels[ch]
	in := Input{
		Guild:     w.guild,
		Roles:     w.roles,
		Member:    w.members[u],
		Adult:     true,
		Channel:   c,
		Installed: true,
		Command: command.Command{
			ID: cmdID, Type: command.ChatInput, ApplicationID: appID, Name: "cmd", Description: "d",
			DefaultPermission: true,
		},
	}
	if guild.IsThread(c.Type) && ch != chOrphan {
		p := w.channels[c.ParentID]
		in.Parent = &p
	}
	return in
}

func perms(ps ...command.Permission) []command.Permission { return ps }

func roleP(id snowflake.ID, ok bool) command.Permission {
	return command.Permission{ID: id, Type: command.PermissionRole, Permission: ok}
}

func userP(id snowflake.ID, ok bool) command.Permission {
	return command.Permission{ID: id, Type: command.PermissionUser, Permission: ok}
}

func chanP(id snowflake.ID, ok bool) command.Permission {
	return command.Permission{ID: id, Type: command.PermissionChannel, Permission: ok}
}

func dmp(s string) *string { return &s }

func bits(p guild.Permissions) *string { s := p.String(); return &s }

// viaIndex decides in through NewIndex + NewViewer, the picker's path.
func viaIndex(in Input) Decision {
	lists := []command.GuildPermissions{{ID: appID, ApplicationID: appID, GuildID: in.Guild.ID, Permissions: in.AppPermissions}}
	if in.CommandPermissions != nil {
		lists = append(lists, command.GuildPermissions{ID: in.Command.ID, ApplicationID: appID, GuildID: in.Guild.ID, Permissions: in.CommandPermissions})
	}
	x := NewIndex(appID, lists)
	v := NewViewer(Context{Guild: in.Guild, Roles: in.Roles, Member: in.Member, Adult: in.Adult,
		Channel: in.Channel, Parent: in.Parent, Where: in.Where, Installed: in.Installed, UserInstalled: in.UserInstalled})
	return v.Decide(x, in.Command)
}
