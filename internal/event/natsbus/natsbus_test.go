package natsbus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/event/eventtest"
	"github.com/slashd/slashd/internal/event/natsbus"
	"github.com/slashd/slashd/internal/event/natsbus/natstest"
	"github.com/slashd/slashd/internal/snowflake"
)

// TestContract: each node is its own connection; a test's nodes share a
// prefix no other test uses.
func TestContract(t *testing.T) {
	natstest.URL(t)
	eventtest.Run(t, func(t *testing.T) func() event.Bus {
		prefix := natstest.Prefix(t)
		return func() event.Bus { return natstest.Bus(t, prefix) }
	})
}

// TestContractOrdered: the same contract with JetStream ordering.
func TestContractOrdered(t *testing.T) {
	natstest.URL(t)
	eventtest.Run(t, func(t *testing.T) func() event.Bus {
		prefix := natstest.Prefix(t)
		return func() event.Bus { return natstest.OrderedBus(t, prefix) }
	})
}

// TestOrderedBusOneOrderForAll: events two nodes publish at the same
// time reach every subscriber of an ordered bus in one and the same
// order (core NATS only keeps each publisher's own order).
func TestOrderedBusOneOrderForAll(t *testing.T) {
	t.Parallel()
	prefix := natstest.Prefix(t)
	a, b := natstest.OrderedBus(t, prefix), natstest.OrderedBus(t, prefix)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	subs := []<-chan event.Event{a.Subscribe(ctx, 4096), b.Subscribe(ctx, 4096)}
	const n = 500
	done := make(chan struct{})
	for _, bus := range []*natsbus.Bus{a, b} {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range n {
				bus.Publish(ctx, event.Event{Type: "T", Data: map[string]any{"from": bus.Prefix(), "i": i,
					"bus": fmt.Sprintf("%p", bus)}})
			}
		}()
	}
	<-done
	<-done
	var orders [2][]string
	for k, ch := range subs {
		for range 2 * n {
			e := recv(t, ch)
			orders[k] = append(orders[k], string(e.Data.(json.RawMessage)))
		}
	}
	for i := range orders[0] {
		if orders[0][i] != orders[1][i] {
			t.Fatalf("event %d: %s on one node, %s on the other", i, orders[0][i], orders[1][i])
		}
	}
}

func recv(t *testing.T, ch <-chan event.Event) event.Event {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatal("channel closed")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return event.Event{}
}

// TestPrefixesIsolate: buses on different prefixes of one server do not
// see each other's events.
func TestPrefixesIsolate(t *testing.T) {
	a := natstest.Bus(t, natstest.Prefix(t))
	b := natstest.Bus(t, natstest.Prefix(t))
	ctx := t.Context()
	chA, chB := a.Subscribe(ctx, 4), b.Subscribe(ctx, 4)
	a.Publish(ctx, event.Event{Type: "FROM_A", ApplicationID: 1})
	b.Publish(ctx, event.Event{Type: "FROM_B", ApplicationID: 2})
	if e := recv(t, chA); e.Type != "FROM_A" {
		t.Errorf("bus A got %+v", e)
	}
	if e := recv(t, chB); e.Type != "FROM_B" {
		t.Errorf("bus B got %+v", e)
	}
	a.Publish(ctx, event.Event{Type: "MARK"})
	b.Publish(ctx, event.Event{Type: "MARK"})
	if e := recv(t, chA); e.Type != "MARK" {
		t.Errorf("bus A then got %+v, want its marker", e)
	}
	if e := recv(t, chB); e.Type != "MARK" {
		t.Errorf("bus B then got %+v, want its marker", e)
	}
}

// TestWireFormat: the subject and body other (non-Go) nodes or tools see.
func TestWireFormat(t *testing.T) {
	prefix := natstest.Prefix(t)
	b := natstest.Bus(t, prefix)
	raw, err := nats.Connect(natstest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	sub, err := raw.SubscribeSync(prefix + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Flush(); err != nil {
		t.Fatal(err)
	}
	b.Publish(t.Context(), event.Event{Type: event.ApplicationCommandPermissionsUpdate, ApplicationID: 1 << 62, GuildID: 5,
		Data: map[string]any{"id": "9"}})
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := prefix + ".APPLICATION_COMMAND_PERMISSIONS_UPDATE"; m.Subject != want {
		t.Errorf("subject %q, want %q", m.Subject, want)
	}
	want := `{"type":"APPLICATION_COMMAND_PERMISSIONS_UPDATE","application_id":"4611686018427387904","guild_id":"5","data":{"id":"9"}}`
	if string(m.Data) != want {
		t.Errorf("body\n%s\nwant\n%s", m.Data, want)
	}

	// And a message from elsewhere in that format is an event; data
	// arrives as json.RawMessage.
	ch := b.Subscribe(t.Context(), 4)
	if err := raw.Publish(prefix+".INTERACTION_CREATE", []byte(`{"type":"INTERACTION_CREATE","application_id":"7","data":{"a": 1}}`)); err != nil {
		t.Fatal(err)
	}
	e := recv(t, ch)
	if e.Type != event.InteractionCreate || e.ApplicationID != 7 || e.GuildID != 0 {
		t.Errorf("got %+v", e)
	}
	if d, ok := e.Data.(json.RawMessage); !ok || string(d) != `{"a": 1}` {
		t.Errorf("Data %T %s, want json.RawMessage", e.Data, e.Data)
	}
}

// logBuffer collects slog output safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPublishErrorsAreLogged: what cannot be sent is logged and dropped;
// garbage on the subject is logged and skipped.
func TestPublishErrorsAreLogged(t *testing.T) {
	url := natstest.URL(t)
	nc, err := natsbus.Connect(url, "errors")
	if err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	prefix := natstest.Prefix(t)
	b, err := natsbus.New(nc, natsbus.Options{Prefix: prefix, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := t.Context()
	ch := b.Subscribe(ctx, 4)

	b.Publish(ctx, event.Event{Type: "BAD_DATA", Data: func() {}})
	b.Publish(ctx, event.Event{Type: "has.dot"})
	b.Publish(ctx, event.Event{Type: ""})
	b.Publish(ctx, event.Event{Type: "TOO_BIG", Data: strings.Repeat("x", int(nc.MaxPayload())+1)})
	if err := nc.Publish(prefix+".GARBAGE", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	b.Publish(ctx, event.Event{Type: "GOOD"})
	if e := recv(t, ch); e.Type != "GOOD" {
		t.Fatalf("got %+v, want only the good event", e)
	}
	for _, want := range []string{"encode data", "invalid event type", "maximum payload", "decode event"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}

	b.Close()
	b.Publish(ctx, event.Event{Type: "AFTER_CLOSE"})
	if !strings.Contains(logs.String(), "connection closed") {
		t.Errorf("publish after close not logged:\n%s", logs.String())
	}
	// Close ended the subscription; a new one is closed at once.
	for range ch {
	}
	for range b.Subscribe(ctx, 1) {
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := natsbus.New(nil, natsbus.Options{}); err == nil {
		t.Error("nil connection accepted")
	}
	nc := &nats.Conn{}
	for _, p := range []string{"a..b", "a.*", "a.>", "a b", ".a", "a."} {
		if _, err := natsbus.New(nc, natsbus.Options{Prefix: p}); err == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
	if b, err := natsbus.New(nc, natsbus.Options{}); err != nil || b.Prefix() != natsbus.DefaultPrefix {
		t.Errorf("default prefix: %v %v", b, err)
	}
}

// TestDrain: events published just before Drain still reach other
// nodes; Drain closes the connection and the drained bus's channels.
func TestDrain(t *testing.T) {
	prefix := natstest.Prefix(t)
	other := natstest.Bus(t, prefix)
	nc, err := natsbus.Connect(natstest.URL(t), "drain")
	if err != nil {
		t.Fatal(err)
	}
	b, err := natsbus.New(nc, natsbus.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	got := other.Subscribe(ctx, 2000)
	own := b.Subscribe(ctx, 1)
	const n = 1000
	for i := range n {
		b.Publish(ctx, event.Event{Type: "DRAIN", ApplicationID: 1, GuildID: snowflakeID(i)})
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Drain(dctx); err != nil {
		t.Fatalf("drain: %v", err)
	}
	if !nc.IsClosed() {
		t.Error("connection open after Drain")
	}
	for i := range n {
		if e := recv(t, got); e.GuildID != snowflakeID(i) {
			t.Fatalf("event %d: got guild %d", i, e.GuildID)
		}
	}
	for range own { // closed by Drain
	}
	if err := b.Drain(dctx); err != nil {
		t.Errorf("second drain: %v", err)
	}
}

func snowflakeID(i int) snowflake.ID { return snowflake.ID(i + 1) }
