package browsertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// statusOf makes one API request and returns its status and body,
// whatever they are.
func (w *world) statusOf(t *testing.T, method, path, authz string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, w.url+path, bytes.NewReader(b))
	req.Header.Set("Authorization", authz)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// testWorldSpec is a world with a bot whose /ping a member runs.
func testWorldSpec(name string) map[string]any {
	return map[string]any{"name": name,
		"users": map[string]any{"alice": map[string]any{}},
		"apps": map[string]any{"modbot": map[string]any{"commands": []map[string]any{
			{"name": "ping", "description": "Ping"}}}},
		"guilds": map[string]any{"club": map[string]any{"owner": "alice",
			"channels": map[string]any{"general": map[string]any{}},
			"members":  map[string]any{"alice": map[string]any{}},
			"install":  map[string]any{"modbot": map[string]any{"scopes": []string{"bot", "applications.commands"}}}}}}
}

// TestTestWorldView: the Test world tab picks a world (remembered in
// the address across a reload) and shows, live, its journal (the bot's
// session identified, the INTERACTION_CREATE dispatched, the member's
// command delivered and answered, the bot's callback as a REST request,
// the answer message), its bot sessions and its faults. A REST 500 and
// a gateway RECONNECT added through the form fire, and the journal shows
// them (the refused call with its error body, the session closed and
// then listed as resumable); a fault is deleted from its row; the
// failures filter keeps only what went wrong; the other world's view is
// empty.
func TestTestWorldView(t *testing.T) {
	w := newWorld(t)
	type created struct {
		ID   string `json:"id"`
		Apps map[string]struct {
			ID       string `json:"id"`
			BotToken string `json:"bot_token"`
		} `json:"apps"`
		Guilds map[string]struct {
			Channels map[string]string `json:"channels"`
		} `json:"guilds"`
	}
	var quiet, tw created
	w.admin(t, "POST", "/worlds", testWorldSpec("quiet-world"), &quiet)
	w.admin(t, "POST", "/worlds", testWorldSpec("ping-tests"), &tw)
	general := tw.Guilds["club"].Channels["general"]
	bot := "Bot " + tw.Apps["modbot"].BotToken

	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-side", "Test worlds")
	click(t, ctx, "#nav-testworld")
	choose(t, ctx, "tw-world", tw.ID)
	waitJS(t, ctx, "the world in the address", `location.hash === "#testworld/`+tw.ID+`"`)
	waitText(t, ctx, "#tw-sessions", "No bot of this world")
	waitText(t, ctx, "#tw-faults", "No fault")
	waitJS(t, ctx, "the journal live", `document.getElementById("tw-journal-state").dataset.state === "live"`)

	// A bot connects; a member runs /ping; the bot answers through its
	// callback. The page was open before: all of it arrives live.
	w.connectGatewayBotAs(t, tw.Apps["modbot"].BotToken)
	waitText(t, ctx, "#tw-sessions-table", "modbot")
	waitText(t, ctx, "#tw-sessions-table", "connected")
	var sessions []struct {
		SessionID string `json:"session_id"`
	}
	w.admin(t, "GET", "/worlds/"+tw.ID+"/sessions", nil, &sessions)
	if len(sessions) != 1 {
		t.Fatalf("sessions: %+v", sessions)
	}
	waitText(t, ctx, "#tw-sessions-table", sessions[0].SessionID)
	waitText(t, ctx, "#tw-journal", "gateway.identify")
	waitText(t, ctx, "#tw-journal", "session "+sessions[0].SessionID+" identified")

	var acted struct {
		Interaction struct{ Outcome string } `json:"interaction"`
	}
	w.admin(t, "POST", "/worlds/"+tw.ID+"/act", map[string]any{"as": "alice", "in": "general", "run": "/ping"}, &acted)
	if acted.Interaction.Outcome != "answered" {
		t.Fatalf("/ping: %+v", acted)
	}
	for _, want := range []string{"interaction.delivered", "/ping delivered to modbot (gateway)", "gateway.dispatch",
		"INTERACTION_CREATE", "interaction.answered", "answered by modbot", "rest.request",
		"modbot: POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback → 204", "message.created",
		"pong from the gateway bot"} {
		waitText(t, ctx, "#tw-journal", want)
	}
	shot(t, ctx, "pgview-1-journal")

	// An entry opens to its JSON.
	click(t, ctx, `#tw-journal details[data-type="interaction.answered"] > summary`)
	waitText(t, ctx, `#tw-journal details[data-type="interaction.answered"][open] pre`, `"outcome": "answered"`)
	shot(t, ctx, "pgview-2-entry-open")

	// A REST 500 on the bot's message route, through the form.
	choose(t, ctx, "tw-fault-kind", "rest.500")
	choose(t, ctx, "tw-fault-app", "modbot")
	typeInto(t, ctx, "tw-fault-route", "POST /api/v10/channels/{channel_id}/messages")
	click(t, ctx, "#tw-fault-add")
	waitText(t, ctx, "#tw-fault-status", "Added rest.500")
	waitText(t, ctx, "#tw-faults-table", "POST /channels/{}/messages")
	waitText(t, ctx, "#tw-faults-table", "1 of 1")
	shot(t, ctx, "pgview-3-fault-added")

	status, body := w.statusOf(t, "POST", "/api/v10/channels/"+general+"/messages", bot, map[string]any{"content": "hello"})
	if status != 500 {
		t.Fatalf("the bot's message with the fault on: %d %s", status, body)
	}
	waitText(t, ctx, "#tw-journal", "rest.500 fired")
	waitText(t, ctx, "#tw-journal", "POST /api/v10/channels/{channel_id}/messages → 500")
	waitText(t, ctx, "#tw-journal", "500: Internal Server Error")
	waitText(t, ctx, "#tw-faults-table", "spent")

	// Failures only: the refused call, not the answered interaction.
	choose(t, ctx, "tw-filter", "failures")
	waitText(t, ctx, "#tw-journal", "→ 500")
	waitJS(t, ctx, "only failures listed", `[...document.querySelectorAll("#tw-journal details")].length > 0 &&
		[...document.querySelectorAll("#tw-journal details")].every(d => d.classList.contains("failure"))`)
	shot(t, ctx, "pgview-4-failures")
	choose(t, ctx, "tw-filter", "")

	// A gateway RECONNECT: it fires on the connected session at once,
	// which closes; the bot does not come back, so the session waits,
	// resumable.
	choose(t, ctx, "tw-fault-kind", "gateway.reconnect")
	waitJS(t, ctx, "the route field hidden for a gateway fault", `document.querySelector('.ff[data-field="route"]').hidden &&
		!document.querySelector('.ff[data-field="session"]').hidden`)
	choose(t, ctx, "tw-fault-session", sessions[0].SessionID)
	click(t, ctx, "#tw-fault-add")
	waitText(t, ctx, "#tw-fault-status", "Added gateway.reconnect")
	waitText(t, ctx, "#tw-journal", "gateway.reconnect fired for modbot")
	waitText(t, ctx, "#tw-journal", "modbot: session "+sessions[0].SessionID+" closed by the server")
	waitText(t, ctx, "#tw-sessions-table", "resumable")
	waitText(t, ctx, "#tw-faults-table", "gateway.reconnect")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector(".tw-side").scrollTop = 0, true)`)); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "pgview-5-reconnect")

	// Delete the REST fault from its row.
	var faults []struct{ ID, Kind string }
	w.admin(t, "GET", "/worlds/"+tw.ID+"/faults", nil, &faults)
	var rest500 string
	for _, f := range faults {
		if f.Kind == "rest.500" {
			rest500 = f.ID
		}
	}
	click(t, ctx, `#tw-faults-table button[data-fault="`+rest500+`"]`)
	waitJS(t, ctx, "the fault's row gone", `!document.querySelector('#tw-faults-table button[data-fault="`+rest500+`"]')`)
	w.admin(t, "GET", "/worlds/"+tw.ID+"/faults", nil, &faults)
	if len(faults) != 1 || faults[0].Kind != "gateway.reconnect" {
		t.Errorf("faults after the delete: %+v; want the reconnect only", faults)
	}

	// A reload shows the same world; the reset button resets it.
	run(t, ctx, "reload", chromedp.Reload())
	waitText(t, ctx, "#tw-journal", "rest.500 fired")
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("tw-world").value`)); err != nil || got != tw.ID {
		t.Fatalf("after a reload the picker shows %q (%v), want %s", got, err, tw.ID)
	}
	click(t, ctx, "#tw-reset")
	waitText(t, ctx, "#tw-status", "Reset to its spec at")
	var after struct {
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}
	w.admin(t, "GET", "/worlds/"+tw.ID, nil, &after)
	if after.UpdatedAt == after.CreatedAt {
		t.Errorf("the world was not reset: %+v", after)
	}
	shot(t, ctx, "pgview-6-reset")

	// The other world's view: none of this.
	choose(t, ctx, "tw-world", quiet.ID)
	waitText(t, ctx, "#tw-sessions", "No bot of this world")
	waitText(t, ctx, "#tw-faults", "No fault")
	waitJS(t, ctx, "the quiet world's journal live", `document.getElementById("tw-journal-state").dataset.state === "live"`)
	if got := text(t, ctx, "#tw-journal"); !strings.Contains(got, "Nothing yet") {
		t.Errorf("the quiet world's journal shows: %s", got)
	}
}
