package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// walLimits bound the write-ahead log.
type walLimits struct {
	// CheckpointAt: a write that leaves the WAL at least this large hands
	// the gate to the checkpointer, which resets the log (TRUNCATE).
	CheckpointAt int64
	// HardLimit: while the WAL is at least this large and a checkpoint
	// cannot reset it (a reader, maybe in another process, holds an old
	// snapshot), writes wait.
	HardLimit int64
	// RetryStep: below HardLimit, a checkpoint that could not reset the
	// log is tried again once the WAL has grown this much more.
	RetryStep int64
	// Interval is how often the WAL is looked at without a write asking:
	// to fold it into the database file (PASSIVE, blocking nobody), to
	// empty it when writes have stopped, to catch other processes'
	// writes.
	Interval time.Duration
	// Wait is how long a checkpoint due to the WAL's size waits for
	// readers and other processes' writers.
	Wait time.Duration
}

// defaultLimits keep the WAL under 64 MiB: the threshold plus the
// largest transaction (a bulk overwrite, its body capped at 8 MiB), and
// the hard limit plus one.
var defaultLimits = walLimits{
	CheckpointAt: 16 << 20,
	HardLimit:    40 << 20,
	RetryStep:    4 << 20,
	Interval:     time.Second,
	Wait:         time.Second,
}

// checkpointEvent is what a checkpoint did, for tests.
type checkpointEvent struct {
	Mode        string // PASSIVE, RESTART (a size-triggered reset) or TRUNCATE
	Before      int64  // the WAL's size before
	After       int64  // … and after
	Busy        bool   // the log could not be reset (wal_checkpoint's busy)
	Err         error
	WritesSince uint64 // writes that left the gate since the previous tick
	Took        time.Duration
}

// checkpointer keeps the WAL bounded (see writeGate): writes reserve the
// gate for it when the log passes limits.CheckpointAt; it also looks at
// the log every limits.Interval.
type checkpointer struct {
	db      *sql.DB // a handle of its own: one connection, never waiting for the pool
	walPath string
	index   *walIndex // the log's size as SQLite's WAL index says it
	limits  walLimits
	gate    *writeGate
	log     *slog.Logger
	onEvent func(checkpointEvent) // tests; nil in production

	retryAt atomic.Int64 // after a failed reset: the size that asks again
	stop    chan struct{}
	done    chan struct{}
}

func newCheckpointer(db *sql.DB, dbPath string, index *walIndex, limits walLimits, log *slog.Logger) *checkpointer {
	c := &checkpointer{db: db, walPath: dbPath + "-wal", index: index, limits: limits, log: log,
		stop: make(chan struct{}), done: make(chan struct{})}
	c.gate = newWriteGate(c.due)
	return c
}

// fileSize is the WAL file's size on disk (0 when there is none).
func (c *checkpointer) fileSize() int64 {
	fi, err := os.Stat(c.walPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// walSize is the log's size: what its frames take, as the WAL index
// says (walIndex.logSize), else the file's size. A size-triggered reset
// (RESTART) leaves the file as large as it was, to be written over:
// appending a frame to a file that grows costs twice what writing it
// over one already on disk does.
func (c *checkpointer) walSize() int64 {
	if size, ok := c.index.logSize(); ok {
		return size
	}
	return c.fileSize()
}

// due runs as each write leaves the gate: whether the log has grown
// enough to reset it now.
func (c *checkpointer) due() bool {
	return c.walSize() >= max(c.limits.CheckpointAt, c.retryAt.Load())
}

// run serves checkpoints until close, then resets the log one last time.
func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(c.limits.Interval)
	defer t.Stop()
	var seen uint64 // writes counted at the previous tick
	for {
		select {
		case <-c.stop:
			c.truncate(c.limits.Wait, false)
			return
		case <-c.gate.due:
			c.truncate(c.limits.Wait, true)
		case <-t.C:
			writes := c.gate.writesLeft()
			c.tick(writes - seen)
			seen = writes
		}
	}
}

// tick looks at the log without a write asking: a log over the threshold
// (another process wrote) is reset; one written to since the last tick is
// folded into the database without blocking anyone (PASSIVE), so that a
// later reset has little left to copy; one no longer written to is reset
// if that blocks nobody.
func (c *checkpointer) tick(writes uint64) {
	size := c.walSize()
	switch {
	case c.fileSize() == 0:
	case size >= max(c.limits.CheckpointAt, c.retryAt.Load()):
		c.truncate(c.limits.Wait, true)
	case writes > 0:
		c.passive(size, writes)
	default:
		c.truncate(0, false)
	}
}

func (c *checkpointer) passive(size int64, writes uint64) {
	start := time.Now()
	busy, err := c.checkpoint(context.Background(), "PASSIVE", 0)
	c.report(checkpointEvent{Mode: "PASSIVE", Before: size, After: c.walSize(), Busy: busy, Err: err, WritesSince: writes,
		Took: time.Since(start)})
}

// truncate resets the log inside the gate: writers of this process wait,
// and the checkpoint waits up to wait for readers and other processes.
// sized says a size limit asked for it: while a reset fails and the log
// is over the hard limit, it keeps trying (writers keep waiting). A
// size-triggered reset keeps the file (RESTART: the next writer writes
// over it from its start, and SQLite cuts it to journal_size_limit);
// one of a log no longer written to, or at close, empties it
// (TRUNCATE).
func (c *checkpointer) truncate(wait time.Duration, sized bool) {
	c.gate.enterCheckpoint()
	defer c.gate.leaveCheckpoint()
	mode := "TRUNCATE"
	if sized {
		mode = "RESTART"
	}
	for attempt := 1; ; attempt++ {
		start, before := time.Now(), c.walSize()
		busy, err := c.checkpoint(context.Background(), mode, wait)
		after := c.walSize()
		c.report(checkpointEvent{Mode: mode, Before: before, After: after, Busy: busy, Err: err, Took: time.Since(start)})
		if err == nil && !busy {
			c.retryAt.Store(0)
			return
		}
		if !sized {
			return
		}
		if after < c.limits.HardLimit {
			// Let writers go on; ask again once the log has grown a
			// little more, not at every write.
			c.retryAt.Store(after + c.limits.RetryStep)
			c.log.Warn("sqlite: the write-ahead log could not be reset; a reader may hold an old snapshot",
				"wal_bytes", after, "err", err)
			return
		}
		if attempt == 1 {
			c.log.Warn("sqlite: the write-ahead log is over its limit and cannot be reset; writes wait until readers let go",
				"wal_bytes", after, "limit_bytes", c.limits.HardLimit, "err", err)
		}
		select {
		case <-c.stop:
			return
		case <-time.After(c.limits.Wait):
		}
	}
}

// checkpoint runs PRAGMA wal_checkpoint(mode) on the checkpointer's own
// connection, trying again for up to wait while readers or a writer
// hold on; busy reports that it could not finish.
//
// The tries are made here, every few hundred microseconds, rather than
// by SQLite's busy handler, which sleeps 1, 2, 5, 10, 15 … ms between
// them: a reset needs a moment when no reader still uses the log, and
// busy readers leave only short ones. A try after the first has little
// to copy (the frames already backfilled stay so).
func (c *checkpointer) checkpoint(ctx context.Context, mode string, wait time.Duration) (busy bool, err error) {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return false, fmt.Errorf("checkpoint: set busy timeout: %w", err)
	}
	deadline := time.Now().Add(wait)
	pause := 100 * time.Microsecond
	for {
		var b, frames, done int
		err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&b, &frames, &done)
		switch {
		case err != nil && !isBusy(err):
			return false, fmt.Errorf("checkpoint %s: %w", mode, err)
		case err == nil && b == 0:
			return false, nil
		case time.Now().Add(pause).After(deadline):
			return true, nil
		}
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Millisecond)
	}
}

func (c *checkpointer) report(e checkpointEvent) {
	if e.Err != nil {
		c.log.Error("sqlite: checkpoint", "mode", e.Mode, "err", e.Err)
	} else {
		c.log.Debug("sqlite: checkpoint", "mode", e.Mode, "wal_before", e.Before, "wal_after", e.After, "busy", e.Busy,
			"took", e.Took)
	}
	if c.onEvent != nil {
		c.onEvent(e)
	}
}

// close stops the loop after a last reset of the log.
func (c *checkpointer) close() {
	close(c.stop)
	<-c.done
	c.db.Close()
}
