// Package access decides whether a guild member may see and use an
// application command in a channel, as the real service's Permissions v2
// does (spec §1, §2.7, §2.10, §5; api-facts §7, §8), and names the rule
// that made the decision.
//
// The package is pure: no I/O, no clock, no HTTP, no SQL. Decide is the
// simple entry point for one command. For the command picker (many
// commands, one member, one channel) compile the overwrite lists once with
// NewIndex, the member once with NewViewer, and call Viewer.Decide or
// Viewer.DecideAll; both paths run the same code and give the same answers.
//
// Decision order (the contract):
//
//  1. the app is not installed in the guild → deny;
//  2. contexts (non-nil) lack GUILD → deny; a global command whose
//     integration_types (non-nil) lack GUILD_INSTALL → deny;
//  3. nsfw command: the user must be 18+, then the channel (a thread's
//     parent) must be age-restricted → else deny;
//  4. guild owner → allow; ADMINISTRATOR in the guild → allow;
//  5. channel step (command-level this channel, command-level All Channels,
//     app-level this channel, app-level All Channels): false → deny; true
//     or nothing → step 6 (a channel true never grants by itself);
//  6. user/role step: command-level user, roles, @everyone decide (allow or
//     deny, an allow skipping default_member_permissions); else app-level
//     user, roles, @everyone: false → deny, true or nothing → step 7;
//  7. default_member_permissions: null → allow; "0" → deny; else allow iff
//     the member's permissions in the channel (a thread's parent) hold
//     every bit.
package access

import (
	"strconv"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// Input is everything one decision needs.
type Input struct {
	Guild     guild.Guild
	Roles     guild.Roles    // all roles of the guild, @everyone (id = guild id) included
	Member    guild.Member   // the member; Roles never lists @everyone
	Adult     bool           // the user is 18+
	Channel   guild.Channel  // where the command would be used
	Parent    *guild.Channel // the channel's parent when Channel is a thread (nil otherwise)
	Installed bool           // the app is installed in the guild with applications.commands (or bot)
	Command   command.Command

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
}

// Rule is a stable machine code for the rule that made a decision. Each
// rule always gives the same answer (allow or deny).
type Rule string

// Rules, in decision order.
const (
	// Step 1 (deny).
	RuleNotInstalled Rule = "not_installed"
	// Step 2 (deny).
	RuleContextNotGuild            Rule = "context_not_guild"
	RuleIntegrationNotGuildInstall Rule = "integration_not_guild_install"
	// Step 3 (deny).
	RuleNSFWUserNotAdult            Rule = "nsfw_user_not_adult"
	RuleNSFWChannelNotAgeRestricted Rule = "nsfw_channel_not_age_restricted"
	// Step 4 (allow).
	RuleOwner         Rule = "owner"
	RuleAdministrator Rule = "administrator"
	// Step 5 (deny).
	RuleCommandChannelDeny     Rule = "command_channel_deny"
	RuleCommandAllChannelsDeny Rule = "command_all_channels_deny"
	RuleAppChannelDeny         Rule = "app_channel_deny"
	RuleAppAllChannelsDeny     Rule = "app_all_channels_deny"
	// Step 6, command level (allow or deny; an allow skips step 7).
	RuleCommandUserAllow     Rule = "command_user_allow"
	RuleCommandUserDeny      Rule = "command_user_deny"
	RuleCommandRoleAllow     Rule = "command_role_allow"
	RuleCommandRoleDeny      Rule = "command_role_deny"
	RuleCommandEveryoneAllow Rule = "command_everyone_allow"
	RuleCommandEveryoneDeny  Rule = "command_everyone_deny"
	// Step 6, app level (deny; an app-level allow only passes to step 7).
	RuleAppUserDeny     Rule = "app_user_deny"
	RuleAppRoleDeny     Rule = "app_role_deny"
	RuleAppEveryoneDeny Rule = "app_everyone_deny"
	// Step 7.
	RuleDefaultPermissionsUnset   Rule = "default_member_permissions_unset"   // allow
	RuleDefaultPermissionsZero    Rule = "default_member_permissions_zero"    // deny
	RuleDefaultPermissionsGranted Rule = "default_member_permissions_granted" // allow
	RuleDefaultPermissionsMissing Rule = "default_member_permissions_missing" // deny
	RuleDefaultPermissionsInvalid Rule = "default_member_permissions_invalid" // deny (not a bit set)
)

// allRules lists every rule with its answer, for the tests.
var allRules = map[Rule]bool{
	RuleNotInstalled: false, RuleContextNotGuild: false, RuleIntegrationNotGuildInstall: false,
	RuleNSFWUserNotAdult: false, RuleNSFWChannelNotAgeRestricted: false,
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
		Channel: in.Channel, Parent: in.Parent, Installed: in.Installed,
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

	// 1. Installation.
	if !v.installed {
		return deny(RuleNotInstalled, string(m.s("application ").id(c.ApplicationID).s(" is not installed in guild ").id(v.guildID)))
	}

	// 2. Contexts and integration types.
	if c.Contexts != nil && !has(c.Contexts, command.ContextGuild) {
		return deny(RuleContextNotGuild, string(m.cmd(c).s("'s contexts ").ints(c.Contexts).s(" lack GUILD (0)")))
	}
	if c.GuildID == 0 && c.IntegrationTypes != nil && !has(c.IntegrationTypes, command.GuildInstall) {
		return deny(RuleIntegrationNotGuildInstall, string(m.s("global ").cmd(c).s("'s integration_types ").ints(c.IntegrationTypes).s(" lack GUILD_INSTALL (0)")))
	}

	// 3. Age restriction: the user first, then the channel.
	if c.NSFW {
		if !v.adult {
			return deny(RuleNSFWUserNotAdult, string(m.cmd(c).s(" is age-restricted and user ").id(v.userID).s(" is not 18+")))
		}
		if !v.ageRestricted {
			return deny(RuleNSFWChannelNotAgeRestricted, string(m.cmd(c).s(" is age-restricted and ").scope(v).s(" is not")))
		}
	}

	// 4. Owner and administrators.
	if v.owner {
		return allow(RuleOwner, string(m.s("user ").id(v.userID).s(" owns guild ").id(v.guildID)))
	}
	if v.admin {
		return allow(RuleAdministrator, string(m.s("user ").id(v.userID).s(" has ADMINISTRATOR in guild ").id(v.guildID)))
	}

	// 5. Channels: a false denies, a true only lets the user/role step run.
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

	// 6. Users and roles. The command level decides outright.
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
	// The app level: a false denies, a true only lets step 7 run.
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

	// 7. default_member_permissions.
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
