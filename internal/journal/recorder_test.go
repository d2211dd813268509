package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testenv"
)

// gatedStore holds the first AppendJournal until open is closed, so
// that the queue behind the writer fills.
type gatedStore struct {
	store.Store
	entered chan struct{}
	open    chan struct{}
	once    sync.Once
}

func (g *gatedStore) AppendJournal(ctx context.Context, entries []store.JournalEntry, keep int) error {
	g.once.Do(func() {
		close(g.entered)
		<-g.open
	})
	return g.Store.AppendJournal(ctx, entries, keep)
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.OpenFromTemplate(t.Context(), filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestRecorderDropsWhenFullAndFlushesOnClose: a full queue drops (never
// blocks the caller), counts the drops and journals their number; Close
// writes what is queued; a long-poll is woken by the bus.
func TestRecorderDropsWhenFullAndFlushesOnClose(t *testing.T) {
	const world snowflake.ID = 77
	gate := &gatedStore{Store: openStore(t), entered: make(chan struct{}), open: make(chan struct{})}
	bus := event.NewMemory()
	r := journal.New(journal.Options{Store: gate, Bus: bus, IDs: snowflake.NewGenerator(1, nil), Queue: 2, Batch: 1,
		Flush: time.Millisecond})
	r.Record(world, journal.RESTRequest, map[string]int{"status": 200, "n": 0})
	<-gate.entered // the writer holds entry 0
	for n := 1; n <= 5; n++ {
		r.Record(world, journal.RESTRequest, map[string]int{"status": 200, "n": n}) // 1, 2 queued; 3, 4, 5 dropped
	}
	if got := r.Dropped(); got != 3 {
		t.Fatalf("Dropped = %d; want 3", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiters := journal.NewWaiters(ctx, bus)
	woken := make(chan journal.Page, 1)
	go func() {
		p, err := journal.Read(ctx, gate, waiters, journal.Query{World: world, After: 0, Types: []string{journal.Dropped}, Wait: 20 * time.Second})
		if err != nil {
			t.Error(err)
		}
		woken <- p
	}()
	close(gate.open)
	r.Close(context.Background())
	select {
	case p := <-woken:
		if len(p.Entries) != 1 || string(p.Entries[0].Body) != `{"count":3}` {
			t.Fatalf("the long-poll for journal.dropped answered %+v", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the long-poll was not woken")
	}
	all, err := gate.JournalEntries(ctx, store.JournalQuery{WorldID: world, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, e := range all {
		if e.Type == journal.RESTRequest {
			var b struct{ N int }
			if err := json.Unmarshal(e.Body, &b); err != nil {
				t.Fatal(err)
			}
			ns = append(ns, b.N)
		}
	}
	if len(ns) != 3 || ns[0] != 0 || ns[1] != 1 || ns[2] != 2 {
		t.Errorf("written entries n = %v; want 0, 1, 2 in order", ns)
	}
	// After Close nothing is taken, and nothing blocks.
	r.Record(world, journal.RESTRequest, map[string]int{"n": 9})
	var nilRecorder *journal.Recorder
	nilRecorder.Record(world, journal.RESTRequest, nil) // the journal off
}

// TestRecorderWritesAWholeBatchAtOnce: while the writer waits for more
// entries (Flush) they wait in its queue, and a whole batch queued wakes
// it: with a Flush of an hour, a batch's worth is written without it.
func TestRecorderWritesAWholeBatchAtOnce(t *testing.T) {
	const world snowflake.ID = 78
	st := openStore(t)
	r := journal.New(journal.Options{Store: st, IDs: snowflake.NewGenerator(1, nil), Batch: 3, Flush: time.Hour})
	defer r.Close(context.Background())
	for n := range 3 {
		r.Record(world, journal.RESTRequest, map[string]int{"n": n})
	}
	var got []store.JournalEntry
	testenv.WaitFor(t, "the batch written", func() bool {
		var err error
		got, err = st.JournalEntries(t.Context(), store.JournalQuery{WorldID: world, Limit: 10})
		return err == nil && len(got) == 3
	})
	for i, e := range got {
		if want := fmt.Sprintf(`{"n":%d}`, i); string(e.Body) != want {
			t.Errorf("entry %d = %s; want %s", i, e.Body, want)
		}
	}
}

// Sync returns once every entry queued before it is written, however
// long the writer's Flush: a read right after sees them. A nil recorder
// and a closed one have nothing to wait for; a Sync whose context ends
// first says so.
func TestRecorderSync(t *testing.T) {
	const world snowflake.ID = 79
	st := openStore(t)
	r := journal.New(journal.Options{Store: st, IDs: snowflake.NewGenerator(1, nil), Batch: 100, Flush: time.Hour})
	for round := 1; round <= 3; round++ {
		for n := range 2 {
			r.Record(world, journal.RESTRequest, map[string]int{"round": round, "n": n})
		}
		if err := r.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		got, err := st.JournalEntries(t.Context(), store.JournalQuery{WorldID: world, Limit: 100})
		if err != nil || len(got) != 2*round {
			t.Fatalf("round %d: %d entries after Sync (%v); want %d", round, len(got), err, 2*round)
		}
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Sync(cancelled); err == nil {
		t.Error("a Sync with an ended context returned nil")
	}
	r.Close(t.Context())
	if err := r.Sync(t.Context()); err != nil {
		t.Errorf("Sync after Close: %v", err)
	}
	var off *journal.Recorder
	if err := off.Sync(t.Context()); err != nil {
		t.Errorf("Sync of no journal: %v", err)
	}
}
