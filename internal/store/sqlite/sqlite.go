// Package sqlite is slashd's default, embedded store: SQLite in WAL mode
// through the pure-Go modernc.org/sqlite driver, so that nothing has to be
// installed. Several processes (the server and the CLI) may open the same
// file at once: write transactions start IMMEDIATE and wait on a busy
// timeout instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Open opens (creating if needed) the database file at path, applies
// pending migrations and returns the store.
//
// Two processes opening a brand-new file at once (the server and the CLI)
// can collide while the file switches to WAL mode, which SQLite reports
// as SQLITE_BUSY without waiting; Open then retries for a few seconds.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		var s *sqlstore.Store
		s, err = open(ctx, path)
		if err == nil {
			return s, nil
		}
		if !isBusy(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(20+attempt*10) * time.Millisecond):
		}
	}
	return nil, err
}

func open(ctx context.Context, path string) (*sqlstore.Store, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(15000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Writers never checkpoint (it would stall the request that crosses
	// the threshold); a background loop does, see checkpointLoop.
	q.Add("_pragma", "wal_autocheckpoint(0)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	stop := make(chan struct{})
	done := make(chan struct{})
	s := sqlstore.NewWithOptions(db, sqlstore.Options{FormatError: formatError, OnClose: func() {
		close(stop)
		<-done
	}})
	if err := migrate(ctx, s); err != nil {
		db.Close()
		return nil, err
	}
	go checkpointLoop(db, stop, done)
	return s, nil
}

// checkpointInterval is how often the write-ahead log is folded into the
// database file, off the request path.
const checkpointInterval = time.Second

// checkpointLoop checkpoints the WAL without blocking readers or writers
// (PASSIVE) until stop closes, then once more, fully.
func checkpointLoop(db *sql.DB, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			_, _ = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			return
		case <-t.C:
			checkpoint(db)
		}
	}
}

// walBound is how many WAL frames (pages) a passive checkpoint may leave
// behind before the next one waits for readers to move on (RESTART), so
// that a store never busier than its checkpoints keeps a bounded WAL.
const walBound = 10_000

func checkpoint(db *sql.DB) {
	var busy, frames, done int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		return
	}
	if frames-done > walBound {
		_, _ = db.Exec(`PRAGMA wal_checkpoint(RESTART)`)
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == sqlite3.SQLITE_BUSY
	}
	return strings.Contains(err.Error(), "SQLITE_BUSY")
}

func migrate(ctx context.Context, s *sqlstore.Store) error {
	if _, err := s.DB().ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := applyMigration(ctx, s, name); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs one file in its own transaction, unless another
// process applied it first (the IMMEDIATE transaction serializes them).
func applyMigration(ctx context.Context, s *sqlstore.Store, name string) error {
	body, err := migrations.ReadFile(name)
	if err != nil {
		return fmt.Errorf("read migration %s: %w", name, err)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, name).Scan(&n); err != nil {
			return fmt.Errorf("check migration %s: %w", name, err)
		}
		if n > 0 {
			return nil
		}
		for _, stmt := range sqlstore.MigrationStatements(string(body)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`,
			name, time.Now().Unix())
		return err
	})
}

// formatError turns constraint failures into the store's sentinels.
func formatError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", store.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: referenced row missing: %v", store.ErrNotFound, err)
		}
	}
	return err
}
