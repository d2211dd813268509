package api_test

// The permissions-v2 decision (compat "Who may see and use a command"),
// read through GET /admin/v1/guilds/{guild}/commands/{command}/access:
// one world, every step of the decision order, and the endpoint's errors.

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

func accessPath(guild, cmd, user, channel string) string {
	q := url.Values{}
	if user != "" {
		q.Set("user_id", user)
	}
	if channel != "" {
		q.Set("channel_id", channel)
	}
	path := "/guilds/" + guild + "/commands/" + cmd + "/access"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}

func TestPerm2AccessDecision(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	p := w.paths
	owner := w.editor(w.owner)

	admins := w.role("admins", permAdministrator, 3)
	managers := w.role("managers", permManageGuild, 2)
	r1 := w.role("r1", "0", 1)
	r2 := w.role("r2", "0", 1)

	adm := w.memberNamed("adm", admins)
	mgr := w.memberNamed("mgr", managers)
	plain := w.memberNamed("plain")
	u1 := w.memberNamed("u1", r1)
	u2 := w.memberNamed("u2", r2)
	u12 := w.memberNamed("u12", r1, r2) // one allowing role is enough
	kid := w.user("kid", "adult", false)
	w.member(kid)
	grown := w.user("grown", "adult", true)
	w.member(grown)

	general := w.channel(jsonObj{"name": "general"})
	nsfw := w.channel(jsonObj{"name": "late", "nsfw": true})
	nsfwThread := w.channel(jsonObj{"name": "late thread", "type": 11, "parent_id": nsfw})
	blocked := w.channel(jsonObj{"name": "blocked"})
	appBlocked := w.channel(jsonObj{"name": "app blocked"})
	parent := w.channel(jsonObj{"name": "parent"})
	thread := w.channel(jsonObj{"name": "thread", "type": 11, "parent_id": parent})
	noManage := w.channel(jsonObj{"name": "no manage", "permission_overwrites": []jsonObj{
		{"id": managers, "type": 0, "deny": permManageGuild}}})
	allCh := w.allChannels()

	guildCmd := func(body jsonObj) string { return str(create(t, e, p.guildCmds(), e.Bot(), body), "id") }
	plainCmd := guildCmd(chat("plain"))
	dmOnly := str(create(t, e, p.global(), e.Bot(), with(chat("dmonly"), "contexts", []int{1})), "id")
	spicy := guildCmd(with(chat("spicy"), "nsfw", true))
	nobody := guildCmd(chat("nobody"))
	chanCmd := guildCmd(chat("chan"))
	allChCmd := guildCmd(chat("allch"))
	threaded := guildCmd(chat("threaded"))
	override := guildCmd(chat("override"))
	vip := guildCmd(with(chat("vip"), "default_member_permissions", "0"))
	roles := guildCmd(chat("roles"))
	manage := guildCmd(with(chat("manage"), "default_member_permissions", permManageGuild))
	twiceGlobal := str(create(t, e, p.global(), e.Bot(), chat("twice")), "id")
	twiceGuild := guildCmd(chat("twice"))
	twiceUser := str(create(t, e, p.global(), e.Bot(), userCmd("twice")), "id") // another type

	put := func(cmd string, entries ...jsonObj) {
		mustDo(t, e, "PUT", p.cmdPerms(cmd), owner, permsBody(entries...), 200)
	}
	put(nobody, entry(w.guild, 1, false))
	put(chanCmd, entry(blocked, 3, false))
	put(allChCmd, entry(allCh, 3, false), entry(general, 3, true))
	put(threaded, entry(parent, 3, false))
	put(override, entry(appBlocked, 3, true))
	put(vip, entry(plain, 2, true))
	put(roles, entry(r1, 1, true), entry(r2, 1, false))
	// App level: a channel deny, and an @everyone allow that cannot
	// bypass default_member_permissions.
	put(w.app, entry(appBlocked, 3, false), entry(w.guild, 1, true))

	// A second app, installed, with a guild command, then uninstalled (its
	// commands are kept).
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	w.install(other.ApplicationID)
	otherCmd := str(create(t, e, pathsFor("/api/v10", other).withGuild(w.guild).guildCmds(), "Bot "+other.BotToken, chat("other")), "id")
	otherGlobal := str(create(t, e, pathsFor("/api/v10", other).global(), "Bot "+other.BotToken, chat("otherglobal")), "id")
	w.uninstall(other.ApplicationID)

	cases := []struct {
		name               string
		cmd, user, channel string
		allowed            bool
		rule               string
	}{
		{"not installed: guild command", otherCmd, plain, general, false, "not_installed"},
		{"not installed: global command", otherGlobal, w.owner, general, false, "not_installed"},
		{"contexts without GUILD", dmOnly, w.owner, general, false, "context_not_guild"},
		{"nsfw, not an adult", spicy, kid, nsfw, false, "nsfw_user_not_adult"},
		{"nsfw, the owner is not an adult either", spicy, w.owner, nsfw, false, "nsfw_user_not_adult"},
		{"nsfw, channel not age-restricted", spicy, grown, general, false, "nsfw_channel_not_age_restricted"},
		{"nsfw, adult in an age-restricted channel", spicy, grown, nsfw, true, "default_member_permissions_unset"},
		{"nsfw, thread of an age-restricted channel", spicy, grown, nsfwThread, true, "default_member_permissions_unset"},
		{"owner", nobody, w.owner, general, true, "owner"},
		{"administrator role", nobody, adm, general, true, "administrator"},
		{"administrator despite a channel deny", chanCmd, adm, blocked, true, "administrator"},
		{"no overwrites, no dmp", plainCmd, plain, general, true, "default_member_permissions_unset"},
		{"command channel deny", chanCmd, plain, blocked, false, "command_channel_deny"},
		{"command channel deny elsewhere", chanCmd, plain, general, true, "default_member_permissions_unset"},
		{"command all channels deny", allChCmd, plain, blocked, false, "command_all_channels_deny"},
		{"channel allow among all channels denied", allChCmd, plain, general, true, "default_member_permissions_unset"},
		{"app-level channel deny", plainCmd, plain, appBlocked, false, "app_channel_deny"},
		{"a command entry for another channel leaves the app's", chanCmd, plain, appBlocked, false, "app_channel_deny"},
		{"a command-level channel allow skips the app's deny", override, plain, appBlocked, true, "default_member_permissions_unset"},
		{"thread inherits its parent's channel deny", threaded, plain, thread, false, "command_channel_deny"},
		{"the parent itself", threaded, plain, parent, false, "command_channel_deny"},
		{"command user allow bypasses dmp 0", vip, plain, general, true, "command_user_allow"},
		{"dmp 0 for others, despite the app's @everyone allow", vip, u1, general, false, "default_member_permissions_zero"},
		{"command role allow", roles, u1, general, true, "command_role_allow"},
		{"command role deny", roles, u2, general, false, "command_role_deny"},
		{"one allowing role among denying ones", roles, u12, general, true, "command_role_allow"},
		{"command @everyone deny", nobody, plain, general, false, "command_everyone_deny"},
		{"dmp granted by a role", manage, mgr, general, true, "default_member_permissions_granted"},
		{"dmp removed by a channel overwrite", manage, mgr, noManage, false, "default_member_permissions_missing"},
		{"dmp missing", manage, plain, general, false, "default_member_permissions_missing"},
		// A guild command of the same name leaves the global one usable:
		// the real service shows and runs both.
		{"a global command with a guild command of its name", twiceGlobal, plain, general, true, "default_member_permissions_unset"},
		{"the guild command of the global one's name", twiceGuild, plain, general, true, "default_member_permissions_unset"},
		{"same name, another type", twiceUser, plain, general, true, "default_member_permissions_unset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := adminObj(t, e, "GET", accessPath(w.guild, c.cmd, c.user, c.channel), nil, 200)
			owners, _ := got["authorizing_integration_owners"].([]any)
			if len(got) != 4 || got["allowed"] != c.allowed || got["rule"] != c.rule || str(got, "reason") == "" ||
				owners == nil || (c.allowed && len(owners) != 1) {
				t.Fatalf("got %v, want allowed %v rule %s", got, c.allowed, c.rule)
			}
		})
	}

	// The app-level allow is named in the reason of the dmp decision.
	got := adminObj(t, e, "GET", accessPath(w.guild, vip, u1, general), nil, 200)
	if r := str(got, "reason"); !strings.Contains(r, "after the app's allow for @everyone") {
		t.Fatalf("reason %q", r)
	}

	// Errors.
	otherGuild := adminNewGuild(t, e, "elsewhere", w.owner)
	elsewhere := str(adminObj(t, e, "POST", "/guilds/"+otherGuild+"/channels", jsonObj{"name": "x"}, 201), "id")
	stranger := w.user("stranger")
	errs := []struct {
		name   string
		path   string
		status int
		want   string
	}{
		{"unknown user", accessPath(w.guild, plainCmd, unknownID, general), 404, bodyUnknownMember},
		{"user not a member", accessPath(w.guild, plainCmd, stranger, general), 404, bodyUnknownMember},
		{"unknown channel", accessPath(w.guild, plainCmd, plain, unknownID), 404, bodyUnknownChannel},
		{"channel of another guild", accessPath(w.guild, plainCmd, plain, elsewhere), 404, bodyUnknownChannel},
		{"unknown command", accessPath(w.guild, unknownID, plain, general), 404, bodyUnknownCommand},
		{"another guild's command", accessPath(otherGuild, plainCmd, w.owner, elsewhere), 404, bodyUnknownCommand},
		{"unknown guild", accessPath(unknownID, plainCmd, plain, general), 404, bodyUnknownGuild},
		{"no user_id", accessPath(w.guild, plainCmd, "", general), 400, formError(leaf{"user_id", "BASE_TYPE_REQUIRED", msgRequired})},
		{"no channel_id", accessPath(w.guild, plainCmd, plain, ""), 400, formError(leaf{"channel_id", "BASE_TYPE_REQUIRED", msgRequired})},
		{"user_id not a snowflake", accessPath(w.guild, plainCmd, "me", general), 400, formError(leaf{"user_id", "NUMBER_TYPE_COERCE", notSnowflake("me")})},
		{"command id not a snowflake", accessPath(w.guild, "cmd", plain, general), 400, formError(leaf{"command_id", "NUMBER_TYPE_COERCE", notSnowflake("cmd")})},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "GET", c.path, nil, c.status), c.status, c.want)
		})
	}

	// The admin token is required: nothing else opens it.
	path := "/admin/v1" + accessPath(w.guild, plainCmd, plain, general)
	for _, auth := range []string{"", e.Bot(), e.Owner(), "Admin wrong", w.client(plain), "Bearer " + e.Admin} {
		wantError(t, mustDo(t, e, "GET", path, auth, nil, 401), 401, bodyUnauthorized)
	}
}

// TestPerm2ReadmeWalkthrough follows docs/permissions.md's example:
// Alice (MANAGE_GUILD | MANAGE_ROLES) restricts /ban to #general, the
// bot requires MANAGE_GUILD, then Alice edits the list again to let Bob
// use it, which needs her to still count as able to use /ban.
func TestPerm2ReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	creds := adminObj(t, e, "POST", "/applications", jsonObj{"name": "worldbot"}, 201)
	app, bot := str(creds, "application_id"), "Bot "+str(creds, "bot_token")
	boss := adminNewUser(t, e, "boss")
	g := adminNewGuild(t, e, "World", boss)
	adminDo(t, e, "PUT", "/guilds/"+g+"/installations/"+app, jsonObj{"scopes": []string{"applications.commands", "bot"}}, 201)
	mods := str(adminObj(t, e, "POST", "/guilds/"+g+"/roles", jsonObj{"name": "mods", "permissions": permManageBoth}, 201), "id")
	alice := adminNewUser(t, e, "alice")
	adminDo(t, e, "PUT", "/guilds/"+g+"/members/"+alice, jsonObj{"roles": []string{mods}}, 201)
	ch := str(adminObj(t, e, "POST", "/guilds/"+g+"/channels", jsonObj{"name": "general"}, 201), "id")
	tok := "Bearer " + str(adminObj(t, e, "POST", "/users/"+alice+"/tokens", jsonObj{"type": "bearer", "application_id": app,
		"scopes": "identify applications.commands.permissions.update"}, 201), "access_token")
	p := apiPaths{"/api/v10", app, g}
	cmd := str(create(t, e, p.guildCmds(), bot, chat("ban")), "id")
	allCh := allChannels(t, g)
	mustDo(t, e, "PUT", p.cmdPerms(cmd), tok, permsBody(entry(allCh, 3, false), entry(ch, 3, true)), 200)

	bob := str(adminObj(t, e, "POST", "/users", jsonObj{"username": "bob", "locale": "de"}, 201), "id")
	adminDo(t, e, "PUT", "/guilds/"+g+"/members/"+bob, nil, 201)
	other := str(adminObj(t, e, "POST", "/guilds/"+g+"/channels", jsonObj{"name": "offtopic"}, 201), "id")
	rule := func(user, channel string) any {
		return adminObj(t, e, "GET", accessPath(g, cmd, user, channel), nil, 200)["rule"]
	}
	if r := rule(bob, other); r != "command_all_channels_deny" {
		t.Fatalf("bob in offtopic: %v", r)
	}
	if r := rule(bob, ch); r != "default_member_permissions_unset" {
		t.Fatalf("bob in general: %v", r)
	}
	mustDo(t, e, "PATCH", p.guildCmd(cmd), bot, jsonObj{"default_member_permissions": permManageGuild}, 200)
	if r := rule(bob, ch); r != "default_member_permissions_missing" {
		t.Fatalf("bob after dmp 32: %v", r)
	}
	if r := rule(alice, ch); r != "default_member_permissions_granted" {
		t.Fatalf("alice after dmp 32: %v", r)
	}
	mustDo(t, e, "PUT", p.cmdPerms(cmd), tok, permsBody(entry(allCh, 3, false), entry(ch, 3, true), entry(bob, 2, true)), 200)
	if r := rule(bob, ch); r != "command_user_allow" {
		t.Fatalf("bob allowed: %v", r)
	}
	bobTok := str(adminObj(t, e, "POST", "/users/"+bob+"/tokens", jsonObj{"type": "client"}, 201), "token")
	if got := names(getIndex(t, e, ch, bobTok).Commands); fmt.Sprint(got) != "[ban]" {
		t.Fatalf("bob's picker in general: %v", got)
	}
	if got := names(getIndex(t, e, other, bobTok).Commands); len(got) != 0 {
		t.Fatalf("bob's picker in offtopic: %v", got)
	}
}
