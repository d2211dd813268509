package api_test

// Who may edit a command's permissions (spec §5, facts §8, compat
// "Permissions"): the token, the editor's guild permissions, whether the
// editor can use the command, whether the targets exist and whether the
// editor may manage them; and the event a successful edit publishes.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

// drainEvents takes every event already delivered to ch.
func drainEvents(ch <-chan event.Event) []event.Event {
	var out []event.Event
	for {
		select {
		case ev := <-ch:
			if strings.HasPrefix(ev.Type, "GATEWAY_") {
				continue // the gateway nodes' own bookkeeping (liveness every few seconds), not the API's
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

// permCase is one PUT of a permission list.
type permCase struct {
	name   string
	cmd    string // command id or the app id
	auth   string
	body   jsonObj
	status int
	want   string // the whole body for an error; empty for success (the list echoed)
}

// runPermCases sends each case and checks the answer, that a success
// stored the list and published exactly one event carrying it, and that a
// refusal changed nothing and published nothing.
func runPermCases(t *testing.T, w *world, events <-chan event.Event, cases []permCase) {
	t.Helper()
	p := w.paths
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			drainEvents(events)
			before := string(mustDo(t, w.e, "GET", p.allPerms(), w.e.Bot(), nil, 200).Body)
			r := mustDo(t, w.e, "PUT", p.cmdPerms(c.cmd), c.auth, c.body, c.status)
			got := drainEvents(events)
			if c.status != 200 {
				wantError(t, r, c.status, c.want)
				if after := string(mustDo(t, w.e, "GET", p.allPerms(), w.e.Bot(), nil, 200).Body); after != before {
					t.Fatalf("refused edit changed the lists:\n before %s\n after  %s", before, after)
				}
				if len(got) != 0 {
					t.Fatalf("refused edit published %d events: %+v", len(got), got)
				}
				return
			}
			entries := []jsonObj{}
			for _, en := range c.body["permissions"].([]jsonObj) {
				entries = append(entries, en)
			}
			want := guildPerms(c.cmd, w.app, w.guild, entries...)
			wantJSON(t, r.Body, want)
			wantJSON(t, mustDo(t, w.e, "GET", p.cmdPerms(c.cmd), w.e.Bot(), nil, 200).Body, want)
			if len(got) != 1 {
				t.Fatalf("%d events published, want 1: %+v", len(got), got)
			}
			ev := got[0]
			if ev.Type != event.ApplicationCommandPermissionsUpdate || ev.ApplicationID.String() != w.app || ev.GuildID.String() != w.guild {
				t.Fatalf("event %s app %s guild %s", ev.Type, ev.ApplicationID, ev.GuildID)
			}
			data, err := json.Marshal(ev.Data)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON(t, data, want)
		})
	}
}

func subscribe(t *testing.T, e *testenv.Env) <-chan event.Event {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return e.Events.Subscribe(ctx, 64)
}

// TestPerm2EditWho: the token and the editor.
func TestPerm2EditWho(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	p := w.paths
	events := subscribe(t, e)

	both := w.role("mods", permManageBoth, 5)
	onlyGuild := w.role("guild managers", permManageGuild, 5)
	onlyRoles := w.role("role managers", permManageRoles, 5)
	admins := w.role("admins", permAdministrator, 6)
	low := w.role("low", "0", 1)

	mod := w.memberNamed("mod", both)
	half1 := w.memberNamed("half1", onlyGuild)
	half2 := w.memberNamed("half2", onlyRoles)
	halves := w.memberNamed("halves", onlyGuild, onlyRoles) // both bits from two roles
	adm := w.memberNamed("adm", admins)
	outsider := w.user("outsider")

	cmd := str(create(t, e, p.guildCmds(), e.Bot(), chat("mod")), "id")
	adminOnly := str(create(t, e, p.guildCmds(), e.Bot(), with(chat("adminonly"), "default_member_permissions", permAdministrator)), "id")
	locked := str(create(t, e, p.guildCmds(), e.Bot(), chat("locked")), "id")
	glob := str(create(t, e, p.global(), e.Bot(), chat("glob")), "id")
	restricted := str(create(t, e, p.guildCmds(), e.Bot(), chat("restricted")), "id")
	general := w.channel(jsonObj{"name": "general"})
	allCh := w.allChannels()
	// The owner denies the mods' role the locked command.
	mustDo(t, e, "PUT", p.cmdPerms(locked), w.editor(w.owner), permsBody(entry(both, 1, false)), 200)
	drainEvents(events)

	// Bodies that never lock an editor out of the command.
	okBody := func(allow bool) jsonObj { return permsBody(entry(w.guild, 1, true), entry(low, 1, allow)) }
	cases := []permCase{
		{"owner", cmd, w.editor(w.owner), okBody(true), 200, ""},
		{"MANAGE_GUILD and MANAGE_ROLES from one role", cmd, w.editor(mod), okBody(false), 200, ""},
		{"MANAGE_GUILD and MANAGE_ROLES from two roles", cmd, w.editor(halves), okBody(true), 200, ""},
		{"only MANAGE_GUILD", cmd, w.editor(half1), okBody(false), 403, bodyMissingPerms},
		{"only MANAGE_ROLES", cmd, w.editor(half2), okBody(false), 403, bodyMissingPerms},
		{"ADMINISTRATOR", cmd, w.editor(adm), okBody(false), 200, ""},
		{"not a member", cmd, w.editor(outsider), okBody(true), 403, bodyMissingPerms},
		{"bot token", cmd, e.Bot(), okBody(true), 403, bodyBotsCannotUse},
		{"Bearer without the scope", cmd, w.bearer(mod, w.app, "identify applications.commands applications.commands.update"), okBody(true), 401, bodyMissingScope},
		{"no token", cmd, "", okBody(true), 401, bodyUnauthorized},
		{"global command", glob, w.editor(mod), okBody(true), 200, ""},
		// The editor must be able to use the command.
		{"dmp ADMINISTRATOR, editor without it", adminOnly, w.editor(mod), okBody(true), 403, bodyMissingPerms},
		{"dmp ADMINISTRATOR, owner", adminOnly, w.editor(w.owner), okBody(true), 200, ""},
		{"dmp ADMINISTRATOR, administrator", adminOnly, w.editor(adm), okBody(false), 200, ""},
		{"command-level deny of the editor's role", locked, w.editor(mod), permsBody(entry(both, 1, true)), 403, bodyMissingPerms},
		{"command-level deny, owner", locked, w.editor(w.owner), permsBody(entry(both, 1, false), entry(low, 1, true)), 200, ""},
		{"unknown command", unknownID, w.editor(mod), okBody(true), 404, bodyUnknownCommand},
		// Channel entries say where a command may be used, not who: the
		// can-use check is guild-wide and leaves them out, so that the
		// example of docs/permissions.md (a mod restricting a command to one channel)
		// can be edited again by that mod.
		{"mod restricts to one channel", restricted, w.editor(mod), permsBody(entry(allCh, 3, false), entry(general, 3, true)), 200, ""},
		{"and edits it again", restricted, w.editor(mod), permsBody(entry(allCh, 3, false), entry(general, 3, true), entry(low, 1, true)), 200, ""},
		{"all channels denied", restricted, w.editor(mod), permsBody(entry(allCh, 3, false)), 200, ""},
		{"and edits it once more", restricted, w.editor(mod), permsBody(entry(general, 3, true)), 200, ""},
	}
	runPermCases(t, w, events, cases)

	// The app-level list (command id = application id) has no command to
	// use: an app-level @everyone deny keeps the editor from editing a
	// command's list, not the app-level list itself.
	mustDo(t, e, "PUT", p.cmdPerms(cmd), w.editor(w.owner), permsBody(), 200)
	mustDo(t, e, "PUT", p.cmdPerms(w.app), w.editor(w.owner), permsBody(entry(w.guild, 1, false)), 200)
	drainEvents(events)
	runPermCases(t, w, events, []permCase{
		{"app-level deny: the editor cannot use the command", cmd, w.editor(mod), okBody(true), 403, bodyMissingPerms},
		{"app-level list skips the can-use check", w.app, w.editor(mod), permsBody(entry(w.guild, 1, true)), 200, ""},
		{"then the command again", cmd, w.editor(mod), okBody(true), 200, ""},
		{"app-level list: still needs the guild permissions", w.app, w.editor(half1), permsBody(), 403, bodyMissingPerms},
		{"app-level list: bot token", w.app, e.Bot(), permsBody(), 403, bodyBotsCannotUse},
		// App-level channel denies do not keep the editor out either.
		{"app-level all channels denied", w.app, w.editor(mod), permsBody(entry(allCh, 3, false), entry(general, 3, false)), 200, ""},
		{"a command under the app's channel denies", cmd, w.editor(mod), okBody(false), 200, ""},
	})
}

// TestPerm2EditTargets: every target must exist in the guild, and the
// editor must be allowed to manage it.
func TestPerm2EditTargets(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	p := w.paths
	events := subscribe(t, e)

	both := w.role("mods", permManageBoth, 5)
	peer := w.role("peer", "0", 5)
	high := w.role("high", "0", 9)
	low := w.role("low", "0", 2)
	admins := w.role("admins", permAdministrator, 6)

	mod := w.memberNamed("mod", both)
	adm := w.memberNamed("adm", admins)
	senior := w.memberNamed("senior", high)
	equal := w.memberNamed("equal", peer)
	junior := w.memberNamed("junior", low)
	plain := w.memberNamed("plain")
	outsider := w.user("outsider")

	general := w.channel(jsonObj{"name": "general"})
	secret := w.channel(jsonObj{"name": "secret", "permission_overwrites": []jsonObj{
		{"id": both, "type": 0, "deny": permViewChannel}}})
	secretThread := w.channel(jsonObj{"name": "secret thread", "type": 11, "parent_id": secret})
	generalThread := w.channel(jsonObj{"name": "thread", "type": 11, "parent_id": general})
	// Hidden from @everyone, shown to the mods.
	staff := w.channel(jsonObj{"name": "staff", "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "deny": permViewChannel}, {"id": both, "type": 0, "allow": permViewChannel}}})
	// Hidden from mod personally.
	private := w.channel(jsonObj{"name": "private", "permission_overwrites": []jsonObj{
		{"id": mod, "type": 1, "deny": permViewChannel}}})

	// Another guild's role and channel.
	other := adminNewGuild(t, e, "other", w.owner)
	otherRole := str(adminObj(t, e, "POST", "/guilds/"+other+"/roles", jsonObj{"name": "r"}, 201), "id")
	otherChannel := str(adminObj(t, e, "POST", "/guilds/"+other+"/channels", jsonObj{"name": "c"}, 201), "id")

	cmd := str(create(t, e, p.guildCmds(), e.Bot(), chat("mod")), "id")
	ed, owner, admin := w.editor(mod), w.editor(w.owner), w.editor(adm)
	allCh := w.allChannels()

	// Unknown targets: one field error each, all reported together.
	unknown := permsBody(
		entry(unknownID, 1, true),
		entry(w.guild, 1, true),
		entry(unknownID, 2, true),
		entry(outsider, 2, true),
		entry(unknownID, 3, false),
		entry(allCh, 3, true),
		entry(otherRole, 1, true),
		entry(otherChannel, 3, true),
		entry(general, 3, true),
		entry(low, 1, true),
		entry(plain, 2, true),
		entry(w.guild, 3, true),   // @everyone's id is no channel
		entry(allCh, 1, true),     // nor is all-channels a role
		entry(general, 1, true),   // a channel id as a role
		entry(junior, 3, true),    // a user id as a channel
		entry(otherRole, 2, true), // a role id as a user
	)
	unknownErr := formError(
		leaf{"permissions.0.id", "UNKNOWN_ROLE", "Unknown Role"},
		leaf{"permissions.2.id", "UNKNOWN_USER", "Unknown User"},
		leaf{"permissions.3.id", "UNKNOWN_USER", "Unknown User"},
		leaf{"permissions.4.id", "UNKNOWN_CHANNEL", "Unknown Channel"},
		leaf{"permissions.6.id", "UNKNOWN_ROLE", "Unknown Role"},
		leaf{"permissions.7.id", "UNKNOWN_CHANNEL", "Unknown Channel"},
		leaf{"permissions.11.id", "UNKNOWN_CHANNEL", "Unknown Channel"},
		leaf{"permissions.12.id", "UNKNOWN_ROLE", "Unknown Role"},
		leaf{"permissions.13.id", "UNKNOWN_ROLE", "Unknown Role"},
		leaf{"permissions.14.id", "UNKNOWN_CHANNEL", "Unknown Channel"},
		leaf{"permissions.15.id", "UNKNOWN_USER", "Unknown User"},
	)

	cases := []permCase{
		{"unknown targets, owner", cmd, owner, unknown, 400, unknownErr},
		{"unknown targets, mod", cmd, ed, unknown, 400, unknownErr},
		{"constants", cmd, ed, permsBody(entry(w.guild, 1, true), entry(allCh, 3, true)), 200, ""},

		// Roles: strictly below the editor's highest role.
		{"role below", cmd, ed, permsBody(entry(low, 1, true)), 200, ""},
		{"role at the same position", cmd, ed, permsBody(entry(peer, 1, true)), 403, bodyMissingPerms},
		{"the editor's own top role", cmd, ed, permsBody(entry(both, 1, true)), 403, bodyMissingPerms},
		{"role above", cmd, ed, permsBody(entry(high, 1, true)), 403, bodyMissingPerms},
		{"administrators' role above", cmd, ed, permsBody(entry(admins, 1, true)), 403, bodyMissingPerms},
		{"one role above among fine ones", cmd, ed, permsBody(entry(low, 1, true), entry(w.guild, 1, true), entry(high, 1, false)), 403, bodyMissingPerms},

		// Users: members whose highest role is below, and oneself; never
		// the owner.
		{"member without roles", cmd, ed, permsBody(entry(plain, 2, true)), 200, ""},
		{"member below", cmd, ed, permsBody(entry(junior, 2, false)), 200, ""},
		{"oneself", cmd, ed, permsBody(entry(mod, 2, true)), 200, ""},
		{"member at the same position", cmd, ed, permsBody(entry(equal, 2, true)), 403, bodyMissingPerms},
		{"member above", cmd, ed, permsBody(entry(senior, 2, true)), 403, bodyMissingPerms},
		{"administrator above", cmd, ed, permsBody(entry(adm, 2, true)), 403, bodyMissingPerms},
		{"the owner", cmd, ed, permsBody(entry(w.owner, 2, true)), 403, bodyMissingPerms},

		// Channels: those the editor can view (a thread: its parent).
		{"viewable channel", cmd, ed, permsBody(entry(general, 3, true)), 200, ""},
		{"thread of a viewable channel", cmd, ed, permsBody(entry(generalThread, 3, true)), 200, ""},
		{"hidden from @everyone, shown to the editor's role", cmd, ed, permsBody(entry(staff, 3, true)), 200, ""},
		{"hidden from the editor's role", cmd, ed, permsBody(entry(secret, 3, true)), 403, bodyMissingPerms},
		{"thread of a hidden channel", cmd, ed, permsBody(entry(secretThread, 3, true)), 403, bodyMissingPerms},
		{"hidden from the editor", cmd, ed, permsBody(entry(private, 3, true)), 403, bodyMissingPerms},

		// Owners and administrators manage everything.
		{"owner: everything", cmd, owner, permsBody(entry(high, 1, true), entry(both, 1, true), entry(w.owner, 2, true),
			entry(senior, 2, false), entry(secret, 3, true), entry(private, 3, true)), 200, ""},
		{"administrator: everything", cmd, admin, permsBody(entry(high, 1, true), entry(admins, 1, true), entry(w.owner, 2, true),
			entry(senior, 2, false), entry(secretThread, 3, true)), 200, ""},

		// Last: the constants denying, which keeps the mod from the command.
		{"constants denying, owner", cmd, owner, permsBody(entry(w.guild, 1, false), entry(allCh, 3, false), entry(general, 3, true)), 200, ""},
		{"the mod can no longer use the command", cmd, ed, permsBody(entry(w.guild, 1, true)), 403, bodyMissingPerms},
	}
	runPermCases(t, w, events, cases)
}
