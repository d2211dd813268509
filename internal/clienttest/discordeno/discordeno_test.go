// Package discordeno holds the Discordeno tests: its guide's reaction
// roles bot with the /ping of its minimal example (bot.mjs), run with Node
// against slashd with Discordeno 21's defaults, rest.proxy.baseUrl the only
// change. The Go side plays the bot's users.
package discordeno

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// TestMain runs the tests where Node and Discordeno (`npm ci` here) are
// installed; elsewhere none runs ("[no tests to run]"), and under CI the
// package fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestDiscordenoInstalled", findDiscordeno,
		"install Node 18+ and run `npm ci` in internal/clienttest/discordeno"))
}

func findDiscordeno() error { return drive.NodePackages("@discordeno/bot") }

// TestDiscordenoInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestDiscordenoInstalled(t *testing.T) { testtool.Probe(t, findDiscordeno) }

// Permission bits the guide's /roles asks of its members
// (defaultMemberPermissions: ['MANAGE_GUILD', 'MANAGE_ROLES']).
const (
	permManageGuild = 1 << 5
	permManageRoles = 1 << 28
)

// TestDiscordenoGuideBot registers the guide's commands with
// bot.rest.upsertGuildApplicationCommands, starts the bot (REST through
// rest.proxy.baseUrl, the gateway through GET /gateway/bot) and has alice,
// a manager, run them:
//   - /ping answers with interaction.respond (a 204 callback);
//   - /roles reactions create sends the role message with
//     bot.helpers.sendMessage and answers with the ephemeral menu through
//     interaction.respond(…, { withResponse: true }), whose callback
//     response must carry resource.message;
//   - the role message's button adds, then removes, the role
//     (bot.helpers.addRole / removeRole, then an ephemeral respond);
//   - the menu's Remove button updates the menu (interaction.edit of a
//     component interaction: an UPDATE_MESSAGE callback), its select menu
//     defers the update, edits the role message (bot.helpers.editMessage)
//     and the menu (PATCH @original), and Save defers and deletes the menu
//     (DELETE @original of the button's interaction).
func TestDiscordenoGuideBot(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	managers := w.AdminID(t, "POST", "/guilds/"+w.Guild+"/roles",
		map[string]any{"name": "managers", "permissions": fmt.Sprint(permManageGuild | permManageRoles)})
	w.Admin(t, "PUT", "/guilds/"+w.Guild+"/members/"+w.Alice, map[string]any{"roles": []string{managers}}, -1, nil)
	painters := w.AdminID(t, "POST", "/guilds/"+w.Guild+"/roles", map[string]any{"name": "painters", "permissions": "0"})
	// What the guide asks of the server's admin: the bot may manage
	// roles, and its role sits above the ones it hands out.
	var botMember struct {
		Roles []string `json:"roles"`
	}
	w.Admin(t, "GET", "/guilds/"+w.Guild+"/members/"+w.App, nil, http.StatusOK, &botMember)
	if len(botMember.Roles) != 1 {
		t.Fatalf("the bot has roles %v, want its managed role", botMember.Roles)
	}
	w.Admin(t, "PATCH", "/guilds/"+w.Guild+"/roles/"+botMember.Roles[0],
		map[string]any{"permissions": fmt.Sprint(permManageRoles), "position": 5}, http.StatusOK, nil)

	bot := drive.StartNode(t, []string{"SLASHD_URL=" + e.URL, "SLASHD_BOT_TOKEN=" + e.App.BotToken, "SLASHD_GUILD_ID=" + w.Guild},
		"bot.mjs")
	var registered struct {
		Commands []string `json:"commands"`
	}
	bot.Wait(t, "registered", nil, &registered)
	if !slices.Equal(registered.Commands, []string{"ping", "roles"}) {
		t.Fatalf("registered %v, want ping and roles", registered.Commands)
	}
	var ready struct {
		User string `json:"user"`
	}
	bot.Wait(t, "ready", nil, &ready)
	if ready.User != w.App {
		t.Fatalf("ready as %s, want the app's bot %s", ready.User, w.App)
	}
	cmds := w.Commands(t, w.Guild)
	if got := cmds["roles"]; string(got.Options) == "" {
		t.Fatalf("roles registered as %+v", got)
	}

	t.Run("ping", func(t *testing.T) {
		a := w.Run(t, cmds["ping"], nil)
		if m := a.Resource.Message; m == nil || m.Content != "🏓 Pong!" || m.Flags&64 != 0 {
			t.Fatalf("answer %+v, want 🏓 Pong! in the channel", a)
		}
		bot.Wait(t, "ping", map[string]any{"id": a.Interaction.ID}, nil)
		if m := w.Seen(t, a.Interaction.ResponseMessageID); m == nil || m.Author.ID != w.App {
			t.Errorf("the reply in #general is %+v, want the bot's", m)
		}
	})

	var menu drive.Message
	var roleMessage string
	t.Run("roles reactions create", func(t *testing.T) {
		a := w.Run(t, cmds["roles"], []map[string]any{{"type": 2, "name": "reactions", "options": []map[string]any{{
			"type": 1, "name": "create", "options": []map[string]any{
				{"type": 8, "name": "role", "value": painters},
				{"type": 3, "name": "emoji", "value": "🎨"},
				{"type": 4, "name": "color", "value": 1},
				{"type": 3, "name": "label", "value": "Painter"},
			}}}}})
		m := a.Resource.Message
		if m == nil || m.Content != "Use the buttons in this message to edit the message below." || m.Flags&64 == 0 ||
			!slices.Equal(buttonIDs(*m), []string{"reactionRoles-add", "reactionRoles-remove", "reactionRoles-save"}) {
			t.Fatalf("answer %+v, want the ephemeral menu", a)
		}
		menu = *m
		var got struct {
			Role        string `json:"role"`
			RoleMessage string `json:"roleMessage"`
			Menu        string `json:"menu"`
		}
		bot.Wait(t, "roles", map[string]any{"id": a.Interaction.ID}, &got)
		if got.Role != painters || got.Menu != menu.ID {
			t.Fatalf("the bot read role %s and menu %s, want %s and %s", got.Role, got.Menu, painters, menu.ID)
		}
		roleMessage = got.RoleMessage
		rm := w.Seen(t, roleMessage)
		if rm == nil || rm.Content != "Pick your roles" || rm.Author.ID != w.App ||
			!slices.Equal(buttonIDs(*rm), []string{"reactionRoles-role-" + painters}) {
			t.Fatalf("the role message in #general is %+v", rm)
		}
	})
	if roleMessage == "" {
		t.FailNow()
	}

	// The role button: added on the first click, removed on the second.
	for _, c := range []struct {
		verb  string
		reply string
		has   bool
	}{
		{"added", "I added to you the <@&" + painters + "> role.", true},
		{"removed", "I removed from you the <@&" + painters + "> role.", false},
	} {
		t.Run("role button "+c.verb, func(t *testing.T) {
			a := answer(t, w.Click(t, w.Client, drive.Message{ID: roleMessage, ChannelID: w.Channel}, "reactionRoles-role-"+painters))
			if m := a.Resource.Message; m == nil || m.Content != c.reply || m.Flags&64 == 0 {
				t.Fatalf("answer %+v, want %q (ephemeral)", a, c.reply)
			}
			bot.Wait(t, "role", map[string]any{"id": a.Interaction.ID, c.verb: painters}, nil)
			if has := slices.Contains(memberRoles(t, w), painters); has != c.has {
				t.Errorf("alice has painters: %v, want %v", has, c.has)
			}
		})
	}

	t.Run("menu remove", func(t *testing.T) {
		a := answer(t, w.Click(t, w.Client, menu, "reactionRoles-remove"))
		if a.Resource.Type != 7 || a.Resource.Message == nil || a.Resource.Message.Content != "Select what reaction role to remove" {
			t.Fatalf("answer %+v, want the menu updated to the select menu", a)
		}
		bot.Wait(t, "remove", map[string]any{"id": a.Interaction.ID}, nil)

		r := w.Invoke(t, w.Client, map[string]any{"type": 3, "message_id": menu.ID,
			"data": map[string]any{"component_type": 3, "custom_id": "reactionRoles-remove-selectMenu", "values": []string{painters}}})
		a = answer(t, r)
		if a.Resource.Type != 6 {
			t.Fatalf("answer %+v, want a deferred update", a)
		}
		bot.Wait(t, "removed", map[string]any{"id": a.Interaction.ID, "role": painters}, nil)
		if m := w.Seen(t, menu.ID); m == nil || m.Content != "Use the buttons in this message to edit the message below." {
			t.Errorf("the menu is %+v, want it back to the buttons", m)
		}
		if m := w.Seen(t, roleMessage); m == nil || len(m.Components) != 0 {
			t.Errorf("the role message is %+v, want no buttons left", m)
		}
	})

	t.Run("menu save", func(t *testing.T) {
		a := answer(t, w.Click(t, w.Client, menu, "reactionRoles-save"))
		if a.Resource.Type != 6 {
			t.Fatalf("answer %+v, want a deferred update", a)
		}
		bot.Wait(t, "saved", map[string]any{"id": a.Interaction.ID}, nil)
		if m := w.Seen(t, menu.ID); m != nil {
			t.Errorf("the menu is still there: %+v", m)
		}
	})
	bot.Stop(t)
}

// answer decodes an invocation's answer, which must have come (200).
func answer(t *testing.T, r testenv.Response) drive.Answer {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("invoke: %d %s", r.Status, r.Body)
	}
	var a drive.Answer
	r.JSON(t, &a)
	return a
}

// buttonIDs are the custom ids of m's components, in order.
func buttonIDs(m drive.Message) []string {
	var ids []string
	for _, row := range m.Components {
		for _, c := range row.Components {
			ids = append(ids, c.CustomID)
		}
	}
	return ids
}

// memberRoles are alice's roles, as the admin API has them.
func memberRoles(t *testing.T, w *drive.World) []string {
	t.Helper()
	var m struct {
		Roles []string `json:"roles"`
	}
	w.Admin(t, "GET", "/guilds/"+w.Guild+"/members/"+w.Alice, nil, http.StatusOK, &m)
	return m.Roles
}
