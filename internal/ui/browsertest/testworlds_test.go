package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTestWorlds: the World tab lists the test worlds; one shows its
// objects by handle and its clock; its clock moves; a reset puts it back
// to its spec (a message its bot posted is gone, its ids stay).
func TestTestWorlds(t *testing.T) {
	w := newWorld(t)
	var tw struct {
		ID   string `json:"id"`
		Apps map[string]struct {
			BotToken string `json:"bot_token"`
		} `json:"apps"`
		Guilds map[string]struct {
			ID       string            `json:"id"`
			Channels map[string]string `json:"channels"`
		} `json:"guilds"`
	}
	w.admin(t, "POST", "/worlds", map[string]any{"name": "ban-tests",
		"users": map[string]any{"alice": map[string]any{}, "bob": map[string]any{}},
		"apps":  map[string]any{"modbot": map[string]any{}},
		"guilds": map[string]any{"club": map[string]any{"owner": "alice",
			"roles":    map[string]any{"mods": map[string]any{"permissions": []string{"BAN_MEMBERS"}}},
			"channels": map[string]any{"general": map[string]any{}},
			"members":  map[string]any{"alice": map[string]any{"roles": []string{"mods"}}, "bob": map[string]any{}},
			"install":  map[string]any{"modbot": map[string]any{"scopes": []string{"bot", "applications.commands"}}}}}}, &tw)
	general := tw.Guilds["club"].Channels["general"]
	bot := "Bot " + tw.Apps["modbot"].BotToken
	w.call(t, "POST", "/api/v10/channels/"+general+"/messages", bot, map[string]any{"content": "before the reset"}, nil)

	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-side", "Test worlds")
	run(t, ctx, "open the world", chromedp.Click(chromedp.CSS(`#world-side button[data-id="world-`+tw.ID+`"]`)))
	waitText(t, ctx, "#test-world-objects", "club › #general")
	waitText(t, ctx, "#world-pane", "real time")
	run(t, ctx, "move its clock", chromedp.Click(chromedp.ID("test-world-clock")))
	waitText(t, ctx, "#world-pane", "15 min ahead")
	shot(t, ctx, "20-test-world")

	if got := text(t, ctx, "#test-world-reset-at"); got != "never" {
		t.Errorf("last reset of a new world: %q", got)
	}
	run(t, ctx, "reset it", chromedp.Click(chromedp.ID("test-world-reset")))
	waitJS(t, ctx, "the reset's time", `(() => { const e = document.querySelector("#test-world-reset-at"); return !!e && e.innerText !== "never"; })()`)
	waitText(t, ctx, "#test-world-objects", "club › #general")
	var msgs []map[string]any
	w.call(t, "GET", "/api/v10/channels/"+general+"/messages", bot, nil, &msgs)
	if len(msgs) != 0 {
		t.Errorf("after the reset the channel has %d messages, want none", len(msgs))
	}
	if got := text(t, ctx, "#test-world-objects"); !strings.Contains(got, general) {
		t.Errorf("the reset changed #general's id: %s", got)
	}
	shot(t, ctx, "21-test-world-reset")

	// Its journal, sessions and faults are a click away, in the Test
	// world tab; the World tab is one back.
	run(t, ctx, "open its journal", chromedp.Click(chromedp.ID("test-world-open")))
	waitJS(t, ctx, "the Test world tab on this world", `location.hash === "#testworld/`+tw.ID+`" &&
		document.getElementById("tw-world")?.value === "`+tw.ID+`"`)
	waitText(t, ctx, "#tw-journal", "rest.request")
	click(t, ctx, "#nav-world")
	run(t, ctx, "open the world again", chromedp.Click(chromedp.CSS(`#world-side button[data-id="world-`+tw.ID+`"]`)))
	waitText(t, ctx, "#test-world-objects", "club › #general")

	run(t, ctx, "delete it", chromedp.Click(chromedp.ID("test-world-delete")))
	waitJS(t, ctx, "the deleted world's button to go", `!document.querySelector('#world-side button[data-id="world-`+tw.ID+`"]')`)
	if got := text(t, ctx, "#world-side"); strings.Contains(got, "ban-tests") {
		t.Errorf("the deleted world is still listed: %s", got)
	}
	var left []any
	w.admin(t, "GET", "/worlds", nil, &left)
	if len(left) != 0 {
		t.Errorf("worlds after the delete: %v", left)
	}
}
