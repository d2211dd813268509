package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// CommitStamp is the database's state as a backend can see it without a
// query (SQLite: the WAL index's header, which every commit of every
// process rewrites). Two equal stamps mean no transaction committed
// between the two readings; Seq counts commits (and the log's resets).
type CommitStamp struct {
	Seq   uint32
	State [48]byte
}

// worldReading is a world-clock value and the stamp of the state it was
// read in.
type worldReading struct {
	at      CommitStamp
	version int64
}

const queryWorldClock = `SELECT version FROM world_clock WHERE id = 1`

// WorldClock returns a function reading the world's version: a number
// that moves whenever any process commits a change to users, guilds,
// roles, members, channels, installations (in guilds and on accounts)
// or permission lists, and with nothing else; nil when the backend keeps
// none. The store cache reads it to learn what a process other than
// its own (the CLI, on a running server's SQLite data) changed.
//
// With a commit stamp (Options.CommitStamp) the last reading is kept
// with the stamp it was taken at, and served again while the stamp has
// not moved: no process committed anything since, so the clock cannot
// have moved either. The stamp is read before the query, so a commit
// racing the query leaves a reading newer than its stamp, which the next
// call does not match.
func (s *Store) WorldClock() func(context.Context) (int64, error) {
	if !s.worldClock {
		return nil
	}
	return func(ctx context.Context) (int64, error) {
		at, stamped := s.stampNow()
		if stamped {
			if r := s.lastWorld.Load(); r != nil && r.at == at {
				return r.version, nil
			}
		}
		var v int64
		if err := s.queryRow(ctx, queryWorldClock).Scan(&v); err != nil {
			return 0, fmt.Errorf("read the world clock: %w", err)
		}
		s.worldQueries.Add(1)
		if stamped {
			s.lastWorld.Store(&worldReading{at: at, version: v})
		}
		return v, nil
	}
}

// stampNow reads the commit stamp, if the backend has one.
func (s *Store) stampNow() (CommitStamp, bool) {
	if s.commitStamp == nil {
		return CommitStamp{}, false
	}
	return s.commitStamp()
}

// outsideWorldTx is lockedTx for the invocation's own writes: fn must
// write no table the world clock follows (it records interactions and
// messages), and always insert a new row, so that its commit always
// writes to the database. Where every write transaction holds the
// database's write lock from its start (Options.DatabaseLock) and the
// backend has a commit stamp, it keeps the world clock's last reading
// across its own commit: the stamp is read inside the transaction,
// where no other commit can land, and when it is still the reading's
// stamp and the one after the commit is exactly one commit on, that
// commit was this one, which left the clock where it was. Without it,
// the next request would pay a query to learn that nothing it cares for
// moved.
func (s *Store) outsideWorldTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.outsideWorld(func(written func()) error {
		return s.lockedTx(ctx, func(tx *sql.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			written()
			return nil
		})
	})
}

// outsideWorld is outsideWorldTx's bookkeeping around run, which runs
// the transaction (retries included) and calls written in it once its
// writes are done, before it commits.
func (s *Store) outsideWorld(run func(written func()) error) error {
	if s.commitStamp == nil || !s.worldClock || !s.databaseLock {
		return run(func() {})
	}
	var (
		last   *worldReading
		before CommitStamp
		known  bool
	)
	err := run(func() { // each attempt that got this far: the last one's counts
		last = s.lastWorld.Load()
		before, known = s.commitStamp()
		known = known && last != nil && last.at == before
	})
	if err != nil || !known {
		return err
	}
	if after, ok := s.commitStamp(); ok && after.Seq == before.Seq+1 {
		s.lastWorld.CompareAndSwap(last, &worldReading{at: after, version: last.version})
	}
	return nil
}

// WorldClockQueries is how many world-clock readings went to the
// database (the others were served by the commit stamp).
func (s *Store) WorldClockQueries() int64 { return s.worldQueries.Load() }
