package browsertest

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestChatTwins: examples/bot's guild /ping and a global /ping of the
// same app are both in the picker (as in the real client), each marked
// with its scope; the global one is not hidden, and choosing it runs the
// global command: the payload the app got names its id and has no
// data.guild_id.
func TestChatTwins(t *testing.T) {
	w := newWorld(t)
	cmds := w.registerBotCommands(t)
	var global struct{ ID string }
	w.call(t, "POST", "/api/v10/applications/"+w.creds.ApplicationID+"/commands", "Bot "+w.creds.BotToken,
		map[string]any{"name": "ping", "description": "Replies with pong, everywhere"}, &global)
	w.startBot(t)
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	waitText(t, ctx, "#chat-channel", "#general")
	choose(t, ctx, "chat-place", w.creds.GuildID)
	waitText(t, ctx, "#messages", "No message yet")

	typeInto(t, ctx, "composer-input", "/ping")
	waitJS(t, ctx, "both /ping, marked", `(() => {
		const es = [...document.querySelectorAll('#picker button[data-name="ping"]')];
		return es.length === 2 && es[0].dataset.scope === "guild" && es[0].innerText.includes("guild") &&
			es[1].dataset.scope === "global" && es[1].innerText.includes("Replies with pong, everywhere") &&
			!document.querySelector("#picker .hidden"); })()`)
	shot(t, ctx, "16-picker-twins")
	click(t, ctx, `#picker button[data-name="ping"][data-scope="global"]`)
	waitText(t, ctx, "#messages .ephemeral", "pong")

	// The log's payload: the global command's id, no data.guild_id.
	click(t, ctx, "#nav-log")
	waitText(t, ctx, "#log-list", "/ping")
	click(t, ctx, "#log-list tbody tr")
	waitText(t, ctx, "#log-payload", global.ID)
	var p struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(text(t, ctx, "#log-payload")), &p); err != nil {
		t.Fatalf("the logged payload: %v", err)
	}
	if p.Data["id"] != global.ID || p.Data["guild_id"] != nil || p.Data["id"] == cmds["ping"] {
		t.Fatalf("the global /ping's payload has data %v, want id %s and no guild_id", p.Data, global.ID)
	}
}
