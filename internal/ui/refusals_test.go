package ui_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/ui"
)

// TestLiveRefusals: a refusal on the bus reaches the chat of the member
// who invoked its interaction (not another member's), and its log
// entry, even when it came before the entry; a bot's refused post, which
// no interaction owns, reaches every chat of the channel; a chat that
// (re)connects gets the refusals kept for it after "ready". Bounds: an
// error body over 8 KiB is replaced, a log entry keeps at most 10
// refusals, the node at most 256.
func TestLiveRefusals(t *testing.T) {
	w := newLiveWorld(t)
	ch, _ := snowflake.Parse(w.channel)
	alice, _ := snowflake.Parse(w.alice)
	aliceChat := w.openChat(t, w.alice, w.aliceTok)
	bobChat := w.openChat(t, w.bob, w.bobTok)
	logs := w.open(t, "/ui/live/log")
	nextID := snowflake.ID(1 << 32)
	refuse := func(interaction, user snowflake.ID, errBody string) snowflake.ID {
		nextID++
		w.events.Publish(context.Background(), event.Event{Type: event.RequestRefused, ApplicationID: 42, Data: event.Refusal{
			ID: nextID, ApplicationID: 42, InteractionID: interaction, ChannelID: ch, UserID: user, Method: "POST",
			Route: "POST /api/v10/webhooks/{application_id}/{interaction_token}", Path: "/api/v10/webhooks/42/:interaction_token",
			Status: 400, Error: json.RawMessage(errBody)}})
		return nextID
	}
	const invalid = `{"code":50035,"errors":{"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 or fewer in length."}]}},"message":"Invalid Form Body"}`

	// Before its entry: alice's chat shows it at once.
	first := refuse(500, alice, invalid)
	name, data := aliceChat.next(t)
	var got ui.Refusal
	if err := json.Unmarshal([]byte(data), &got); err != nil || name != "refusal" || got.ID != first ||
		got.InteractionID == nil || *got.InteractionID != 500 || got.Status != 400 || !strings.Contains(data, "Must be 2000 or fewer") {
		t.Fatalf("alice's chat got %s %s (%v)", name, data, err)
	}
	// The entry, recorded after it, holds it.
	w.ui.Record(api.Delivery{InteractionID: 500, Type: 2, ApplicationID: 42, ChannelID: ch, UserID: alice, At: time.Now(),
		Route: "gateway", Outcome: "timeout", Payload: json.RawMessage(`{"id":"500"}`)})
	_, data = logs.next(t)
	if !strings.Contains(data, `"refusals":[{"id":"`+first.String()+`"`) {
		t.Fatalf("the new entry: %s", data)
	}
	// A bot's refused post: bob's chat gets it, and not alice's
	// interaction's before it.
	post := refuse(0, 0, `{"code":50006,"message":"Cannot send an empty message"}`)
	if name, data := bobChat.next(t); name != "refusal" || !strings.Contains(data, `"id":"`+post.String()+`"`) ||
		!strings.Contains(data, `"interaction_id":null`) {
		t.Fatalf("bob's chat got %s %s", name, data)
	}
	// A second refusal of the interaction completes its entry; a body over
	// 8 KiB is replaced.
	refuse(500, alice, `"`+strings.Repeat("x", 9<<10)+`"`)
	_, data = logs.next(t)
	var e ui.LogEntry
	if err := json.Unmarshal([]byte(data), &e); err != nil || len(e.Refusals) != 2 || !strings.Contains(string(e.Refusals[1].Error), "truncated") {
		t.Fatalf("the completed entry: %s (%v)", data, err)
	}
	// A chat that connects gets the refusals kept for it, oldest first.
	again := w.openChat(t, w.alice, w.aliceTok)
	for i, want := range []string{first.String(), post.String()} {
		if name, data := again.next(t); name != "refusal" || !strings.Contains(data, `"id":"`+want+`"`) {
			t.Fatalf("replayed refusal %d: %s %s, want %s", i, name, data, want)
		}
	}

	// Bounds: an entry keeps 10, the node 256.
	var last snowflake.ID
	for range 300 {
		last = refuse(500, alice, invalid)
	}
	if _, data := aliceChat.nextWith(t, `"id":"`+last.String()+`"`); data == "" {
		t.Fatal("the last refusal did not arrive")
	}
	var entries []ui.LogEntry
	w.do(t, "GET", "/ui/interactions", "", nil, &entries)
	if len(entries) != 1 || len(entries[0].Refusals) != 10 {
		t.Fatalf("the entry keeps %d refusals, want 10", len(entries[0].Refusals))
	}
	fresh := w.openChat(t, w.alice, w.aliceTok)
	n := 0
	for {
		name, data := fresh.next(t)
		if name != "refusal" {
			t.Fatalf("after the replay: %s %s", name, data)
		}
		n++
		if strings.Contains(data, `"id":"`+last.String()+`"`) {
			break
		}
	}
	if n != 256 {
		t.Fatalf("%d refusals replayed, want the 256 kept", n)
	}
}
