// Package access decides whether a user may see and use an application
// command where they are (a guild channel, a DM with the app's bot, or
// another DM or group DM), as the real service does: installation and
// interaction contexts first (spec §2.6), then in guilds Permissions v2
// (spec §1, §2.7, §2.10, §5; api-facts §7, §8). It names the rule that made
// the decision and which installations authorized the use.
//
// The package is pure: no I/O, no clock, no HTTP, no SQL. Decide is the
// simple entry point for one command. For the command picker (many
// commands, one member, one channel) compile the overwrite lists once with
// NewIndex, the member once with NewViewer, and call Viewer.Decide or
// Viewer.DecideAll; both paths run the same code and give the same answers.
//
// Decision order in a guild (the contract):
//
//  1. the app is neither installed in the guild nor by the user → deny;
//  2. contexts (non-nil) lack GUILD → deny;
//  3. installation: the guild install serves a guild command, or a global
//     one whose integration_types (nil: [GUILD_INSTALL]) hold
//     GUILD_INSTALL; the user's install serves a global command whose
//     integration_types hold USER_INSTALL; neither → deny;
//  4. nsfw command: the user must be 18+, then the channel (a thread's
//     parent) must be age-restricted → else deny;
//  5. only the user's install serves it → allow: the guild's command
//     permissions govern the guild's installation, not the user's;
//  6. guild owner → allow; ADMINISTRATOR in the guild → allow;
//  7. channel step (command-level this channel, command-level All Channels,
//     app-level this channel, app-level All Channels): false → deny; true
//     or nothing → step 8 (a channel true never grants by itself);
//  8. user/role step: command-level user, roles, @everyone decide (allow or
//     deny, an allow skipping default_member_permissions); else app-level
//     user, roles, @everyone: false → deny, true or nothing → step 9;
//  9. default_member_permissions: null → allow; "0" → deny; else allow iff
//     the member's permissions in the channel (a thread's parent) hold
//     every bit.
//
// Outside guilds (BOT_DM: the DM with the app's bot; PRIVATE_CHANNEL: any
// other DM or group DM) there are no permission lists:
//
//  1. no installation reaches the place → deny: the user's install reaches
//     every DM; a guild install reaches only the bot's DM, and only when
//     the bot shares a guild with the user; guild commands never leave
//     their guild;
//  2. the command's contexts lack the place's (contexts null: GUILD,
//     BOT_DM unless dm_permission is false, PRIVATE_CHANNEL when
//     integration_types hold USER_INSTALL) → deny;
//  3. installation as in guilds (PRIVATE_CHANNEL: the user's install only);
//  4. nsfw command: the user must be 18+, and it is never usable in a
//     PRIVATE_CHANNEL → else deny;
//  5. allow.
package access

import (
	"strconv"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// Input is everything one decision needs.
type Input struct {
	Guild   guild.Guild
	Roles   guild.Roles    // all roles of the guild, @everyone (id = guild id) included
	Member  guild.Member   // the member; Roles never lists @everyone
	Adult   bool           // the user is 18+
	Channel guild.Channel  // where the command would be used
	Parent  *guild.Channel // the channel's parent when Channel is a thread (nil otherwise)
	Command command.Command

	// Where is the interaction context (command.ContextGuild, the zero
	// value, ContextBotDM or ContextPrivateChannel). Outside guilds only
	// Member.UserID and Adult of the fields above count.
	Where int
	// Installed: in a guild, the app is installed there with
	// applications.commands (or bot); in the DM with the app's bot, the
	// bot shares a guild with the user (a guild install reaches the DM).
	Installed bool
	// UserInstalled: the user installed the app to their account.
	UserInstalled bool

	// CommandPermissions is the command-level overwrite list in this
	// guild (nil if none); AppPermissions the app-level list (id =
	// application id). A later entry for the same target replaces an
	// earlier one, as in command.ParsePermissions.
	CommandPermissions []command.Permission
	AppPermissions     []command.Permission
}

// Decision is the answer and the rule that gave it.
type Decision struct {
	Allowed bool
	Rule    Rule
	// Reason is a human sentence naming the ids involved.
	Reason string
	// Owners are the installations that authorize the use (the keys of
	// the interaction's authorizing_integration_owners); set once the
	// installation step has passed.
	Owners Owners
}

// Owners is a set of installation types.
type Owners uint8

// The installation types of Owners.
const (
	OwnerGuild Owners = 1 << command.GuildInstall // GUILD_INSTALL ("0")
	OwnerUser  Owners = 1 << command.UserInstall  // USER_INSTALL ("1")
)

// Has reports whether every type of o2 is in o.
func (o Owners) Has(o2 Owners) bool { return o&o2 == o2 }

// Rule is a stable machine code for the rule that made a decision. Each
// rule always gives the same answer (allow or deny).
type Rule string

// Rules, in decision order.
const (
	// Step 1 (deny).
	RuleNotInstalled Rule = "not_installed"
	// Step 2 (deny).
	RuleContextNotGuild          Rule = "context_not_guild"
	RuleContextNotBotDM          Rule = "context_not_bot_dm"
	RuleContextNotPrivateChannel Rule = "context_not_private_channel"
	// Step 3 (deny).
	RuleIntegrationNotGuildInstall Rule = "integration_not_guild_install"
	RuleIntegrationNotUserInstall  Rule = "integration_not_user_install"
	// Step 4 (deny).
	RuleNSFWUserNotAdult            Rule = "nsfw_user_not_adult"
	RuleNSFWChannelNotAgeRestricted Rule = "nsfw_channel_not_age_restricted"
	RuleNSFWPrivateChannel          Rule = "nsfw_private_channel"
	// Step 5 (allow): no guild permission lists apply.
	RuleUserInstall Rule = "user_install" // the user's install serves it
	RuleBotDM       Rule = "bot_dm"       // the guild install reaches the bot's DM
	// Step 6 (allow).
	RuleOwner         Rule = "owner"
	RuleAdministrator Rule = "administrator"
	// Step 7 (deny).
	RuleCommandChannelDeny     Rule = "command_channel_deny"
	RuleCommandAllChannelsDeny Rule = "command_all_channels_deny"
	RuleAppChannelDeny         Rule = "app_channel_deny"
	RuleAppAllChannelsDeny     Rule = "app_all_channels_deny"
	// Step 8, command level (allow or deny; an allow skips step 9).
	RuleCommandUserAllow     Rule = "command_user_allow"
	RuleCommandUserDeny      Rule = "command_user_deny"
	RuleCommandRoleAllow     Rule = "command_role_allow"
	RuleCommandRoleDeny      Rule = "command_role_deny"
	RuleCommandEveryoneAllow Rule = "command_everyone_allow"
	RuleCommandEveryoneDeny  Rule = "command_everyone_deny"
	// Step 8, app level (deny; an app-level allow only passes to step 9).
	RuleAppUserDeny     Rule = "app_user_deny"
	RuleAppRoleDeny     Rule = "app_role_deny"
	RuleAppEveryoneDeny Rule = "app_everyone_deny"
	// Step 9.
	RuleDefaultPermissionsUnset   Rule = "default_member_permissions_unset"   // allow
	RuleDefaultPermissionsZero    Rule = "default_member_permissions_zero"    // deny
	RuleDefaultPermissionsGranted Rule = "default_member_permissions_granted" // allow
	RuleDefaultPermissionsMissing Rule = "default_member_permissions_missing" // deny
	RuleDefaultPermissionsInvalid Rule = "default_member_permissions_invalid" // deny (not a bit set)
)

// allRules lists every rule with its answer, for the tests.
var allRules = map[Rule]bool{
	RuleNotInstalled: false, RuleContextNotGuild: false, RuleContextNotBotDM: false, RuleContextNotPrivateChannel: false,
	RuleIntegrationNotGuildInstall: false, RuleIntegrationNotUserInstall: false,
	RuleNSFWUserNotAdult: false, RuleNSFWChannelNotAgeRestricted: false, RuleNSFWPrivateChannel: false,
	RuleUserInstall: true, RuleBotDM: true,
	RuleOwner: true, RuleAdministrator: true,
	RuleCommandChannelDeny: false, RuleCommandAllChannelsDeny: false, RuleAppChannelDeny: false, RuleAppAllChannelsDeny: false,
	RuleCommandUserAllow: true, RuleCommandUserDeny: false, RuleCommandRoleAllow: true, RuleCommandRoleDeny: false,
	RuleCommandEveryoneAllow: true, RuleCommandEveryoneDeny: false,
	RuleAppUserDeny: false, RuleAppRoleDeny: false, RuleAppEveryoneDeny: false,
	RuleDefaultPermissionsUnset: true, RuleDefaultPermissionsZero: false, RuleDefaultPermissionsGranted: true,
	RuleDefaultPermissionsMissing: false, RuleDefaultPermissionsInvalid: false,
}

// Decide decides whether in.Member may see and use in.Command in
// in.Channel. It compiles its inputs on every call; to decide many
// commands for one member use NewIndex and NewViewer.
func Decide(in Input) Decision {
	v := NewViewer(Context{
		Guild: in.Guild, Roles: in.Roles, Member: in.Member, Adult: in.Adult,
		Channel: in.Channel, Parent: in.Parent, Where: in.Where, Installed: in.Installed, UserInstalled: in.UserInstalled,
	})
	cmd := CompileOverwrites(in.CommandPermissions)
	app := CompileOverwrites(in.AppPermissions)
	a := v.appLevel(&app)
	return v.decide(&in.Command, &cmd, &a)
}

func allow(r Rule, reason string) Decision { return Decision{Allowed: true, Rule: r, Reason: reason} }
func deny(r Rule, reason string) Decision  { return Decision{Allowed: false, Rule: r, Reason: reason} }

func has(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// msg builds a reason with appends, allocating once for the final string.
type msg []byte

func (m msg) s(x string) msg        { return append(m, x...) }
func (m msg) id(x snowflake.ID) msg { return strconv.AppendUint(m, uint64(x), 10) }

func (m msg) ints(l []int) msg {
	m = append(m, '[')
	for i, x := range l {
		if i > 0 {
			m = append(m, ' ')
		}
		m = strconv.AppendInt(m, int64(x), 10)
	}
	return append(m, ']')
}

// cmd names the command.
func (m msg) cmd(c *command.Command) msg { return m.s("command ").id(c.ID) }

// scope names the channel whose entries apply.
func (m msg) scope(v *Viewer) msg {
	m = m.s("channel ").id(v.scopeID)
	if v.scopeID != v.channelID {
		m = m.s(" (parent of thread ").id(v.channelID).s(")")
	}
	return m
}

// roles lists the member's roles that have an entry in o.
func (m msg) roles(o *Overwrites, member []snowflake.ID) msg {
	first := true
	o.eachMatch(member, func(id snowflake.ID) {
		if !first {
			m = m.s(", ")
		}
		m, first = m.id(id), false
	})
	return m
}

// via notes the app-level allow that let step 7 run.
func (m msg) via(v *Viewer, app *appLevel) msg {
	if app.member != yes {
		return m
	}
	switch app.memberKind {
	case permUser:
		return m.s(" (after the app's allow for user ").id(v.userID).s(")")
	case permRole:
		return m.s(" (after the app's allow for role ").id(app.memberID).s(")")
	default:
		return m.s(" (after the app's allow for @everyone)")
	}
}

// decide runs the decision order for one command against its compiled
// command-level list and the viewer's app-level verdicts.
func (v *Viewer) decide(c *command.Command, cmd *Overwrites, app *appLevel) Decision {
	var buf [256]byte
	m := msg(buf[:0])

	if v.where != command.ContextGuild {
		return v.decidePrivate(c, m)
	}

	// 1. Installation.
	if !v.installed && !v.userInstalled {
		return deny(RuleNotInstalled, string(m.s("application ").id(c.ApplicationID).s(" is not installed in guild ").id(v.guildID).
			s(" nor by user ").id(v.userID)))
	}

	// 2. Contexts.
	if c.Contexts != nil && !has(c.Contexts, command.ContextGuild) {
		return deny(RuleContextNotGuild, string(m.cmd(c).s("'s contexts ").ints(c.Contexts).s(" lack GUILD (0)")))
	}

	// 3. Installation types.
	owners := v.owners(c)
	if owners == 0 {
		return v.noOwner(c, m)
	}

	// 4. Age restriction: the user first, then the channel.
	if c.NSFW {
		if !v.adult {
			return deny(RuleNSFWUserNotAdult, string(m.cmd(c).s(" is age-restricted and user ").id(v.userID).s(" is not 18+"))).with(owners)
		}
		if !v.ageRestricted {
			return deny(RuleNSFWChannelNotAgeRestricted, string(m.cmd(c).s(" is age-restricted and ").scope(v).s(" is not"))).with(owners)
		}
	}

	// 5. The user's own install: the guild's lists govern only its own.
	if !owners.Has(OwnerGuild) {
		return allow(RuleUserInstall, string(m.s("user ").id(v.userID).s(" installed application ").id(c.ApplicationID).
			s("; guild ").id(v.guildID).s("'s command permissions apply to its own installation only"))).with(owners)
	}
	d := v.decideGuild(c, cmd, app, m)
	d.Owners = owners
	return d
}

// with sets the installations that authorize the use.
func (d Decision) with(o Owners) Decision { d.Owners = o; return d }

// integrationTypes is where a global command may be installed (nil: the
// default, GUILD_INSTALL only).
func integrationTypes(c *command.Command) []int {
	if c.IntegrationTypes == nil {
		return []int{command.GuildInstall}
	}
	return c.IntegrationTypes
}

// owners is the set of installations that serve command c where the viewer
// is: the guild's (in a guild: its installation; in the bot's DM: a guild
// install reaching it through a shared guild) and the user's own.
func (v *Viewer) owners(c *command.Command) Owners {
	var o Owners
	if c.GuildID != 0 { // guild commands: their guild's installation only
		if v.where == command.ContextGuild && v.installed {
			o |= OwnerGuild
		}
		return o
	}
	its := integrationTypes(c)
	if v.installed && v.where != command.ContextPrivateChannel && has(its, command.GuildInstall) {
		o |= OwnerGuild
	}
	if v.userInstalled && has(its, command.UserInstall) {
		o |= OwnerUser
	}
	return o
}

// noOwner is the installation-types denial: which installation exists,
// and what the command lacks for it.
func (v *Viewer) noOwner(c *command.Command, m msg) Decision {
	if c.GuildID != 0 {
		return deny(RuleIntegrationNotGuildInstall, string(m.s("guild ").cmd(c).s(" is served by its guild's installation only")))
	}
	if v.installed && v.where != command.ContextPrivateChannel {
		return deny(RuleIntegrationNotGuildInstall, string(m.s("global ").cmd(c).s("'s integration_types ").ints(integrationTypes(c)).
			s(" lack GUILD_INSTALL (0)").s(v.userPathMissing())))
	}
	return deny(RuleIntegrationNotUserInstall, string(m.s("global ").cmd(c).s("'s integration_types ").ints(integrationTypes(c)).
		s(" lack USER_INSTALL (1)").s(v.userPathMissing())))
}

// userPathMissing explains why the user's install does not serve either.
func (v *Viewer) userPathMissing() string {
	if v.userInstalled {
		return ""
	}
	return "; the user has not installed the app"
}

// decidePrivate decides in a DM or group DM: there are no permission
// lists, only installations, contexts and the age restriction.
func (v *Viewer) decidePrivate(c *command.Command, m msg) Decision {
	// 1. Installation.
	guildReach := v.installed && v.where == command.ContextBotDM
	if c.GuildID != 0 || (!guildReach && !v.userInstalled) {
		m = m.s("application ").id(c.ApplicationID)
		switch {
		case c.GuildID != 0:
			m = m.s("'s guild ").cmd(c).s(" is not available outside guild ").id(c.GuildID)
		case v.where == command.ContextBotDM:
			m = m.s(" is not installed by user ").id(v.userID).s(" and its bot shares no guild with them")
		default:
			m = m.s(" is not installed by user ").id(v.userID).s(" (only a user's install reaches other DMs and group DMs)")
		}
		return deny(RuleNotInstalled, string(m))
	}

	// 2. Contexts.
	if !has(contexts(c), v.where) {
		rule, name := RuleContextNotBotDM, " lack BOT_DM (1)"
		if v.where == command.ContextPrivateChannel {
			rule, name = RuleContextNotPrivateChannel, " lack PRIVATE_CHANNEL (2)"
		}
		if c.Contexts == nil {
			return deny(rule, string(m.cmd(c).s("'s default contexts ").ints(contexts(c)).s(name)))
		}
		return deny(rule, string(m.cmd(c).s("'s contexts ").ints(c.Contexts).s(name)))
	}

	// 3. Installation types.
	owners := v.owners(c)
	if owners == 0 {
		return v.noOwner(c, m)
	}

	// 4. Age restriction.
	if c.NSFW {
		if !v.adult {
			return deny(RuleNSFWUserNotAdult, string(m.cmd(c).s(" is age-restricted and user ").id(v.userID).s(" is not 18+"))).with(owners)
		}
		if v.where == command.ContextPrivateChannel {
			return deny(RuleNSFWPrivateChannel, string(m.cmd(c).s(" is age-restricted: usable in age-restricted guild channels and the app's DM only"))).with(owners)
		}
	}

	// 5. Allowed.
	if owners.Has(OwnerUser) {
		return allow(RuleUserInstall, string(m.s("user ").id(v.userID).s(" installed application ").id(c.ApplicationID))).with(owners)
	}
	return allow(RuleBotDM, string(m.s("application ").id(c.ApplicationID).s("'s bot shares a guild with user ").id(v.userID))).with(owners)
}

// contexts is where a command may be used: its contexts, or when null
// the default: GUILD; BOT_DM unless dm_permission is false (its
// deprecated equivalent); PRIVATE_CHANNEL for user-installable commands.
// A guild command is used in its guild only.
func contexts(c *command.Command) []int {
	if c.GuildID != 0 {
		return []int{command.ContextGuild}
	}
	if c.Contexts != nil {
		return c.Contexts
	}
	out := []int{command.ContextGuild}
	if c.DMPermission == nil || *c.DMPermission {
		out = append(out, command.ContextBotDM)
	}
	if has(integrationTypes(c), command.UserInstall) {
		out = append(out, command.ContextPrivateChannel)
	}
	return out
}

// decideGuild runs the guild's permission lists (steps 6 to 9) for a use
// the guild's installation serves.
func (v *Viewer) decideGuild(c *command.Command, cmd *Overwrites, app *appLevel, m msg) Decision {
	// 6. Owner and administrators.
	if v.owner {
		return allow(RuleOwner, string(m.s("user ").id(v.userID).s(" owns guild ").id(v.guildID)))
	}
	if v.admin {
		return allow(RuleAdministrator, string(m.s("user ").id(v.userID).s(" has ADMINISTRATOR in guild ").id(v.guildID)))
	}

	// 7. Channels: a false denies, a true only lets the user/role step run.
	if ok, found := cmd.channel(v.scopeID); found {
		if !ok {
			return deny(RuleCommandChannelDeny, string(m.s("denied by ").cmd(c).s("'s overwrite for ").scope(v)))
		}
	} else if ok, found := cmd.channel(v.allChannelsID); found {
		if !ok {
			return deny(RuleCommandAllChannelsDeny, string(m.s("denied by ").cmd(c).s("'s overwrite for All Channels (").id(v.allChannelsID).s(")")))
		}
	} else {
		switch app.channel {
		case no:
			return deny(RuleAppChannelDeny, string(m.s("denied by the app's overwrite for ").scope(v)))
		case noAll:
			return deny(RuleAppAllChannelsDeny, string(m.s("denied by the app's overwrite for All Channels (").id(v.allChannelsID).s(")")))
		}
	}

	// 8. Users and roles. The command level decides outright.
	if ok, found := cmd.user(v.userID); found {
		if ok {
			return allow(RuleCommandUserAllow, string(m.s("allowed by ").cmd(c).s("'s overwrite for user ").id(v.userID)))
		}
		return deny(RuleCommandUserDeny, string(m.s("denied by ").cmd(c).s("'s overwrite for user ").id(v.userID)))
	}
	if r, id := cmd.memberRoles(v.roles); r != unset {
		if r == yes {
			return allow(RuleCommandRoleAllow, string(m.s("allowed by ").cmd(c).s("'s overwrite for role ").id(id)))
		}
		return deny(RuleCommandRoleDeny, string(m.s("denied by ").cmd(c).s("'s overwrites for the member's roles ").roles(cmd, v.roles)))
	}
	if ok, found := cmd.role(v.guildID); found {
		if ok {
			return allow(RuleCommandEveryoneAllow, string(m.s("allowed by ").cmd(c).s("'s overwrite for @everyone (").id(v.guildID).s(")")))
		}
		return deny(RuleCommandEveryoneDeny, string(m.s("denied by ").cmd(c).s("'s overwrite for @everyone (").id(v.guildID).s(")")))
	}
	// The app level: a false denies, a true only lets step 9 run.
	if app.member == no {
		switch app.memberKind {
		case permUser:
			return deny(RuleAppUserDeny, string(m.s("denied by the app's overwrite for user ").id(v.userID)))
		case permRole:
			return deny(RuleAppRoleDeny, "denied by the app's overwrites for the member's roles "+app.deniedRoles)
		default:
			return deny(RuleAppEveryoneDeny, string(m.s("denied by the app's overwrite for @everyone (").id(v.guildID).s(")")))
		}
	}

	// 9. default_member_permissions.
	dmp := c.DefaultMemberPermissions
	if dmp == nil {
		return allow(RuleDefaultPermissionsUnset, string(m.cmd(c).s(" has no default_member_permissions").via(v, app)))
	}
	want, err := strconv.ParseUint(*dmp, 10, 64)
	if err != nil {
		return deny(RuleDefaultPermissionsInvalid, string(msg(strconv.AppendQuote(m.cmd(c).s("'s default_member_permissions "), *dmp)).s(" is not a permission bit set")))
	}
	if want == 0 {
		return deny(RuleDefaultPermissionsZero, string(m.cmd(c).s(`'s default_member_permissions is "0": only administrators and explicit command-level allows`).via(v, app)))
	}
	if missing := guild.Permissions(want) &^ v.perms; missing != 0 {
		return deny(RuleDefaultPermissionsMissing, string(m.s("user ").id(v.userID).s(" lacks bits ").id(snowflake.ID(missing)).s(" of ").cmd(c).
			s("'s default_member_permissions ").s(*dmp).s(" in ").scope(v).via(v, app)))
	}
	return allow(RuleDefaultPermissionsGranted, string(m.s("user ").id(v.userID).s(" has ").cmd(c).
		s("'s default_member_permissions ").s(*dmp).s(" in ").scope(v).via(v, app)))
}
