package fault_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/testenv"
)

// noResponse checks that an invocation failed as one whose app did not
// answer in time fails.
func noResponse(t *testing.T, r invokeResult) {
	t.Helper()
	if r.err != nil || r.status != 504 || !strings.Contains(string(r.body), "The application did not respond") {
		t.Errorf("invocation: %d %s %v; want the deadline's failure", r.status, r.body, r.err)
	}
}

// restCode is the JSON code of a discordgo REST error (0: none).
func restCode(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Message != nil {
		return re.Message.Code
	}
	return 0
}

// TestDeliveryFaults: through a discordgo bot on the gateway, a late
// delivery fails the member's invocation at the deadline and reaches the
// bot after it (its answer refused, 10062); a dropped one never reaches
// it; an answered-for one is answered by slashd and the bot's own answer
// is refused as a second answer (40060).
func TestDeliveryFaults(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "deliveries")
	b := startBot(t, e, w, "pong")
	recv(t, b.ready, "READY")
	m := newMember(t, e, w)

	t.Run("late", func(t *testing.T) {
		addFault(t, e, w, map[string]any{"kind": "delivery.late", "app": "modbot", "delay_ms": 200})
		start := time.Now()
		done := m.invoke()
		var r invokeResult
		select {
		case r = <-done:
		case i := <-b.interactions:
			t.Fatalf("the bot got interaction %s before the deadline", i.ID)
		case <-time.After(waitTimeout):
			t.Fatal("the invocation did not end")
		}
		noResponse(t, r)
		recv(t, b.interactions, "the late INTERACTION_CREATE")
		if took := time.Since(start); took < 3200*time.Millisecond {
			t.Errorf("delivered %v after the invocation, want after the 3 s deadline and 200 ms", took)
		}
		if err := recv(t, b.answered, "InteractionRespond"); restCode(err) != 10062 {
			t.Errorf("the late answer: %v, want 10062 Unknown interaction", err)
		}
	})
	t.Run("dropped", func(t *testing.T) {
		addFault(t, e, w, map[string]any{"kind": "delivery.drop", "app": "modbot"})
		noResponse(t, recv(t, m.invoke(), "the dropped invocation"))
		// The next invocation is delivered: the first thing the bot gets
		// is it (events reach it in order), so the dropped one never came.
		done := m.invoke()
		i := recv(t, b.interactions, "INTERACTION_CREATE")
		if err := recv(t, b.answered, "InteractionRespond"); err != nil {
			t.Errorf("InteractionRespond: %v", err)
		}
		r := recv(t, done, "the second invocation")
		if r.status != 200 || !strings.Contains(string(r.body), `"id":"`+i.ID+`"`) {
			t.Errorf("the bot got %s; the second invocation answered %d %s", i.ID, r.status, r.body)
		}
	})
	t.Run("answered for", func(t *testing.T) {
		addFault(t, e, w, map[string]any{"kind": "delivery.answered", "app": "modbot",
			"response": map[string]any{"type": 4, "data": map[string]any{"content": "answered by the fault"}}})
		r := recv(t, m.invoke(), "the answered-for invocation")
		if r.status != 200 || !strings.Contains(string(r.body), `"content":"answered by the fault"`) {
			t.Errorf("invocation: %d %s", r.status, r.body)
		}
		recv(t, b.interactions, "INTERACTION_CREATE")
		if err := recv(t, b.answered, "InteractionRespond"); restCode(err) != 40060 {
			t.Errorf("the bot's answer: %v, want 40060 already acknowledged", err)
		}
	})
}
