// Package natsbus is an event.Bus over NATS, for running several slashd
// nodes as one service: what the API of any node publishes (gateway
// dispatches, permission updates, cache invalidations) reaches the
// subscribers (gateways) of every node.
//
// Wire format: each event is one NATS message on the subject
// "<prefix>.<type>" (prefix "slashd.events" unless Options.Prefix says
// otherwise) whose body is the JSON object
//
//	{"type": "...", "application_id": "...", "guild_id": "...", "data": ...}
//
// with the IDs as JSON strings (snowflake.ID's encoding) and data the
// JSON encoding of Event.Data. Data must therefore be JSON-marshalable;
// on the receiving side it is a json.RawMessage (nil for JSON null),
// which marshals back to the same JSON.
//
// Delivery: Publish does not hand the event to local subscribers
// itself; every node, the publisher included, receives it through its
// NATS subscriptions, so each subscriber sees each event exactly once.
// Events from one Bus (one connection) reach a subscriber in the order
// they were published: NATS keeps a connection's messages in order on
// their way to each subscription (on one server, and along the single
// route between two servers of a cluster), and each subscription
// delivers from one goroutine. Events from different publishers have no
// defined relative order. Like event.Memory, a subscriber that falls
// more than its buffer behind loses events; so do subscriptions made
// while the connection is down (NATS is at-most-once). Consumers that
// must not lose events keep their own replay buffer, as the gateway
// does.
package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// DefaultPrefix is the subject prefix when Options.Prefix is empty.
const DefaultPrefix = "slashd.events"

// subscribeFlushTimeout bounds how long Subscribe waits for the server
// to confirm a new subscription.
const subscribeFlushTimeout = 5 * time.Second

// Options configures a Bus.
type Options struct {
	// Prefix is the subject prefix (default DefaultPrefix). Buses see
	// each other's events only when they share it, which isolates
	// parallel tests (or several slashd deployments) on one NATS server.
	// It must be a valid NATS subject without wildcards.
	Prefix string
	// Logger receives publish, decode and subscribe errors (default:
	// discard).
	Logger *slog.Logger
	// Ordered delivers every event to every subscriber in one total
	// order, the order a JetStream stream (in memory, kept 10 minutes)
	// stored them in, rather than core NATS's per-publisher order. The
	// gateway's shadows of other nodes' sessions need it: every node
	// must number the same events alike. It needs JetStream on the
	// server.
	Ordered bool
}

// streamMaxAge is how long an ordered bus's stream keeps events, and
// streamMaxBytes how much of them; its subscribers only ever read new
// ones, so these only bound the server's memory (the API's cache
// barriers publish up to one marker per round trip per node).
const (
	streamMaxAge   = 10 * time.Minute
	streamMaxBytes = 256 << 20
)

// Bus is an event.Bus over a NATS connection.
type Bus struct {
	nc     *nats.Conn
	prefix string
	log    *slog.Logger
	stream jetstream.Stream // Options.Ordered: the stream subscribers read

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

var _ event.Bus = (*Bus)(nil)

// subscriber is one Subscribe call: its own NATS subscription, whose
// callback decodes each message and hands it to ch without blocking.
type subscriber struct {
	mu     sync.Mutex // guards all below, and sending on ch against close(ch)
	ch     chan event.Event
	closed bool
	sub    *nats.Subscription
	cc     jetstream.ConsumeContext // an ordered bus's subscription
	stop   func() bool              // stops waiting for the Subscribe context
	gap    event.GapTracker         // events lost to a full ch
}

// New returns a Bus publishing and subscribing on nc, and takes
// ownership of it: Close and Drain close the connection.
func New(nc *nats.Conn, o Options) (*Bus, error) {
	if nc == nil {
		return nil, errors.New("natsbus: nil connection")
	}
	prefix := o.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !validSubject(prefix) {
		return nil, fmt.Errorf("natsbus: invalid subject prefix %q", prefix)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := &Bus{nc: nc, prefix: prefix, log: log, subs: map[*subscriber]struct{}{}}
	if o.Ordered {
		js, err := jetstream.New(nc)
		if err != nil {
			return nil, fmt.Errorf("natsbus: JetStream: %w", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), subscribeFlushTimeout)
		defer cancel()
		b.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: strings.ReplaceAll(prefix, ".", "_"), Subjects: []string{prefix + ".>"},
			Storage: jetstream.MemoryStorage, MaxAge: streamMaxAge, MaxBytes: streamMaxBytes, Discard: jetstream.DiscardOld,
		})
		if err != nil {
			return nil, fmt.Errorf("natsbus: create the stream of %s: %w", prefix, err)
		}
	}
	return b, nil
}

// Conn returns the bus's connection.
func (b *Bus) Conn() *nats.Conn { return b.nc }

// Prefix returns the bus's subject prefix.
func (b *Bus) Prefix() string { return b.prefix }

// wire is an event as it travels over NATS.
type wire struct {
	Type          string          `json:"type"`
	ApplicationID snowflake.ID    `json:"application_id"`
	GuildID       snowflake.ID    `json:"guild_id"`
	Data          json.RawMessage `json:"data"`
}

// Publish implements event.Bus: it sends e to every node's subscribers
// (this node's included). It does not wait for them, nor for the
// server; the connection writes in the background and, while it is
// reconnecting, buffers (see Connect). Failures (Data that does not
// marshal, an invalid type, an oversized payload, a closed connection or
// a full reconnect buffer) are logged and the event is dropped: the
// interface has no error to return.
func (b *Bus) Publish(_ context.Context, e event.Event) {
	if !validToken(e.Type) {
		b.log.Error("natsbus: publish: invalid event type", "type", e.Type)
		return
	}
	data, err := jsonenc.Marshal(e.Data)
	if err != nil {
		b.log.Error("natsbus: publish: encode data", "type", e.Type, "err", err)
		return
	}
	body, err := jsonenc.Marshal(wire{Type: e.Type, ApplicationID: e.ApplicationID, GuildID: e.GuildID, Data: data})
	if err != nil {
		b.log.Error("natsbus: publish: encode event", "type", e.Type, "err", err)
		return
	}
	if err := b.nc.Publish(b.prefix+"."+e.Type, body); err != nil {
		b.log.Error("natsbus: publish", "type", e.Type, "application_id", e.ApplicationID,
			"guild_id", e.GuildID, "bytes", len(body), "err", err)
	}
}

// Flush waits until the server has processed everything this bus
// published so far, so that it has reached every subscription that
// existed then and none made afterwards. Publish does not need it;
// tests and shutdown do.
func (b *Bus) Flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
	}
	return b.nc.FlushWithContext(ctx)
}

// Subscribe implements event.Bus.
//
// Each call makes its own NATS subscription (to "<prefix>.>") rather
// than sharing one per Bus and fanning out locally. That way a
// subscription gets exactly the events the server routed after the
// subscription existed, as with event.Memory: with a shared one, events
// already on their way to this node when Subscribe is called would reach
// the new subscriber too. It also gives each subscriber its own
// goroutine, so one that is slow to be handed events (it never blocks:
// a full channel drops) does not delay the others. The cost, decoding
// each message once per local subscriber, is small: a node has one
// subscriber per gateway.
//
// Subscribe returns once the server has the subscription (it waits for
// it up to a few seconds; while disconnected it does not wait and the
// subscription starts with the reconnection), so events published
// anywhere after it returns are delivered. The channel is closed when
// ctx ends or the bus is closed; a subscription that cannot be made
// (closed connection) is logged and its channel closed at once.
func (b *Bus) Subscribe(ctx context.Context, buffer int) <-chan event.Event {
	if buffer < 1 {
		buffer = 1
	}
	s := &subscriber{ch: make(chan event.Event, buffer)}
	if ctx.Err() != nil {
		close(s.ch)
		return s.ch
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.ch)
		return s.ch
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()

	if b.stream != nil {
		if err := b.consume(ctx, s); err != nil {
			b.log.Error("natsbus: subscribe to the stream", "prefix", b.prefix, "err", err)
			b.unsubscribe(s)
			return s.ch
		}
	} else if err := b.subscribe(s); err != nil {
		b.log.Error("natsbus: subscribe", "prefix", b.prefix, "err", err)
		b.unsubscribe(s)
		return s.ch
	}
	if b.nc.IsConnected() {
		if err := b.nc.FlushTimeout(subscribeFlushTimeout); err != nil {
			b.log.Warn("natsbus: subscribe: server did not confirm the subscription", "prefix", b.prefix, "err", err)
		}
	}
	stop := context.AfterFunc(ctx, func() { b.unsubscribe(s) })
	s.mu.Lock()
	s.stop = stop
	closed := s.closed
	s.mu.Unlock()
	if closed {
		stop()
	}
	return s.ch
}

// subscribe gives s a core NATS subscription.
func (b *Bus) subscribe(s *subscriber) error {
	sub, err := b.nc.Subscribe(b.prefix+".>", func(m *nats.Msg) { s.offer(b.log, m.Subject, m.Data) })
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed { // the bus closed meanwhile
		_ = sub.Unsubscribe()
	}
	s.sub = sub
	return nil
}

// consume gives s an ordered consumer of the stream, from the next event
// on.
func (b *Bus) consume(ctx context.Context, s *subscriber) error {
	cons, err := b.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		return err
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { s.offer(b.log, m.Subject(), m.Data()) })
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cc.Stop()
	}
	s.cc = cc
	return nil
}

// offer decodes one message and offers it to s without blocking.
func (s *subscriber) offer(log *slog.Logger, subject string, data []byte) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		log.Error("natsbus: decode event", "subject", subject, "err", err)
		return
	}
	e := event.Event{Type: w.Type, ApplicationID: w.ApplicationID, GuildID: w.GuildID}
	if len(w.Data) > 0 && string(w.Data) != "null" {
		e.Data = w.Data
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.gap.Offer(s.ch, e)
}

// unsubscribe ends s's NATS subscription and closes its channel; it is
// idempotent.
func (b *Bus) unsubscribe(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.stop != nil {
		s.stop()
	}
	if s.sub != nil {
		// Fails only when the connection is already closed, which
		// has ended the subscription anyway.
		_ = s.sub.Unsubscribe()
	}
	if s.cc != nil {
		s.cc.Stop()
	}
	close(s.ch)
}

// closeSubs marks the bus closed and ends every subscription.
func (b *Bus) closeSubs() {
	b.mu.Lock()
	b.closed = true
	subs := make([]*subscriber, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		b.unsubscribe(s)
	}
}

// DeleteStream deletes an ordered bus's stream (tests clean up with it);
// other buses on the prefix lose their subscriptions.
func (b *Bus) DeleteStream(ctx context.Context) {
	if b.stream == nil {
		return
	}
	js, err := jetstream.New(b.nc)
	if err != nil {
		return
	}
	_ = js.DeleteStream(ctx, b.stream.CachedInfo().Config.Name)
}

// Close closes the connection at once, losing events not yet written to
// the server, and closes every subscription's channel. See Drain.
func (b *Bus) Close() {
	b.nc.Close()
	b.closeSubs()
}

// Drain shuts the bus down gracefully: the subscriptions stop taking new
// events and hand over those already received, what this node published
// is flushed to the server, and the connection closes; then every
// subscription's channel is closed. If ctx ends first the connection is
// closed at once and ctx's error returned.
func (b *Bus) Drain(ctx context.Context) error {
	defer b.closeSubs()
	if err := b.nc.Drain(); err != nil {
		if errors.Is(err, nats.ErrConnectionClosed) {
			return nil
		}
		// Reconnecting: Drain has closed the connection; what was
		// buffered for the server is lost.
		return fmt.Errorf("natsbus: drain: %w", err)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !b.nc.IsClosed() {
		select {
		case <-ctx.Done():
			b.nc.Close()
			return fmt.Errorf("natsbus: drain: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// validSubject reports whether s is a NATS subject of literal tokens.
func validSubject(s string) bool {
	for tok := range strings.SplitSeq(s, ".") {
		if !validToken(tok) {
			return false
		}
	}
	return true
}

// validToken reports whether s can be one literal subject token.
func validToken(s string) bool {
	if s == "" || s == "*" || s == ">" {
		return false
	}
	return !strings.ContainsAny(s, " \t\r\n.*>")
}
