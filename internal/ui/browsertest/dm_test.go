package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestChatDM: a DM seen as one of its users, where the commands of an
// app installed to that user's account are offered and answered, and
// one whose contexts exclude DMs is shown greyed with the reason.
func TestChatDM(t *testing.T) {
	w := newWorld(t)
	w.startBot(t)
	// /ping as a global command usable everywhere, the app installed to
	// bob's account, and a DM between bob and the owner.
	w.call(t, "PUT", "/api/v10/applications/"+w.creds.ApplicationID+"/commands", "Bot "+w.creds.BotToken,
		[]any{map[string]any{"name": "ping", "description": "Replies with pong", "integration_types": []int{0, 1},
			"contexts": []int{0, 1, 2}},
			map[string]any{"name": "guildonly", "description": "Only in guilds", "integration_types": []int{0, 1},
				"contexts": []int{0}}}, nil)
	var bob struct{ ID string }
	w.admin(t, "POST", "/users", map[string]any{"username": "bob"}, &bob)
	w.admin(t, "PUT", "/users/"+bob.ID+"/installations/"+w.creds.ApplicationID, map[string]any{"scopes": []string{"applications.commands"}}, nil)
	var dm struct{ ID string }
	w.admin(t, "POST", "/users/"+bob.ID+"/channels", map[string]any{"recipient_id": w.creds.OwnerUserID}, &dm)

	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	waitText(t, ctx, "#chat-channel", "#general")
	choose(t, ctx, "chat-place", "@me")
	waitText(t, ctx, "#chat-user", "bob")
	choose(t, ctx, "chat-user", bob.ID)
	waitText(t, ctx, "#chat-channel", "DM: demo owner")
	waitText(t, ctx, "#messages", "No message yet")
	// The picker: /ping, and /guildonly hidden here, with the reason.
	typeInto(t, ctx, "composer-input", "/")
	waitText(t, ctx, "#picker", "/ping")
	waitText(t, ctx, "#picker", "Hidden: ")
	waitText(t, ctx, "#picker .hidden", "lack PRIVATE_CHANNEL (2)")
	shot(t, ctx, "14a-dm-picker")
	typeInto(t, ctx, "composer-input", "/pi")
	click(t, ctx, `#picker button[data-name="ping"]`)
	waitText(t, ctx, "#messages .ephemeral", "pong")
	waitText(t, ctx, "#messages", "bob used /ping")
	shot(t, ctx, "14-dm")

	// The log, filtered: the DM's /ping is no guild's.
	click(t, ctx, "#nav-log")
	waitText(t, ctx, "#log-list", "/ping")
	choose(t, ctx, "log-guild", w.creds.GuildID)
	waitText(t, ctx, "#log-list", "No interaction yet")
	choose(t, ctx, "log-guild", "")
	waitText(t, ctx, "#log-list", "/ping")
	choose(t, ctx, "log-app", w.creds.ApplicationID)
	waitText(t, ctx, "#log-list", "/ping")
}
