// Package eventtest is the contract every event.Bus keeps, as a test
// suite: run it against each implementation (event.Memory, natsbus).
//
// A bus under test is seen through its nodes: the Bus values that the
// processes of one deployment would each hold. For event.Memory every
// node is the same *Memory; for a networked bus each node is its own
// connection. The suite publishes on one node and checks what the
// subscribers of every node receive.
package eventtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
)

// Flusher is implemented by buses whose Publish returns before the event
// has reached the other nodes (natsbus.Bus). Flush returns once every
// event this node published earlier has reached every subscription that
// existed then, and will reach none made afterwards. The suite calls it
// where "published before" matters; for a bus without it, Publish
// returning means that already.
type Flusher interface {
	Flush(ctx context.Context) error
}

// NewBus makes a fresh bus for one test, isolated from the buses of
// other tests (which may run in parallel), and returns how to get its
// nodes. Each call of node returns a node of that same bus; it may
// return the same value every time. Cleanup is newBus's (t.Cleanup).
type NewBus func(t *testing.T) (node func() event.Bus)

// wait bounds every wait for an event that should come.
const wait = 10 * time.Second

// Run runs the contract suite; its subtests run in parallel.
//
// Event types used are upper-case words with underscores, valid for any
// bus that names subjects after them.
func Run(t *testing.T, newBus NewBus) {
	tests := []struct {
		name string
		f    func(t *testing.T, newBus NewBus)
	}{
		{"DeliveredOnceToEveryNode", testDeliveredOnceToEveryNode},
		{"MultipleSubscribers", testMultipleSubscribers},
		{"SubscribeWithEndedContext", testSubscribeWithEndedContext},
		{"CancelClosesChannel", testCancelClosesChannel},
		{"SlowSubscriberDoesNotBlock", testSlowSubscriberDoesNotBlock},
		{"GapMarksLostEvents", testGapMarksLostEvents},
		{"OrderPerPublisher", testOrderPerPublisher},
		{"DataRoundTripsAsJSON", testDataRoundTripsAsJSON},
		{"NotDeliveredBeforeSubscribe", testNotDeliveredBeforeSubscribe},
		{"ConcurrentChurn", testConcurrentChurn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t, newBus)
		})
	}
}

// flush makes b's earlier publishes visible everywhere (see Flusher).
func flush(t *testing.T, b event.Bus) {
	t.Helper()
	f, ok := b.(Flusher)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := f.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

// subscribe subscribes until the test ends.
func subscribe(t *testing.T, b event.Bus, buffer int) <-chan event.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return b.Subscribe(ctx, buffer)
}

// next returns the next event on ch, failing the test if none comes.
func next(t *testing.T, ch <-chan event.Event, what string) event.Event {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatalf("%s: channel closed, want an event", what)
		}
		return e
	case <-time.After(wait):
		t.Fatalf("%s: no event within %v", what, wait)
	}
	return event.Event{}
}

// dataJSON is the JSON of an event's Data, the form the gateway sends.
func dataJSON(t *testing.T, e event.Event) []byte {
	t.Helper()
	b, err := json.Marshal(e.Data)
	if err != nil {
		t.Fatalf("marshal Data of %+v: %v", e, err)
	}
	return b
}

// expect checks that the next event on ch is want, its Data compared as
// JSON.
func expect(t *testing.T, ch <-chan event.Event, want event.Event, what string) {
	t.Helper()
	got := next(t, ch, what)
	if got.Type != want.Type || got.ApplicationID != want.ApplicationID || got.GuildID != want.GuildID {
		t.Fatalf("%s: got %s app %d guild %d, want %s app %d guild %d", what,
			got.Type, got.ApplicationID, got.GuildID, want.Type, want.ApplicationID, want.GuildID)
	}
	if g, w := dataJSON(t, got), dataJSON(t, want); !bytes.Equal(g, w) {
		t.Fatalf("%s: %s Data is %s, want %s", what, got.Type, g, w)
	}
}

// marker is an event that, published after others by the same node and
// received next, shows nothing was delivered twice in between.
func marker(n int) event.Event {
	return event.Event{Type: "EVENTTEST_MARKER", ApplicationID: 99, Data: map[string]int{"marker": n}}
}

func testDeliveredOnceToEveryNode(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a, b := node(), node()
	subA, subB := subscribe(t, a, 16), subscribe(t, b, 16)
	subs := map[string]<-chan event.Event{"subscriber on the publishing node": subA, "subscriber on another node": subB}

	e1 := event.Event{Type: event.ApplicationCommandPermissionsUpdate, ApplicationID: 1, GuildID: 2,
		Data: map[string]any{"id": "3", "permissions": []any{}}}
	a.Publish(context.Background(), e1)
	a.Publish(context.Background(), marker(1))
	for what, ch := range subs {
		expect(t, ch, e1, what)
		expect(t, ch, marker(1), what+" (after the event: a duplicate?)")
	}

	e2 := event.Event{Type: event.InteractionCreate, ApplicationID: 4, Data: map[string]any{"type": 2}}
	b.Publish(context.Background(), e2)
	b.Publish(context.Background(), marker(2))
	for what, ch := range subs {
		expect(t, ch, e2, what+", published on the other node")
		expect(t, ch, marker(2), what+", published on the other node (after the event: a duplicate?)")
	}
}

func testMultipleSubscribers(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a, b := node(), node()
	var subs []<-chan event.Event
	for range 3 {
		subs = append(subs, subscribe(t, a, 4))
	}
	for range 2 {
		subs = append(subs, subscribe(t, b, 4))
	}
	e := event.Event{Type: "EVENTTEST_MULTI", ApplicationID: 7, GuildID: 8, Data: "x"}
	b.Publish(context.Background(), e)
	b.Publish(context.Background(), marker(0))
	for i, ch := range subs {
		what := fmt.Sprintf("subscriber %d", i)
		expect(t, ch, e, what)
		expect(t, ch, marker(0), what+" (after the event: a duplicate?)")
	}
}

// closes waits for ch to be closed, discarding at most limit events
// first, and returns how many it discarded.
func closes(t *testing.T, ch <-chan event.Event, limit int, what string) int {
	t.Helper()
	timeout := time.After(wait)
	for n := 0; ; n++ {
		select {
		case _, ok := <-ch:
			if !ok {
				return n
			}
			if n == limit {
				t.Fatalf("%s: more than %d events and still open", what, limit)
			}
		case <-timeout:
			t.Fatalf("%s: channel not closed within %v", what, wait)
		}
	}
}

func testSubscribeWithEndedContext(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a := node()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch := a.Subscribe(ctx, 4)
	a.Publish(context.Background(), event.Event{Type: "EVENTTEST_IGNORED"})
	closes(t, ch, 1, "Subscribe with an ended context")
}

func testCancelClosesChannel(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a, b := node(), node()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	chA, chB := a.Subscribe(ctx, 4), b.Subscribe(ctx, 4)
	e := event.Event{Type: "EVENTTEST_BEFORE_CANCEL", ApplicationID: 1}
	a.Publish(context.Background(), e)
	expect(t, chA, e, "publishing node")
	expect(t, chB, e, "other node")
	cancel()
	closes(t, chA, 0, "publishing node after cancel")
	closes(t, chB, 0, "other node after cancel")
	// No subscriber left: publishing must neither panic nor block.
	for range 10 {
		a.Publish(context.Background(), event.Event{Type: "EVENTTEST_AFTER_CANCEL"})
		b.Publish(context.Background(), event.Event{Type: "EVENTTEST_AFTER_CANCEL"})
	}
	flush(t, a)
	flush(t, b)
}

// seqEvent is the n-th event of publisher p.
func seqEvent(p, n int) event.Event {
	return event.Event{Type: "EVENTTEST_SEQ", ApplicationID: snowflake.ID(100 + p), GuildID: snowflake.ID(n + 1),
		Data: map[string]int{"publisher": p, "seq": n}}
}

// testGapMarksLostEvents: a subscriber that loses events to its full
// buffer gets the next event it receives marked AfterGap, so that no
// event is missing from what it reads without a mark saying so.
// Whether a networked bus drops any here depends on timing, so the check
// is that property; the in-process bus must drop (Publish is
// synchronous), and the test says so with wantGap.
func testGapMarksLostEvents(t *testing.T, newBus NewBus) {
	const n = 200
	node := newBus(t)
	a, b := node(), node()
	_, inProcess := a.(*event.Memory)
	slow := subscribe(t, b, 1)
	for i := range n {
		a.Publish(context.Background(), seqEvent(0, i))
	}
	flush(t, a)
	final := event.Event{Type: "EVENTTEST_FINAL"}
	a.Publish(context.Background(), final)
	flush(t, a)

	// Read until the final event; it may itself be lost to a full
	// buffer, so it is published again while none comes (a poll with a
	// deadline).
	deadline := time.After(wait)
	next, sawGap := 0, false
	for {
		select {
		case e, ok := <-slow:
			if !ok {
				t.Fatal("the subscription closed")
			}
			sawGap = sawGap || e.AfterGap
			switch e.Type {
			case "EVENTTEST_FINAL":
				if next != n && !e.AfterGap {
					t.Fatalf("events %d..%d were lost without a mark", next, n-1)
				}
				if inProcess && !sawGap {
					t.Error("the in-process bus dropped events to a 1-slot buffer without marking one AfterGap")
				}
				return
			case "EVENTTEST_SEQ":
				seq := int(e.GuildID) - 1
				if seq < next {
					t.Fatalf("event %d after %d: out of order", seq, next-1)
				}
				if seq > next && !e.AfterGap {
					t.Fatalf("events %d..%d were lost, and event %d is not marked AfterGap", next, seq-1, seq)
				}
				if seq == next && e.AfterGap {
					t.Fatalf("event %d is marked AfterGap, but none was lost before it", seq)
				}
				next = seq + 1
			default:
				t.Fatalf("unexpected event %s", e.Type)
			}
		case <-time.After(100 * time.Millisecond):
			a.Publish(context.Background(), final)
			flush(t, a)
		case <-deadline:
			t.Fatalf("the final event did not arrive within %v", wait)
		}
	}
}

func testSlowSubscriberDoesNotBlock(t *testing.T, newBus NewBus) {
	const n = 1000
	node := newBus(t)
	a, b := node(), node()
	slowCtx, stopSlow := context.WithCancel(context.Background())
	defer stopSlow()
	slowA, slowB := a.Subscribe(slowCtx, 1), b.Subscribe(slowCtx, 1) // never read until the end
	fast := subscribe(t, b, n)

	done := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		for i := range n {
			a.Publish(context.Background(), seqEvent(0, i))
		}
		done <- time.Since(start)
	}()
	select {
	case d := <-done:
		t.Logf("%d publishes with two stalled subscribers took %v", n, d)
	case <-time.After(wait):
		t.Fatalf("%d publishes did not return within %v: Publish blocks on a slow subscriber", n, wait)
	}
	for i := range n {
		expect(t, fast, seqEvent(0, i), fmt.Sprintf("fast subscriber, event %d", i))
	}
	// What the slow ones kept is in order, and ending them closes their
	// channels. (How many they kept is not fixed: the channel closes
	// asynchronously after cancel, so events may still come while it is
	// drained.)
	stopSlow()
	for what, ch := range map[string]<-chan event.Event{"slow subscriber on the publishing node": slowA, "slow subscriber on another node": slowB} {
		last, got := 0, 0
		timeout := time.After(wait)
	drain:
		for {
			select {
			case e, ok := <-ch:
				if !ok {
					break drain
				}
				if e.Type != "EVENTTEST_SEQ" || int(e.GuildID) <= last {
					t.Fatalf("%s: got %s guild %d after guild %d, want later events of the sequence", what, e.Type, e.GuildID, last)
				}
				last = int(e.GuildID)
				got++
			case <-timeout:
				t.Fatalf("%s: channel not closed within %v of cancel", what, wait)
			}
		}
		t.Logf("%s kept %d of %d events", what, got, n)
	}
}

func testOrderPerPublisher(t *testing.T, newBus NewBus) {
	const n = 300
	node := newBus(t)
	a, b := node(), node()
	subs := []<-chan event.Event{subscribe(t, a, 2*n), subscribe(t, b, 2*n)}

	// One publisher: exactly its sequence.
	for i := range n {
		a.Publish(context.Background(), seqEvent(0, i))
	}
	for s, ch := range subs {
		for i := range n {
			expect(t, ch, seqEvent(0, i), fmt.Sprintf("subscriber %d, event %d", s, i))
		}
	}

	// Two publishers at once: each one's events in its order.
	var wg sync.WaitGroup
	for p, bus := range []event.Bus{a, b} {
		wg.Go(func() {
			for i := range n {
				bus.Publish(context.Background(), seqEvent(p, i))
			}
		})
	}
	wg.Wait()
	for s, ch := range subs {
		nextSeq := [2]int{}
		for range 2 * n {
			e := next(t, ch, fmt.Sprintf("subscriber %d", s))
			p := int(e.ApplicationID) - 100
			if e.Type != "EVENTTEST_SEQ" || p < 0 || p > 1 {
				t.Fatalf("subscriber %d: unexpected %+v", s, e)
			}
			want := seqEvent(p, nextSeq[p])
			if e.GuildID != want.GuildID || !bytes.Equal(dataJSON(t, e), dataJSON(t, want)) {
				t.Fatalf("subscriber %d: from publisher %d got %s, want %s", s, p, dataJSON(t, e), dataJSON(t, want))
			}
			nextSeq[p]++
		}
	}
}

// payload is a struct Data, as the API publishes (with its JSON tags).
type payload struct {
	ID          snowflake.ID   `json:"id"`
	Name        string         `json:"name"`
	Options     []payloadOpt   `json:"options,omitempty"`
	Nullable    *string        `json:"nullable"`
	Omitted     string         `json:"omitted,omitempty"`
	Extra       map[string]any `json:"extra"`
	Permissions []any          `json:"permissions"`
}

type payloadOpt struct {
	Type  int     `json:"type"`
	Value float64 `json:"value"`
}

func testDataRoundTripsAsJSON(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a, b := node(), node()
	subA, subB := subscribe(t, a, 32), subscribe(t, b, 32)
	name := "nullable"
	datas := []any{
		nil,
		"a string with \"quotes\", <html> & unicode: héllo ✓ \u2028",
		42,
		-0.1,
		1e21,
		true,
		[]any{1, "two", nil, []int{3}},
		map[string]any{"nested": map[string]any{"deep": []any{map[string]int{"x": 1}}}, "empty": map[string]any{}},
		json.RawMessage(`{"raw" : [1, 2,  3]}`),
		payload{ID: 1<<63 - 1, Name: "ping", Options: []payloadOpt{{Type: 3, Value: 0.5}}, Extra: map[string]any{"b": 1, "a": 2}},
		&payload{ID: 1, Nullable: &name, Permissions: []any{}},
		[]byte("bytes become base64"),
	}
	for i, d := range datas {
		e := event.Event{Type: "EVENTTEST_DATA", ApplicationID: snowflake.ID(1<<63 + uint64(i)), GuildID: snowflake.ID(i), Data: d}
		a.Publish(context.Background(), e)
		expect(t, subA, e, fmt.Sprintf("publishing node, Data %T", d))
		expect(t, subB, e, fmt.Sprintf("other node, Data %T", d))
	}
}

func testNotDeliveredBeforeSubscribe(t *testing.T, newBus NewBus) {
	node := newBus(t)
	a, b := node(), node()
	early := subscribe(t, b, 4)
	old := event.Event{Type: "EVENTTEST_OLD", ApplicationID: 1}
	a.Publish(context.Background(), old)
	flush(t, a)
	expect(t, early, old, "subscriber from before") // the event has gone out

	subA, subB := subscribe(t, a, 4), subscribe(t, b, 4)
	fresh := event.Event{Type: "EVENTTEST_NEW", ApplicationID: 2}
	a.Publish(context.Background(), fresh)
	expect(t, subA, fresh, "publishing node, subscribed after an earlier event")
	expect(t, subB, fresh, "other node, subscribed after an earlier event")
}

// testConcurrentChurn publishes from several goroutines while others
// subscribe and cancel, for the race detector and for sends on closed
// channels.
func testConcurrentChurn(t *testing.T, newBus NewBus) {
	node := newBus(t)
	nodes := []event.Bus{node(), node()}
	ctx, stop := context.WithTimeout(context.Background(), wait)
	defer stop()
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			bus := nodes[p%2]
			for i := range 200 {
				bus.Publish(ctx, seqEvent(p, i))
			}
		})
	}
	for s := range 4 {
		wg.Go(func() {
			bus := nodes[s%2]
			for i := range 20 {
				subCtx, cancel := context.WithCancel(ctx)
				ch := bus.Subscribe(subCtx, 2)
				if i%2 == 0 {
					select {
					case <-ch:
					case <-time.After(time.Millisecond):
					}
				}
				cancel()
				for range ch { // closes
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("churn did not finish within %v", wait)
	}
}
