package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
	"github.com/slashd/slashd/internal/store/storetest"
)

func withLimits(l walLimits) Option { return func(c *config) { c.limits = l } }

func withCheckpointHook(f func(checkpointEvent)) Option {
	return func(c *config) { c.onCheckpoint = f }
}

func withCommitHook(f func(insideGate bool)) Option { return func(c *config) { c.onCommit = f } }

// The contract suite, with every commit checked to happen inside the
// write gate: a write that bypassed it could grow the WAL while the
// checkpointer holds the gate.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		var outside atomic.Int64
		s := openTest(t, filepath.Join(t.TempDir(), "db.sqlite"), withCommitHook(func(inside bool) {
			if !inside {
				outside.Add(1)
			}
		}))
		t.Cleanup(func() {
			if n := outside.Load(); n > 0 {
				t.Errorf("%d commits happened outside the write gate", n)
			}
		})
		return s
	})
}

func TestSecrets(t *testing.T) {
	storetest.RunSecrets(t, func(t *testing.T) *sqlstore.Store {
		return openTest(t, filepath.Join(t.TempDir(), "db.sqlite"))
	})
}

// Revoking an admin token ends its playground sessions.
func TestPlaygroundRevocation(t *testing.T) {
	storetest.RunPlaygroundRevocation(t, func(t *testing.T) *sqlstore.Store {
		return openTest(t, filepath.Join(t.TempDir(), "db.sqlite"))
	})
}

// openTest opens a fresh store at path (which must not exist), copied
// from the migrated template: these tests are not about migrating.
func openTest(t testing.TB, path string, opts ...Option) *sqlstore.Store {
	t.Helper()
	s, err := OpenFromTemplate(t.Context(), path, opts...)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return s
}

// events collects the checkpointer's reports and lets a test wait for
// one it expects.
type events struct {
	mu  sync.Mutex
	all []checkpointEvent
	c   chan checkpointEvent
}

func newEvents() *events { return &events{c: make(chan checkpointEvent, 1024)} }

func (e *events) hook(ev checkpointEvent) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.c <- ev:
	default: // nobody waits for this many: the list keeps them
	}
}

func (e *events) snapshot() []checkpointEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]checkpointEvent(nil), e.all...)
}

// waitFor waits (up to a generous deadline, for loaded machines) for an
// event that match accepts.
func (e *events) waitFor(t *testing.T, what string, match func(checkpointEvent) bool) checkpointEvent {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-e.c:
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no checkpoint event: %s; saw %+v", what, e.snapshot())
		}
	}
}

// bigUser is a user whose display name fills a few pages, so that each
// write adds about 20 KiB to the WAL.
func bigUser(id int) store.User {
	return store.User{ID: snowflake.ID(1_000_000 + id), Username: fmt.Sprintf("u%d", id),
		GlobalName: strings.Repeat("x", 16<<10)}
}

func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Under sustained writes from many goroutines (readers listing
// meanwhile), every reset of the log finds it at most one transaction
// past the threshold and leaves it empty. The periodic tick is off, so
// only the size-triggered checkpoints run.
func TestWALBoundedUnderSustainedWrites(t *testing.T) {
	t.Parallel()
	limits := walLimits{CheckpointAt: 256 << 10, HardLimit: 1 << 20, RetryStep: 64 << 10, Interval: time.Hour,
		Wait: time.Second}
	const slack = 64 << 10 // one bigUser transaction, with its frames' headers and index pages
	ev := newEvents()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s := openTest(t, path, withLimits(limits), withCheckpointHook(ev.hook))
	ctx := t.Context()

	const writers, perWriter = 8, 30 // 240 × ~20 KiB: about 20 resets
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if err := s.CreateUser(ctx, bigUser(w*perWriter+i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	stopReading := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stopReading:
					return
				default:
				}
				if _, err := s.CountApplications(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stopReading)
	readers.Wait()
	// One more write passes the gate only after a reset it reserved.
	if err := s.CreateUser(ctx, bigUser(writers*perWriter)); err != nil {
		t.Fatal(err)
	}

	var resets int
	for _, e := range ev.snapshot() {
		if e.Err != nil || e.Busy {
			t.Errorf("checkpoint failed: %+v", e)
			continue
		}
		if e.Mode != "RESTART" { // the size-triggered resets
			continue
		}
		resets++
		if e.Before > limits.CheckpointAt+slack {
			t.Errorf("a reset found the WAL at %d bytes, over %d + %d", e.Before, limits.CheckpointAt, slack)
		}
		if e.After != 0 {
			t.Errorf("a reset left the WAL at %d bytes", e.After)
		}
	}
	if resets < 10 {
		t.Errorf("%d resets of the log for about 5 MiB written, want many", resets)
	}
	if size := walSize(t, path); size > limits.CheckpointAt+slack {
		t.Errorf("WAL at the end: %d bytes", size)
	}
}

// A reader in another process holding an old snapshot keeps the log from
// being reset: writes go on until the hard limit, then wait; once the
// reader lets go the log is reset and the waiting write completes.
func TestWALHardLimitHoldsWritesUntilReadersLetGo(t *testing.T) {
	t.Parallel()
	limits := walLimits{CheckpointAt: 128 << 10, HardLimit: 512 << 10, RetryStep: 64 << 10, Interval: time.Hour,
		Wait: 20 * time.Millisecond}
	const slack = 64 << 10
	ev := newEvents()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s := openTest(t, path, withLimits(limits), withCheckpointHook(ev.hook))
	ctx := t.Context()
	if err := s.CreateUser(ctx, bigUser(0)); err != nil {
		t.Fatal(err)
	}

	// The other process: a read transaction whose snapshot includes the
	// WAL's first frames.
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reader, err := other.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		t.Fatal(err)
	}

	done := make(chan int, 1) // how many writes completed
	go func() {
		i := 1
		defer func() { done <- i }()
		for ; i < 100; i++ { // ~2 MiB: far past the hard limit
			if err := s.CreateUser(ctx, bigUser(i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	ev.waitFor(t, "a reset refused at the hard limit", func(e checkpointEvent) bool {
		return e.Mode == "RESTART" && e.Busy && e.After >= limits.HardLimit
	})
	select {
	case i := <-done:
		t.Fatalf("all %d writes went through while the WAL could not be reset", i)
	default:
	}
	if size := walSize(t, path); size > limits.HardLimit+limits.RetryStep+slack {
		t.Errorf("WAL at %d bytes while writes wait, over %d + %d + %d", size, limits.HardLimit, limits.RetryStep, slack)
	}
	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "a reset once the reader let go", func(e checkpointEvent) bool {
		return e.Mode == "RESTART" && !e.Busy && e.After == 0
	})
	if i := <-done; i != 100 {
		t.Fatalf("only %d writes completed", i)
	}
	for _, e := range ev.snapshot() {
		if e.Before > limits.HardLimit+limits.RetryStep+slack {
			t.Errorf("the WAL reached %d bytes, over %d + %d + %d", e.Before, limits.HardLimit, limits.RetryStep, slack)
		}
	}
}

// Without a write asking, the tick folds the log into the database
// (PASSIVE) while writes go on, and empties it once they stop.
func TestWALEmptiedWhenWritesStop(t *testing.T) {
	t.Parallel()
	limits := defaultLimits
	limits.Interval = 10 * time.Millisecond
	ev := newEvents()
	var written atomic.Bool
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s := openTest(t, path, withLimits(limits), withCheckpointHook(func(e checkpointEvent) {
		// A checkpoint reports before it lets writers in again: one
		// reported after the last write returned came after it.
		if written.Load() {
			ev.hook(e)
		}
	}))
	for i := range 20 {
		if err := s.CreateUser(t.Context(), bigUser(i)); err != nil {
			t.Fatal(err)
		}
	}
	written.Store(true)
	ev.waitFor(t, "the log emptied once writes stopped", func(e checkpointEvent) bool {
		return e.Mode == "TRUNCATE" && !e.Busy && e.Err == nil && e.After == 0
	})
	if size := walSize(t, path); size != 0 {
		t.Errorf("WAL %d bytes after the reset, no write since", size)
	}
	if u, err := s.User(t.Context(), bigUser(19).ID); err != nil || u.GlobalName != bigUser(19).GlobalName {
		t.Errorf("the last user after the reset: %v", err)
	}
}

// The gate lets writers in one at a time, in arrival order, and the
// checkpointer in ahead of every waiting writer; a writer whose context
// ends while it waits leaves the queue.
func TestWriteGateOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := newWriteGate(nil)
	leave, err := g.Enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 8)
	queued := func(n int) { // waits until n writers wait in the queue
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			g.mu.Lock()
			l := len(g.queue)
			g.mu.Unlock()
			if l == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d writers queued, want %d", l, n)
			}
			time.Sleep(time.Millisecond) // polling a condition, with a deadline
		}
	}
	writer := func(name string) {
		l, err := g.Enter(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		order <- name
		l()
	}
	go writer("w1")
	queued(1)
	cancelled, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := g.Enter(cancelled)
		gaveUp <- err
	}()
	queued(2)
	go writer("w2")
	queued(3)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled waiter got %v", err)
	}
	queued(2)
	checkpointed := make(chan struct{})
	go func() {
		g.enterCheckpoint()
		order <- "checkpoint"
		g.leaveCheckpoint()
		close(checkpointed)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		waiting := g.ckpt != nil
		g.mu.Unlock()
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the checkpointer never waited")
		}
	}
	leave()
	<-checkpointed
	var got []string
	for range 3 {
		got = append(got, <-order)
	}
	if want := []string{"checkpoint", "w1", "w2"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("entered in order %v, want %v", got, want)
	}
	if n := g.writesLeft(); n != 3 {
		t.Errorf("%d writes left, want 3", n)
	}
}
