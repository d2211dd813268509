package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// EventAppended is the bus event a node publishes after each batch it
// wrote (Data: Appended), which wakes the long-polls of every node.
const EventAppended = "JOURNAL_APPENDED"

// Appended is EventAppended's data: the worlds the batch wrote to.
type Appended struct {
	Worlds []snowflake.ID `json:"worlds"`
}

// Defaults of Options.
const (
	DefaultKeep  = 10_000
	DefaultQueue = 8192
	DefaultBatch = 256
	DefaultFlush = 10 * time.Millisecond
)

// Options configure a Recorder.
type Options struct {
	Store store.Store
	// Bus carries EventAppended to every node (nil: no waking; the
	// waiters' store poll still finds the entries).
	Bus event.Bus
	IDs *snowflake.Generator
	Now func() time.Time
	// Keep is how many entries each world keeps (DefaultKeep when 0).
	Keep int
	// Queue bounds the entries waiting to be written; past it entries
	// are dropped and counted (Dropped), never waited for: a request
	// must not stall behind the journal.
	Queue int
	// Batch is the most entries one write takes; Flush how long the
	// writer waits for more after the first before writing.
	Batch  int
	Flush  time.Duration
	Logger *slog.Logger
}

// Recorder queues entries and writes them in batches from one goroutine.
// A nil *Recorder records nothing (the journal is off).
type Recorder struct {
	o     Options
	queue chan item
	// full wakes the writer early: a sender saw a whole batch queued.
	full   chan struct{}
	closed chan struct{}
	done   chan struct{}
	once   sync.Once
	// mu guards closing against Record's send.
	mu       sync.RWMutex
	stopping bool

	dropped atomic.Int64 // entries dropped, ever (the metric)
	// lost counts drops not yet reported, by world (0: an app's entry
	// whose world was not known yet).
	lostMu sync.Mutex
	lost   map[snowflake.ID]int64

	worlds worldCache
	// sinceTrim counts the entries written since the store last trimmed
	// (the writer's alone): trimming scans a world's newest Keep entries,
	// so it runs once per Keep/10 entries written, and a world holds at
	// most 10% over its cap meanwhile.
	sinceTrim int
	// interactions remembers the app and world of the interactions this
	// node delivered, for their callbacks (authenticated by the
	// interaction's token, not the app's).
	interactions interactionCache
}

type item struct {
	world, app snowflake.ID
	typ        string
	at         time.Time
	body       any
	// synced, on a Sync's marker (no entry), is closed once every entry
	// queued before it is written.
	synced chan struct{}
}

// New starts a recorder; Close stops it.
func New(o Options) *Recorder {
	if o.Keep == 0 {
		o.Keep = DefaultKeep
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Flush <= 0 {
		o.Flush = DefaultFlush
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Recorder{o: o, queue: make(chan item, o.Queue), full: make(chan struct{}, 1), closed: make(chan struct{}),
		done: make(chan struct{}),
		lost: map[snowflake.ID]int64{}, worlds: worldCache{m: map[snowflake.ID]snowflake.ID{}},
		interactions: interactionCache{m: map[snowflake.ID][2]snowflake.ID{}}}
	go r.write()
	return r
}

// Record queues an entry of world (0: nothing is recorded). body must
// marshal to a JSON object and must not change after the call: it is
// encoded by the writer.
func (r *Recorder) Record(world snowflake.ID, typ string, body any) {
	if r == nil || world == 0 {
		return
	}
	r.enqueue(item{world: world, typ: typ, at: r.o.Now(), body: body})
}

// RecordApp is Record for the world of application app, looked up once
// per app (an app's world is fixed at its creation).
func (r *Recorder) RecordApp(app snowflake.ID, typ string, body any) {
	if r == nil || app == 0 {
		return
	}
	if w, ok := r.worlds.get(app); ok {
		r.Record(w, typ, body)
		return
	}
	r.enqueue(item{app: app, typ: typ, at: r.o.Now(), body: body})
}

// WorldOf is app's world when already known (ok false: not looked up
// yet); callers that have the app at hand pass it to Record instead.
func (r *Recorder) WorldOf(app snowflake.ID) (world snowflake.ID, ok bool) {
	if r == nil {
		return 0, true
	}
	return r.worlds.get(app)
}

// On reports whether entries are recorded.
func (r *Recorder) On() bool { return r != nil }

// Dropped counts the entries dropped because the queue was full.
func (r *Recorder) Dropped() int64 {
	if r == nil {
		return 0
	}
	return r.dropped.Load()
}

func (r *Recorder) enqueue(it item) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.stopping {
		return
	}
	select {
	case r.queue <- it:
		if len(r.queue) >= r.o.Batch-1 { // and the one the writer holds
			select {
			case r.full <- struct{}{}:
			default:
			}
		}
	default:
		r.dropped.Add(1)
		r.lostMu.Lock()
		r.lost[it.world]++
		r.lostMu.Unlock()
	}
}

// Sync waits until every entry this node queued before the call is
// written (or failed to be), so that a read that follows sees them: a
// test's "no failures" right after its last action must not miss the
// entries still in the queue. It wakes the writer rather than waiting
// out its Flush.
func (r *Recorder) Sync(ctx context.Context) error {
	if r == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	synced := make(chan struct{})
	r.mu.RLock()
	if r.stopping {
		r.mu.RUnlock()
		return nil // Close writes what is queued
	}
	select {
	case r.queue <- item{synced: synced}: // never dropped: it waits for room
	case <-ctx.Done():
		r.mu.RUnlock()
		return ctx.Err()
	}
	r.mu.RUnlock()
	select {
	case r.full <- struct{}{}:
	default:
	}
	select {
	case <-synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking entries and writes those queued, within ctx.
func (r *Recorder) Close(ctx context.Context) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		r.mu.Lock()
		r.stopping = true
		r.mu.Unlock()
		close(r.closed)
	})
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// write is the writer: it takes a batch (the first entry, then whatever
// came within Flush, up to Batch), writes it in one transaction, and
// tells every node's waiters. Within Flush it sleeps, not woken by each
// entry (they wait in the queue): a request's Record then only queues,
// where waking the writer for each of an invocation's entries took the
// other core from the request, five times an invocation. A sender wakes
// it early when a whole batch is queued (full).
func (r *Recorder) write() {
	defer close(r.done)
	batch := make([]item, 0, r.o.Batch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		batch = batch[:0]
		select {
		case it := <-r.queue:
			batch = append(batch, it)
		case <-r.closed:
			r.drain(batch)
			return
		}
		if len(r.queue) < r.o.Batch-1 {
			timer.Reset(r.o.Flush)
			select {
			case <-timer.C:
			case <-r.full:
			case <-r.closed:
			}
			timer.Stop()
		}
	take:
		for len(batch) < r.o.Batch {
			select {
			case it := <-r.queue:
				batch = append(batch, it)
			default:
				break take
			}
		}
		r.flush(batch)
	}
}

// drain writes what is queued at Close.
func (r *Recorder) drain(batch []item) {
	for {
		select {
		case it := <-r.queue:
			batch = append(batch, it)
			if len(batch) == r.o.Batch {
				r.flush(batch)
				batch = batch[:0]
			}
		default:
			r.flush(batch)
			return
		}
	}
}

// flush writes one batch (and the drops not yet reported), then
// releases the Syncs waiting on it.
func (r *Recorder) flush(batch []item) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer func() {
		for _, it := range batch {
			if it.synced != nil {
				close(it.synced)
			}
		}
	}()
	entries := make([]store.JournalEntry, 0, len(batch)+1)
	var worlds []snowflake.ID
	add := func(world snowflake.ID, typ string, at time.Time, body any) {
		raw, err := encodeBody(body)
		if err != nil {
			r.o.Logger.Error("journal: encode an entry", "type", typ, "err", err)
			return
		}
		entries = append(entries, store.JournalEntry{WorldID: world, ID: r.o.IDs.Next(), Type: typ, At: at, Body: raw})
		for _, w := range worlds {
			if w == world {
				return
			}
		}
		worlds = append(worlds, world)
	}
	for _, it := range batch {
		if it.synced != nil {
			continue // a Sync's marker: no entry
		}
		w := it.world
		if w == 0 {
			var err error
			if w, err = r.worldOf(ctx, it.app); err != nil {
				r.o.Logger.Error("journal: look up an app's world", "app", it.app, "err", err)
				continue
			}
		}
		if w != 0 {
			add(w, it.typ, it.at, it.body)
		}
	}
	r.lostMu.Lock()
	lost := r.lost
	if len(lost) > 0 {
		r.lost = map[snowflake.ID]int64{}
	}
	r.lostMu.Unlock()
	for w, n := range lost {
		if w != 0 { // an app's drops before its world was known are only counted
			add(w, Dropped, r.o.Now(), map[string]int64{"count": n})
		}
	}
	if len(entries) == 0 {
		return
	}
	keep := 0
	r.sinceTrim += len(entries)
	if r.o.Keep > 0 && r.sinceTrim >= max(r.o.Keep/10, 1) {
		keep, r.sinceTrim = r.o.Keep, 0
	}
	if err := r.o.Store.AppendJournal(ctx, entries, keep); err != nil {
		r.dropped.Add(int64(len(entries)))
		r.o.Logger.Error("journal: write a batch", "entries", len(entries), "err", err)
		return
	}
	if r.o.Bus != nil {
		r.o.Bus.Publish(ctx, event.Event{Type: EventAppended, Data: Appended{Worlds: worlds}})
	}
}

func (r *Recorder) worldOf(ctx context.Context, app snowflake.ID) (snowflake.ID, error) {
	if w, ok := r.worlds.get(app); ok {
		return w, nil
	}
	a, err := r.o.Store.Application(ctx, app)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil // deleted meanwhile: nothing to record
	}
	if err != nil {
		return 0, err
	}
	r.worlds.put(app, a.WorldID)
	return a.WorldID, nil
}

func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case json.RawMessage:
		return b, nil
	case []byte:
		return b, nil
	case Spliced:
		return encodeSpliced(b)
	}
	raw, err := jsonenc.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return raw, nil
}

// worldCache remembers apps' worlds (fixed at creation, and ids are
// never reused), bounded: it starts over when full.
type worldCache struct {
	mu sync.RWMutex
	m  map[snowflake.ID]snowflake.ID
}

const worldCacheSize = 65536

func (c *worldCache) get(app snowflake.ID) (snowflake.ID, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	w, ok := c.m[app]
	return w, ok
}

func (c *worldCache) put(app, world snowflake.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= worldCacheSize {
		clear(c.m)
	}
	c.m[app] = world
}

// Learn tells the recorder app's world (when the caller has the app at
// hand), so that RecordApp need not look it up.
func (r *Recorder) Learn(app, world snowflake.ID) {
	if r != nil && app != 0 {
		r.worlds.put(app, world)
	}
}

// interactionCache: interaction → (app, world), bounded (an interaction
// token lives 15 minutes; the cache starts over when full).
type interactionCache struct {
	mu sync.Mutex
	m  map[snowflake.ID][2]snowflake.ID
}

const interactionCacheSize = 65536

// LearnInteraction remembers a world's interaction delivered by this
// node, so that its callbacks are recorded.
func (r *Recorder) LearnInteraction(id, app, world snowflake.ID) {
	if r == nil || world == 0 {
		return
	}
	r.interactions.mu.Lock()
	defer r.interactions.mu.Unlock()
	if len(r.interactions.m) >= interactionCacheSize {
		clear(r.interactions.m)
	}
	r.interactions.m[id] = [2]snowflake.ID{app, world}
}

// Interaction is the app and world of an interaction LearnInteraction
// was told of (known false: none).
func (r *Recorder) Interaction(id snowflake.ID) (app, world snowflake.ID, known bool) {
	if r == nil {
		return 0, 0, false
	}
	r.interactions.mu.Lock()
	defer r.interactions.mu.Unlock()
	v, ok := r.interactions.m[id]
	return v[0], v[1], ok
}
