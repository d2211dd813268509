package api_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// benchRichAnswer is what a real app often answers with: content, two
// full embeds, two action rows (three buttons; a string select of five
// options) and allowed_mentions: the message body whose inside slashd
// checks (internal/msgcheck) before storing it.
const benchRichAnswer = `{
 "content": "Here is the weekly report.",
 "embeds": [
  {"title": "Weekly report", "description": "Everything that happened on the server this week, in short.",
   "url": "https://example.com/report/42", "color": 5814783, "timestamp": "2026-11-28T14:00:00.000Z",
   "fields": [{"name": "Messages", "value": "12,345", "inline": true},
              {"name": "New members", "value": "67", "inline": true},
              {"name": "Top channel", "value": "#general", "inline": false}],
   "footer": {"text": "slashd report bot", "icon_url": "https://example.com/icon.png"},
   "author": {"name": "Report Bot", "url": "https://example.com", "icon_url": "https://example.com/bot.png"}},
  {"title": "Moderation", "description": "Actions taken by moderators this week.",
   "color": 15548997, "timestamp": "2026-11-28T14:00:00+00:00",
   "fields": [{"name": "Warnings", "value": "3"}, {"name": "Timeouts", "value": "1"}, {"name": "Bans", "value": "0"}],
   "footer": {"text": "Moderation log"},
   "author": {"name": "Mod Team", "icon_url": "https://example.com/mods.png"}}
 ],
 "components": [
  {"type": 1, "components": [
   {"type": 2, "style": 1, "label": "Details", "custom_id": "report:details"},
   {"type": 2, "style": 4, "label": "Dismiss", "custom_id": "report:dismiss"},
   {"type": 2, "style": 5, "label": "Open", "url": "https://example.com/report/42"}]},
  {"type": 1, "components": [
   {"type": 3, "custom_id": "report:week", "placeholder": "Pick a week", "min_values": 1, "max_values": 1,
    "options": [{"label": "This week", "value": "w0", "default": true},
                {"label": "Last week", "value": "w1", "description": "Nov 16-22"},
                {"label": "Two weeks ago", "value": "w2"},
                {"label": "Three weeks ago", "value": "w3"},
                {"label": "Four weeks ago", "value": "w4"}]}]}
 ],
 "allowed_mentions": {"parse": []}
}`

// BenchmarkInvokeRich is BenchmarkInvoke with the app answering
// benchRichAnswer instead of a bare content: the end-to-end cost of an
// answer that carries embeds and components. It reports p50-µs and
// p99-µs as BenchmarkInvoke does:
//
//	go test -run '^$' -bench 'InvokeRich' -benchtime 3000x ./internal/api/
func BenchmarkInvokeRich(b *testing.B) {
	e := testenv.New(b)
	w := newInvokeWorld(b, e)
	cmd := w.command(jsonObj{"name": "report", "description": "Weekly report"})
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{Type: interactions.CallbackChannelMessageWithSource, Data: json.RawMessage(benchRichAnswer)}, nil
	})
	body := mustJSON(b, w.invocation(2, cmd))
	measure(b, e.URL+"/api/v10/interactions", w.client, body)
	msgs := decodeList(b, mustDo(b, e, "GET", "/api/v10/channels/"+w.channel+"/messages?limit=1", w.client, nil, 200))
	if len(msgs) != 1 || str(msgs[0], "content") != "Here is the weekly report." {
		b.Fatalf("last stored message: %v", msgs)
	}
	if embeds, _ := msgs[0]["embeds"].([]any); len(embeds) != 2 {
		b.Fatalf("last stored message has %d embeds, want 2: %v", len(embeds), msgs[0])
	}
	if rows, _ := msgs[0]["components"].([]any); len(rows) != 2 {
		b.Fatalf("last stored message has %d action rows, want 2: %v", len(rows), msgs[0])
	}
}
