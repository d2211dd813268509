package access

import (
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

type decideCase struct {
	name    string
	rule    Rule // the rule the case exercises (and must end on)
	allowed bool
	user    snowflake.ID
	channel snowflake.ID
	reason  string // substring the reason must hold ("" = none checked)
	setup   func(in *Input)
}

var decideCases = []decideCase{
	// 1. Installation.
	{name: "app not installed", rule: RuleNotInstalled, user: uPlain, channel: chGeneral, reason: "application 7000",
		setup: func(in *Input) { in.Installed = false }},
	{name: "not installed beats owner", rule: RuleNotInstalled, user: uOwner, channel: chGeneral,
		setup: func(in *Input) { in.Installed = false }},

	// 2. Contexts and integration types.
	{name: "contexts nil means all", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral},
	{name: "contexts [0]", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.Contexts = []int{0} }},
	{name: "contexts [0,1,2]", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.Contexts = []int{0, 1, 2} }},
	{name: "contexts [1,2] lack GUILD", rule: RuleContextNotGuild, user: uPlain, channel: chGeneral, reason: "[1 2]",
		setup: func(in *Input) { in.Command.Contexts = []int{1, 2} }},
	{name: "contexts empty but non-nil", rule: RuleContextNotGuild, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.Contexts = []int{} }},
	{name: "admin does not bypass contexts", rule: RuleContextNotGuild, user: uAdmin, channel: chGeneral,
		setup: func(in *Input) { in.Command.Contexts = []int{1} }},
	{name: "owner does not bypass contexts", rule: RuleContextNotGuild, user: uOwner, channel: chGeneral,
		setup: func(in *Input) { in.Command.Contexts = []int{2} }},
	{name: "integration_types [1] on a global command", rule: RuleIntegrationNotGuildInstall, user: uPlain, channel: chGeneral, reason: "GUILD_INSTALL",
		setup: func(in *Input) { in.Command.IntegrationTypes = []int{command.UserInstall} }},
	{name: "integration_types [1] ignored on a guild command", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.GuildID = gID; in.Command.IntegrationTypes = []int{command.UserInstall} }},
	{name: "integration_types [0,1]", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.IntegrationTypes = []int{0, 1} }},
	{name: "admin does not bypass integration_types", rule: RuleIntegrationNotGuildInstall, user: uAdmin, channel: chGeneral,
		setup: func(in *Input) { in.Command.IntegrationTypes = []int{1} }},

	// Installations: the user's own install (spec §2.6; the real service's
	// "developing a user-installable app" tutorial).
	{name: "user install only, command [0,1]: the guild's lists do not apply", rule: RuleUserInstall, allowed: true, user: uPlain, channel: chRestricted,
		reason: "user 10 installed application 7000",
		setup: func(in *Input) {
			in.Installed, in.UserInstalled = false, true
			in.Command.IntegrationTypes = []int{0, 1}
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(chanP(chRestricted, false), userP(uPlain, false))
		}},
	{name: "user install only, command [0]", rule: RuleIntegrationNotUserInstall, user: uPlain, channel: chGeneral, reason: "lack USER_INSTALL (1)",
		setup: func(in *Input) { in.Installed, in.UserInstalled = false, true }},
	{name: "user install only, guild command", rule: RuleIntegrationNotGuildInstall, user: uPlain, channel: chGeneral, reason: "its guild's installation only",
		setup: func(in *Input) {
			in.Installed, in.UserInstalled = false, true
			in.Command.GuildID, in.Command.IntegrationTypes = gID, []int{1}
		}},
	{name: "guild install, command [1], no user install", rule: RuleIntegrationNotGuildInstall, user: uPlain, channel: chGeneral, reason: "has not installed the app",
		setup: func(in *Input) { in.Command.IntegrationTypes = []int{1} }},
	{name: "both installs, command [1]: the user's install serves it", rule: RuleUserInstall, allowed: true, user: uPlain, channel: chRestricted,
		setup: func(in *Input) {
			in.UserInstalled = true
			in.Command.IntegrationTypes = []int{1}
			in.CommandPermissions = perms(userP(uPlain, false))
		}},
	{name: "both installs, command [0,1]: the guild's lists decide", rule: RuleCommandUserDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.UserInstalled = true
			in.Command.IntegrationTypes = []int{0, 1}
			in.CommandPermissions = perms(userP(uPlain, false))
		}},
	{name: "user install, nsfw, plain channel", rule: RuleNSFWChannelNotAgeRestricted, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Installed, in.UserInstalled = false, true
			in.Command.IntegrationTypes, in.Command.NSFW = []int{1}, true
		}},

	// Outside guilds: the app's DM (BOT_DM) and other DMs and group DMs
	// (PRIVATE_CHANNEL).
	{name: "bot DM, guild install with a shared guild", rule: RuleBotDM, allowed: true, user: uPlain, reason: "shares a guild with user 10",
		setup: func(in *Input) { in.Where = command.ContextBotDM; in.Command.DefaultMemberPermissions = dmp("0") }},
	{name: "bot DM, no shared guild, no user install", rule: RuleNotInstalled, user: uPlain, reason: "shares no guild",
		setup: func(in *Input) { in.Where, in.Installed = command.ContextBotDM, false }},
	{name: "bot DM, user install, no shared guild", rule: RuleUserInstall, allowed: true, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.Installed, in.UserInstalled = command.ContextBotDM, false, true
			in.Command.IntegrationTypes = []int{1}
		}},
	{name: "bot DM, dm_permission false (contexts null)", rule: RuleContextNotBotDM, user: uPlain, reason: "default contexts [0]",
		setup: func(in *Input) { f := false; in.Where, in.Command.DMPermission = command.ContextBotDM, &f }},
	{name: "bot DM, contexts [0,2]", rule: RuleContextNotBotDM, user: uPlain, reason: "contexts [0 2] lack BOT_DM (1)",
		setup: func(in *Input) {
			in.Where, in.UserInstalled, in.Command.Contexts = command.ContextBotDM, true, []int{0, 2}
		}},
	{name: "bot DM, contexts set: dm_permission false is not read", rule: RuleBotDM, allowed: true, user: uPlain,
		setup: func(in *Input) {
			f := false
			in.Where, in.Command.DMPermission, in.Command.Contexts = command.ContextBotDM, &f, []int{1}
		}},
	{name: "bot DM, guild command never", rule: RuleNotInstalled, user: uPlain, reason: "not available outside guild",
		setup: func(in *Input) { in.Where, in.UserInstalled, in.Command.GuildID = command.ContextBotDM, true, gID }},
	{name: "bot DM, shared guild, command [1] without user install", rule: RuleIntegrationNotGuildInstall, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.Command.IntegrationTypes, in.Command.Contexts = command.ContextBotDM, []int{1}, []int{0, 1, 2}
		}},
	{name: "bot DM, nsfw, adult", rule: RuleBotDM, allowed: true, user: uPlain,
		setup: func(in *Input) { in.Where, in.Command.NSFW = command.ContextBotDM, true }},
	{name: "bot DM, nsfw, minor", rule: RuleNSFWUserNotAdult, user: uPlain,
		setup: func(in *Input) { in.Where, in.Command.NSFW, in.Adult = command.ContextBotDM, true, false }},
	{name: "private channel, user install", rule: RuleUserInstall, allowed: true, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.Installed, in.UserInstalled = command.ContextPrivateChannel, false, true
			in.Command.IntegrationTypes = []int{0, 1}
		}},
	{name: "private channel, guild install only", rule: RuleNotInstalled, user: uPlain, reason: "only a user's install",
		setup: func(in *Input) { in.Where = command.ContextPrivateChannel; in.Command.IntegrationTypes = []int{0, 1} }},
	{name: "private channel, contexts null, command [0] of a user-installed app", rule: RuleContextNotPrivateChannel, user: uPlain,
		reason: "default contexts [0 1] lack PRIVATE_CHANNEL (2)",
		setup:  func(in *Input) { in.Where, in.UserInstalled = command.ContextPrivateChannel, true }},
	{name: "private channel, contexts [2], command [0]", rule: RuleIntegrationNotUserInstall, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.UserInstalled, in.Command.Contexts = command.ContextPrivateChannel, true, []int{2}
		}},
	{name: "private channel, contexts [0,1]", rule: RuleContextNotPrivateChannel, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.UserInstalled = command.ContextPrivateChannel, true
			in.Command.IntegrationTypes, in.Command.Contexts = []int{1}, []int{0, 1}
		}},
	{name: "private channel, nsfw, adult", rule: RuleNSFWPrivateChannel, user: uPlain,
		setup: func(in *Input) {
			in.Where, in.UserInstalled = command.ContextPrivateChannel, true
			in.Command.IntegrationTypes, in.Command.NSFW = []int{1}, true
		}},

	// 3. Age restriction.
	{name: "nsfw: adult in nsfw channel", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chNSFW,
		setup: func(in *Input) { in.Command.NSFW = true }},
	{name: "nsfw: minor in nsfw channel", rule: RuleNSFWUserNotAdult, user: uPlain, channel: chNSFW, reason: "user 10",
		setup: func(in *Input) { in.Command.NSFW = true; in.Adult = false }},
	{name: "nsfw: adult in plain channel", rule: RuleNSFWChannelNotAgeRestricted, user: uPlain, channel: chGeneral, reason: "channel 3001",
		setup: func(in *Input) { in.Command.NSFW = true }},
	{name: "nsfw: minor in plain channel (user checked first)", rule: RuleNSFWUserNotAdult, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.Command.NSFW = true; in.Adult = false }},
	{name: "nsfw: adult in thread under nsfw parent", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chNSFWThread,
		setup: func(in *Input) { in.Command.NSFW = true }},
	{name: "nsfw: minor in thread under nsfw parent", rule: RuleNSFWUserNotAdult, user: uPlain, channel: chNSFWThread,
		setup: func(in *Input) { in.Command.NSFW = true; in.Adult = false }},
	{name: "nsfw: thread's own flag does not count, its parent's does", rule: RuleNSFWChannelNotAgeRestricted, user: uPlain, channel: chThread,
		reason: "channel 3002 (parent of thread 3003)",
		setup:  func(in *Input) { in.Command.NSFW = true; in.Channel.NSFW = true }},
	{name: "nsfw: admin minor is not let in", rule: RuleNSFWUserNotAdult, user: uAdmin, channel: chNSFW,
		setup: func(in *Input) { in.Command.NSFW = true; in.Adult = false }},
	{name: "nsfw: owner in plain channel is not let in", rule: RuleNSFWChannelNotAgeRestricted, user: uOwner, channel: chGeneral,
		setup: func(in *Input) { in.Command.NSFW = true }},
	{name: "not nsfw: minor anywhere", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chNSFW,
		setup: func(in *Input) { in.Adult = false }},

	// 4. Owner and administrators.
	{name: "owner beats every overwrite and dmp 0", rule: RuleOwner, allowed: true, user: uOwner, channel: chRestricted, reason: "user 1 owns guild 1000",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(chanP(chRestricted, false), userP(uOwner, false))
		}},
	{name: "administrator via role beats every overwrite and dmp 0", rule: RuleAdministrator, allowed: true, user: uAdmin, channel: chRestricted, reason: "user 12",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(chanP(allChans, false), roleP(roleAdmin, false))
			in.AppPermissions = perms(userP(uAdmin, false))
		}},
	{name: "administrator via @everyone", rule: RuleAdministrator, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Roles = cloneRoles(in.Roles)
			in.Roles[gID] = guild.Role{ID: gID, Permissions: guild.Administrator}
			in.Command.DefaultMemberPermissions = dmp("0")
		}},

	// 5. Channels.
	{name: "command channel false", rule: RuleCommandChannelDeny, user: uPlain, channel: chGeneral, reason: "channel 3001",
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(chGeneral, false)) }},
	{name: "command channel true does not grant: user false still denies", rule: RuleCommandUserDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(chGeneral, true), userP(uPlain, false)) }},
	{name: "command channel true does not grant: dmp 0 still denies", rule: RuleDefaultPermissionsZero, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(chanP(chGeneral, true))
		}},
	{name: "command channel true wins over command All Channels false", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(allChans, false), chanP(chGeneral, true)) }},
	{name: "command All Channels false", rule: RuleCommandAllChannelsDeny, user: uPlain, channel: chGeneral, reason: "All Channels (999)",
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(allChans, false)) }},
	{name: "command All Channels true hides app channel false", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(chanP(allChans, true))
			in.AppPermissions = perms(chanP(chGeneral, false))
		}},
	{name: "command entry for another channel is ignored", rule: RuleAppChannelDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(chanP(chHelpers, true))
			in.AppPermissions = perms(chanP(chGeneral, false))
		}},
	{name: "app channel false", rule: RuleAppChannelDeny, user: uPlain, channel: chGeneral, reason: "the app's overwrite for channel 3001",
		setup: func(in *Input) { in.AppPermissions = perms(chanP(chGeneral, false)) }},
	{name: "app All Channels false", rule: RuleAppAllChannelsDeny, user: uPlain, channel: chGeneral, reason: "999",
		setup: func(in *Input) { in.AppPermissions = perms(chanP(allChans, false)) }},
	{name: "app channel true wins over app All Channels false", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.AppPermissions = perms(chanP(allChans, false), chanP(chGeneral, true)) }},
	{name: "app channel true does not grant: dmp 0", rule: RuleDefaultPermissionsZero, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.AppPermissions = perms(chanP(chGeneral, true))
		}},
	{name: "channel before user: command channel false beats command user true", rule: RuleCommandChannelDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(userP(uPlain, true), chanP(chGeneral, false)) }},
	{name: "channel before user: app All Channels false beats command user true", rule: RuleAppAllChannelsDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(userP(uPlain, true))
			in.AppPermissions = perms(chanP(allChans, false))
		}},
	{name: "thread: command entry for the parent applies", rule: RuleCommandChannelDeny, user: uPlain, channel: chThread, reason: "channel 3002 (parent of thread 3003)",
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(chRestricted, false)) }},
	{name: "thread: app entry for the parent applies", rule: RuleAppChannelDeny, user: uPlain, channel: chNSFWThread,
		setup: func(in *Input) { in.AppPermissions = perms(chanP(chNSFW, false)) }},
	{name: "thread: entry for the thread itself is not consulted", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chThread,
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(chThread, false)) }},
	{name: "thread without Parent: ParentID still picks the entry", rule: RuleCommandChannelDeny, user: uPlain, channel: chOrphan,
		setup: func(in *Input) { in.CommandPermissions = perms(chanP(chRestricted, false)) }},
	{name: "category entry does not cover its channels", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(chanP(chCategory, false))
			in.AppPermissions = perms(chanP(chCategory, false))
		}},

	// 6. Users and roles, command level.
	{name: "surprise: command user true bypasses dmp 0", rule: RuleCommandUserAllow, allowed: true, user: uPlain, channel: chGeneral, reason: "user 10",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(userP(uPlain, true))
		}},
	{name: "command user true bypasses missing dmp bits", rule: RuleCommandUserAllow, allowed: true, user: uPlain, channel: chRestricted,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = bits(guild.ManageGuild)
			in.CommandPermissions = perms(userP(uPlain, true))
		}},
	{name: "command user false beats command role true", rule: RuleCommandUserDeny, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(roleP(roleMod, true), userP(uMod, false)) }},
	{name: "command user entry for another user is ignored", rule: RuleCommandEveryoneDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(userP(uMod, true), roleP(gID, false)) }},
	{name: "command role: one of the member's roles true", rule: RuleCommandRoleAllow, allowed: true, user: uHelper, channel: chGeneral, reason: "role 2005",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(roleP(roleHelper, false), roleP(roleFriends, true))
		}},
	{name: "command role: all of the member's roles false", rule: RuleCommandRoleDeny, user: uHelper, channel: chGeneral, reason: "2002, 2005",
		setup: func(in *Input) {
			in.CommandPermissions = perms(roleP(roleHelper, false), roleP(roleFriends, false), roleP(roleMod, true))
		}},
	{name: "command role false beats command @everyone true", rule: RuleCommandRoleDeny, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(roleP(gID, true), roleP(roleMod, false)) }},
	{name: "command role entry for a role the member lacks falls through", rule: RuleCommandEveryoneAllow, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(roleP(roleMod, false), roleP(gID, true)) }},
	{name: "command @everyone true bypasses dmp 0", rule: RuleCommandEveryoneAllow, allowed: true, user: uPlain, channel: chGeneral, reason: "@everyone (1000)",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.CommandPermissions = perms(roleP(gID, true))
		}},
	{name: "command @everyone false", rule: RuleCommandEveryoneDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(roleP(gID, false)) }},
	{name: "command @everyone false beats app user true", rule: RuleCommandEveryoneDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(roleP(gID, false))
			in.AppPermissions = perms(userP(uPlain, true))
		}},
	{name: "command role allow overrides app user deny", rule: RuleCommandRoleAllow, allowed: true, user: uMod, channel: chGeneral,
		setup: func(in *Input) {
			in.CommandPermissions = perms(roleP(roleMod, true))
			in.AppPermissions = perms(userP(uMod, false))
		}},
	{name: "USER entry with the guild's id is not @everyone", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(userP(gID, false)) }},
	{name: "@everyone listed among the member's roles still counts as @everyone", rule: RuleCommandEveryoneDeny, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Member.Roles = []snowflake.ID{gID}
			in.CommandPermissions = perms(roleP(gID, false))
		}},
	{name: "duplicate entries: the last wins", rule: RuleCommandUserAllow, allowed: true, user: uPlain, channel: chGeneral,
		setup: func(in *Input) { in.CommandPermissions = perms(userP(uPlain, false), userP(uPlain, true)) }},

	// 6. Users and roles, app level.
	{name: "app user false", rule: RuleAppUserDeny, user: uPlain, channel: chGeneral, reason: "user 10",
		setup: func(in *Input) { in.AppPermissions = perms(userP(uPlain, false)) }},
	{name: "surprise: app user true does not bypass dmp 0", rule: RuleDefaultPermissionsZero, user: uPlain, channel: chGeneral, reason: "after the app's allow for user 10",
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.AppPermissions = perms(userP(uPlain, true))
		}},
	{name: "surprise: app @everyone true does not bypass dmp 0 (#5356)", rule: RuleDefaultPermissionsZero, user: uPlain, channel: chGeneral,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = dmp("0")
			in.AppPermissions = perms(roleP(gID, true))
		}},
	{name: "app role true does not bypass missing dmp bits", rule: RuleDefaultPermissionsMissing, user: uHelper, channel: chGeneral,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = bits(guild.ManageGuild)
			in.AppPermissions = perms(roleP(roleHelper, true))
		}},
	{name: "app roles all false", rule: RuleAppRoleDeny, user: uHelper, channel: chGeneral, reason: "2002, 2005",
		setup: func(in *Input) { in.AppPermissions = perms(roleP(roleHelper, false), roleP(roleFriends, false)) }},
	{name: "app role: one true passes to dmp", rule: RuleDefaultPermissionsUnset, allowed: true, user: uHelper, channel: chGeneral, reason: "after the app's allow for role 2002",
		setup: func(in *Input) { in.AppPermissions = perms(roleP(roleHelper, true), roleP(roleFriends, false)) }},
	{name: "app user true beats app role false", rule: RuleDefaultPermissionsUnset, allowed: true, user: uHelper, channel: chGeneral,
		setup: func(in *Input) { in.AppPermissions = perms(roleP(roleHelper, false), userP(uHelper, true)) }},
	{name: "app @everyone false", rule: RuleAppEveryoneDeny, user: uPlain, channel: chGeneral, reason: "@everyone (1000)",
		setup: func(in *Input) { in.AppPermissions = perms(roleP(gID, false)) }},
	{name: "app role true beats app @everyone false", rule: RuleDefaultPermissionsUnset, allowed: true, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.AppPermissions = perms(roleP(gID, false), roleP(roleMod, true)) }},
	{name: "app @everyone true passes to dmp", rule: RuleDefaultPermissionsGranted, allowed: true, user: uMod, channel: chGeneral,
		setup: func(in *Input) {
			in.Command.DefaultMemberPermissions = bits(guild.ManageGuild)
			in.AppPermissions = perms(roleP(gID, true))
		}},

	// 7. default_member_permissions.
	{name: "dmp null", rule: RuleDefaultPermissionsUnset, allowed: true, user: uPlain, channel: chRestricted},
	{name: "dmp 0", rule: RuleDefaultPermissionsZero, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = dmp("0") }},
	{name: "dmp MANAGE_GUILD via a role", rule: RuleDefaultPermissionsGranted, allowed: true, user: uMod, channel: chGeneral, reason: "channel 3001",
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp MANAGE_GUILD|MANAGE_ROLES via a role", rule: RuleDefaultPermissionsGranted, allowed: true, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild | guild.ManageRoles) }},
	{name: "dmp MANAGE_GUILD without it", rule: RuleDefaultPermissionsMissing, user: uPlain, channel: chGeneral, reason: "lacks bits 32",
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp needs every bit", rule: RuleDefaultPermissionsMissing, user: uMod, channel: chGeneral, reason: "lacks bits 16",
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild | guild.ManageChannels) }},
	{name: "dmp: role grants MANAGE_GUILD, channel overwrite denies it", rule: RuleDefaultPermissionsMissing, user: uMod, channel: chRestricted,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp: thread inherits its parent's overwrites", rule: RuleDefaultPermissionsMissing, user: uMod, channel: chThread, reason: "channel 3002 (parent of thread 3003)",
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp: thread inherits @everyone's view deny", rule: RuleDefaultPermissionsMissing, user: uPlain, channel: chThread,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ViewChannel) }},
	{name: "dmp: thread under a parent without overwrites keeps the role's bit", rule: RuleDefaultPermissionsGranted, allowed: true, user: uMod, channel: chNSFWThread,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp: channel overwrite grants the bit", rule: RuleDefaultPermissionsGranted, allowed: true, user: uHelper, channel: chHelpers,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ManageGuild) }},
	{name: "dmp: member overwrite beats role overwrite", rule: RuleDefaultPermissionsGranted, allowed: true, user: uKicker, channel: chRestricted,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.KickMembers) }},
	{name: "dmp: role overwrite denies without a member overwrite", rule: RuleDefaultPermissionsMissing, user: uKick2, channel: chRestricted,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.KickMembers) }},
	{name: "dmp: @everyone overwrite denies VIEW_CHANNEL", rule: RuleDefaultPermissionsMissing, user: uPlain, channel: chRestricted,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = bits(guild.ViewChannel) }},
	{name: "dmp with bit 53 (valid up to 2^54-1) nobody has", rule: RuleDefaultPermissionsMissing, user: uMod, channel: chGeneral,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = dmp("9007199254740992") }},
	{name: "dmp not a number", rule: RuleDefaultPermissionsInvalid, user: uMod, channel: chGeneral, reason: `"abc"`,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = dmp("abc") }},
	{name: "dmp of an admin is never read", rule: RuleAdministrator, allowed: true, user: uAdmin, channel: chGeneral,
		setup: func(in *Input) { in.Command.DefaultMemberPermissions = dmp("abc") }},
}

func cloneRoles(r guild.Roles) guild.Roles {
	out := make(guild.Roles, len(r))
	for k, v := range r {
		out[k] = v
	}
	return out
}

func TestDecide(t *testing.T) {
	w := newWorld()
	for _, tc := range decideCases {
		t.Run(tc.name, func(t *testing.T) {
			in := w.input(tc.user, tc.channel)
			if tc.setup != nil {
				tc.setup(&in)
			}
			got := Decide(in)
			if got.Rule != tc.rule || got.Allowed != tc.allowed {
				t.Fatalf("Decide = %v %q (%s), want %v %q", got.Allowed, got.Rule, got.Reason, tc.allowed, tc.rule)
			}
			if got.Reason == "" || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("reason %q does not hold %q", got.Reason, tc.reason)
			}
			if alt := viaIndex(in); alt != got {
				t.Errorf("Index path = %+v, Decide = %+v", alt, got)
			}
			if ok, rule := reference(in); ok != got.Allowed || rule != got.Rule {
				t.Errorf("reference = %v %q", ok, rule)
			}
		})
	}
}

func TestDecideCases(t *testing.T) {
	if len(decideCases) < 40 {
		t.Fatalf("%d cases, want at least 40", len(decideCases))
	}
	seen := map[Rule]bool{}
	for _, tc := range decideCases {
		answer, known := allRules[tc.rule]
		if !known {
			t.Errorf("case %q: unknown rule %q", tc.name, tc.rule)
		}
		if answer != tc.allowed {
			t.Errorf("case %q: rule %q always answers %v", tc.name, tc.rule, answer)
		}
		seen[tc.rule] = true
	}
	for r := range allRules {
		if !seen[r] {
			t.Errorf("no case exercises rule %q", r)
		}
	}
}

func TestDecideAll(t *testing.T) {
	w := newWorld()
	base := w.input(uPlain, chThread)
	var cmds []command.Command
	var lists []command.GuildPermissions
	var want []Decision
	for i, tc := range decideCases {
		if tc.user != uPlain || tc.channel != chGeneral {
			continue
		}
		in := base
		in.Channel = w.channels[chGeneral]
		in.Parent = nil
		if tc.setup != nil {
			tc.setup(&in)
		}
		if in.Installed != base.Installed || in.UserInstalled || in.Where != 0 || in.Adult != base.Adult || in.AppPermissions != nil {
			continue // not per command
		}
		// Keep only the per-command part of the case.
		in.Roles, in.Member, in.Channel = w.roles, w.members[uPlain], w.channels[chGeneral]
		in.Command.ID = cmdID + snowflake.ID(i)
		cmds = append(cmds, in.Command)
		if in.CommandPermissions != nil {
			lists = append(lists, command.GuildPermissions{ID: in.Command.ID, Permissions: in.CommandPermissions})
		}
		want = append(want, Decide(in))
	}
	if len(cmds) < 3 {
		t.Fatalf("only %d commands", len(cmds))
	}
	lists = append(lists, command.GuildPermissions{ID: appID, Permissions: perms(roleP(roleUnused, false))})
	ctx := Context{Guild: w.guild, Roles: w.roles, Member: w.members[uPlain], Adult: true, Channel: w.channels[chGeneral], Installed: true}
	got := NewViewer(ctx).DecideAll(NewIndex(appID, lists), cmds, nil)
	if len(got) != len(want) {
		t.Fatalf("%d decisions, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("command %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// A nil index is "no lists".
	if d := NewViewer(ctx).Decide(nil, cmds[0]); d.Rule != RuleDefaultPermissionsUnset {
		t.Errorf("nil index: %+v", d)
	}
}

func TestCompileOverwrites(t *testing.T) {
	o := CompileOverwrites(perms(
		roleP(3, true), userP(3, false), chanP(3, true), roleP(1, false), roleP(3, false),
		command.Permission{ID: 9, Type: 7, Permission: true}, userP(2, true),
	))
	if o.Len() != 5 {
		t.Fatalf("Len = %d, want 5", o.Len())
	}
	if ok, found := o.role(3); !found || ok {
		t.Errorf("role 3 = %v %v, want the last (false)", ok, found)
	}
	if _, found := o.role(9); found {
		t.Errorf("unknown type kept")
	}
	if ok, found := o.user(3); !found || ok {
		t.Errorf("user 3 = %v %v", ok, found)
	}
	if ok, found := o.channel(3); !found || !ok {
		t.Errorf("channel 3 = %v %v", ok, found)
	}
	if v, _ := o.memberRoles([]snowflake.ID{1, 2, 3}); v != no {
		t.Errorf("memberRoles = %v, want no", v)
	}
	o2 := CompileOverwrites(perms(roleP(5, true), roleP(2, false)))
	if v, id := o2.memberRoles([]snowflake.ID{2, 5}); v != yes || id != 5 {
		t.Errorf("memberRoles = %v %d, want yes 5", v, id)
	}
	var zero Overwrites
	if v, _ := zero.memberRoles([]snowflake.ID{1}); v != unset || zero.Len() != 0 {
		t.Errorf("zero Overwrites not empty")
	}
}

// reference is a literal transcription of the decision order with linear
// scans (the last matching entry wins), to check the compiled path.
func reference(in Input) (bool, Rule) {
	c := in.Command
	lookup := func(l []command.Permission, t command.PermissionType, id snowflake.ID) (ok, found bool) {
		for _, p := range l {
			if p.Type == t && p.ID == id {
				ok, found = p.Permission, true
			}
		}
		return
	}
	roles := func(l []command.Permission) (any, all bool) {
		seen := map[snowflake.ID]bool{}
		for _, r := range in.Member.Roles {
			if r == in.Guild.ID || seen[r] {
				continue
			}
			seen[r] = true
			if ok, found := lookup(l, command.PermissionRole, r); found {
				all = true // "some entry matched"
				if ok {
					return true, true
				}
			}
		}
		return false, all
	}
	contains := func(l []int, v int) bool {
		for _, x := range l {
			if x == v {
				return true
			}
		}
		return false
	}
	its := c.IntegrationTypes
	if its == nil {
		its = []int{0}
	}
	if in.Where != 0 {
		return referencePrivate(in, its, contains)
	}
	if !in.Installed && !in.UserInstalled {
		return false, RuleNotInstalled
	}
	if c.Contexts != nil && !contains(c.Contexts, 0) {
		return false, RuleContextNotGuild
	}
	guildOwner := in.Installed && (c.GuildID != 0 || contains(its, 0))
	userOwner := in.UserInstalled && c.GuildID == 0 && contains(its, 1)
	if !guildOwner && !userOwner {
		if in.Installed || c.GuildID != 0 {
			return false, RuleIntegrationNotGuildInstall
		}
		return false, RuleIntegrationNotUserInstall
	}
	ch := in.Channel
	scope, nsfw := ch.ID, ch.NSFW
	if guild.IsThread(ch.Type) {
		nsfw = false
		if ch.ParentID != 0 {
			scope = ch.ParentID
		}
		if in.Parent != nil {
			ch, scope, nsfw = *in.Parent, in.Parent.ID, in.Parent.NSFW
		}
	}
	if c.NSFW && !in.Adult {
		return false, RuleNSFWUserNotAdult
	}
	if c.NSFW && !nsfw {
		return false, RuleNSFWChannelNotAgeRestricted
	}
	if !guildOwner {
		return true, RuleUserInstall
	}
	if in.Member.UserID == in.Guild.OwnerID {
		return true, RuleOwner
	}
	if guild.BasePermissions(in.Guild, in.Roles, in.Member)&guild.Administrator != 0 {
		return true, RuleAdministrator
	}
	all := in.Guild.ID - 1
	cp, ap := in.CommandPermissions, in.AppPermissions
	if ok, found := lookup(cp, command.PermissionChannel, scope); found {
		if !ok {
			return false, RuleCommandChannelDeny
		}
	} else if ok, found := lookup(cp, command.PermissionChannel, all); found {
		if !ok {
			return false, RuleCommandAllChannelsDeny
		}
	} else if ok, found := lookup(ap, command.PermissionChannel, scope); found {
		if !ok {
			return false, RuleAppChannelDeny
		}
	} else if ok, found := lookup(ap, command.PermissionChannel, all); found {
		if !ok {
			return false, RuleAppAllChannelsDeny
		}
	}
	if ok, found := lookup(cp, command.PermissionUser, in.Member.UserID); found {
		if ok {
			return true, RuleCommandUserAllow
		}
		return false, RuleCommandUserDeny
	}
	if ok, found := roles(cp); found {
		if ok {
			return true, RuleCommandRoleAllow
		}
		return false, RuleCommandRoleDeny
	}
	if ok, found := lookup(cp, command.PermissionRole, in.Guild.ID); found {
		if ok {
			return true, RuleCommandEveryoneAllow
		}
		return false, RuleCommandEveryoneDeny
	}
	if ok, found := lookup(ap, command.PermissionUser, in.Member.UserID); found {
		if !ok {
			return false, RuleAppUserDeny
		}
	} else if ok, found := roles(ap); found {
		if !ok {
			return false, RuleAppRoleDeny
		}
	} else if ok, found := lookup(ap, command.PermissionRole, in.Guild.ID); found && !ok {
		return false, RuleAppEveryoneDeny
	}
	if c.DefaultMemberPermissions == nil {
		return true, RuleDefaultPermissionsUnset
	}
	var want uint64
	s := *c.DefaultMemberPermissions
	if s == "" {
		return false, RuleDefaultPermissionsInvalid
	}
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if s[i] < '0' || s[i] > '9' || want > (1<<64-1-d)/10 {
			return false, RuleDefaultPermissionsInvalid
		}
		want = want*10 + d
	}
	if want == 0 {
		return false, RuleDefaultPermissionsZero
	}
	if guild.Permissions(want)&^guild.ChannelPermissions(in.Guild, in.Roles, in.Member, ch) != 0 {
		return false, RuleDefaultPermissionsMissing
	}
	return true, RuleDefaultPermissionsGranted
}

// referencePrivate is reference outside guilds.
func referencePrivate(in Input, its []int, contains func([]int, int) bool) (bool, Rule) {
	c := in.Command
	guildReach := in.Installed && in.Where == command.ContextBotDM
	if c.GuildID != 0 || (!guildReach && !in.UserInstalled) {
		return false, RuleNotInstalled
	}
	ctxs := c.Contexts
	if ctxs == nil {
		ctxs = []int{0}
		if c.DMPermission == nil || *c.DMPermission {
			ctxs = append(ctxs, 1)
		}
		if contains(its, 1) {
			ctxs = append(ctxs, 2)
		}
	}
	if !contains(ctxs, in.Where) {
		if in.Where == command.ContextBotDM {
			return false, RuleContextNotBotDM
		}
		return false, RuleContextNotPrivateChannel
	}
	guildOwner := guildReach && contains(its, 0)
	userOwner := in.UserInstalled && contains(its, 1)
	if !guildOwner && !userOwner {
		if guildReach {
			return false, RuleIntegrationNotGuildInstall
		}
		return false, RuleIntegrationNotUserInstall
	}
	if c.NSFW && !in.Adult {
		return false, RuleNSFWUserNotAdult
	}
	if c.NSFW && in.Where == command.ContextPrivateChannel {
		return false, RuleNSFWPrivateChannel
	}
	if userOwner {
		return true, RuleUserInstall
	}
	return true, RuleBotDM
}
