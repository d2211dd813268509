package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Limits of a read.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
	// MaxWait caps a long-poll: under serve's 60 s write timeout, with
	// room for the answer.
	MaxWait = 50 * time.Second
	// pollEvery is the store poll behind the bus: a long-poll looks at
	// the store this often even when no wake-up came (a bus that lost
	// events, a writer without a bus), so it never waits forever.
	pollEvery = time.Second
)

// Waiters wake long-polls when a batch is written, on any node: each
// node's recorder publishes EventAppended after its batch commits, and
// every node's Waiters hear it.
type Waiters struct {
	mu    sync.Mutex
	chans map[snowflake.ID]chan struct{}
}

// NewWaiters listens to bus until ctx ends (nil bus: only the store
// poll wakes waiters).
func NewWaiters(ctx context.Context, bus event.Bus) *Waiters {
	w := &Waiters{chans: map[snowflake.ID]chan struct{}{}}
	if bus != nil {
		go w.listen(bus.Subscribe(ctx, 256))
	}
	return w
}

func (w *Waiters) listen(events <-chan event.Event) {
	for e := range events {
		if e.AfterGap {
			w.wakeAll() // what was lost may have been ours
		}
		if e.Type != EventAppended {
			continue
		}
		var a Appended
		if event.DecodeData(e.Data, &a) != nil {
			continue
		}
		for _, world := range a.Worlds {
			w.Wake(world)
		}
	}
}

// changed is closed at the next write to world.
func (w *Waiters) changed(world snowflake.ID) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.chans[world]
	if !ok {
		ch = make(chan struct{})
		w.chans[world] = ch
	}
	return ch
}

// Wake releases world's waiters.
func (w *Waiters) Wake(world snowflake.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.chans[world]; ok {
		close(ch)
		delete(w.chans, world)
	}
}

func (w *Waiters) wakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for world, ch := range w.chans {
		close(ch)
		delete(w.chans, world)
	}
}

// Query is a read of a world's journal.
type Query struct {
	World snowflake.ID
	After int64
	// Types selects entry types (none: all); FailuresOnly keeps only
	// failures of them (IsFailure).
	Types        []string
	FailuresOnly bool
	Limit        int
	// Wait: when nothing is after the cursor, wait up to this long for
	// something to be written.
	Wait time.Duration
}

// Page is a read's answer: the entries and the cursor to read on from
// (past the entries read, and past those a filter skipped).
type Page struct {
	Entries []store.JournalEntry
	Cursor  int64
}

// Read reads q, long-polling up to q.Wait (at most MaxWait) when nothing
// is after the cursor; it returns early when ctx ends (the client left)
// with what it has.
func Read(ctx context.Context, st store.Journal, w *Waiters, q Query) (Page, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	deadline := time.Now().Add(min(q.Wait, MaxWait))
	page := Page{Cursor: q.After}
	var timer *time.Timer
	for {
		// Taken before the read: a write committed after the read
		// closes it, so it cannot be missed.
		changed := w.changed(q.World)
		got, err := st.JournalEntries(ctx, store.JournalQuery{WorldID: q.World, After: page.Cursor, Types: q.Types, Limit: limit})
		if err != nil {
			if ctx.Err() != nil {
				return page, nil
			}
			return page, err
		}
		for _, e := range got {
			page.Cursor = e.Seq
			if !q.FailuresOnly || IsFailure(e) {
				page.Entries = append(page.Entries, e)
			}
		}
		if len(page.Entries) > 0 {
			return page, nil
		}
		if len(got) == limit {
			continue // all filtered out: read on at once
		}
		left := time.Until(deadline)
		if left <= 0 {
			return page, nil
		}
		if timer == nil {
			timer = time.NewTimer(min(left, pollEvery))
			defer timer.Stop()
		} else {
			timer.Reset(min(left, pollEvery))
		}
		select {
		case <-changed:
			timer.Stop() // Go 1.23 timers: Reset needs no drain
		case <-timer.C:
		case <-ctx.Done():
			return page, nil
		}
	}
}

// IsFailure reports whether e says something went wrong: a REST request
// refused (status ≥ 400), a failed interaction, a 429 given, entries
// dropped.
func IsFailure(e store.JournalEntry) bool {
	switch e.Type {
	case InteractionFailed, RateLimitHit, Dropped:
		return true
	case RESTRequest:
		var b struct {
			Status int `json:"status"`
		}
		return json.Unmarshal(e.Body, &b) == nil && b.Status >= 400
	}
	return false
}

// AppendJSON appends e as the API shows it: cursor, id, type and at,
// then the body's fields.
func AppendJSON(dst []byte, e store.JournalEntry) []byte {
	dst = append(dst, `{"cursor":"`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `","id":"`...)
	dst = append(dst, e.ID.String()...)
	dst = append(dst, `","type":`...)
	dst = strconv.AppendQuote(dst, e.Type)
	dst = append(dst, `,"at":"`...)
	dst = e.At.UTC().AppendFormat(dst, "2006-01-02T15:04:05.000000+00:00")
	dst = append(dst, '"')
	body := bytes.TrimSpace(e.Body)
	if len(body) >= 2 && body[0] == '{' {
		inner := bytes.TrimSpace(body[1 : len(body)-1])
		if len(inner) > 0 {
			dst = append(dst, ',')
			dst = append(dst, inner...)
		}
	}
	return append(dst, '}')
}

// PageJSON renders a page as GET …/events answers it.
func PageJSON(p Page) json.RawMessage {
	buf := []byte(`{"events":[`)
	for i, e := range p.Entries {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendJSON(buf, e)
	}
	buf = append(buf, `],"cursor":"`...)
	buf = strconv.AppendInt(buf, p.Cursor, 10)
	return append(buf, `"}`...)
}

// ParseWait reads the wait parameter: a Go duration ("10s", "500ms") or
// a number of seconds; capped at MaxWait.
func ParseWait(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil || n != n { // NaN
			return 0, fmt.Errorf("wait %q: want a duration (10s) or seconds", s)
		}
		d = time.Duration(min(n, MaxWait.Seconds()) * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("wait %q: must not be negative", s)
	}
	return min(d, MaxWait), nil
}
