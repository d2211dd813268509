// Package sqlite is slashd's default, embedded store: SQLite in WAL mode
// through the pure-Go modernc.org/sqlite driver, so that nothing has to be
// installed. Several processes (the server and the CLI) may open the same
// file at once: write transactions start IMMEDIATE and wait on a busy
// timeout instead of failing.
//
// The write-ahead log is kept bounded (checkpoint.go): this process's
// writes take turns through a gate, and when one leaves the log over
// 16 MiB the checkpointer goes next and resets it (TRUNCATE) before any
// other write starts.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
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

// Option tunes Open.
type Option func(*config)

type config struct {
	log          *slog.Logger
	limits       walLimits
	onCheckpoint func(checkpointEvent) // tests
	onCommit     func(insideGate bool) // tests
}

// WithLogger is where the store reports trouble (a write-ahead log it
// cannot reset, a failed checkpoint); by default, nowhere.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log = l }
}

// Open opens (creating if needed) the database file at path, applies
// pending migrations and returns the store. A new file is created
// readable by its owner only; SQLite gives the -wal and -shm files it
// makes next to it the same mode.
//
// Two processes opening a brand-new file at once (the server and the CLI)
// can collide while the file switches to WAL mode, which SQLite reports
// as SQLITE_BUSY without waiting; Open then retries for a few seconds.
func Open(ctx context.Context, path string, opts ...Option) (*sqlstore.Store, error) {
	cfg := config{log: slog.New(slog.DiscardHandler), limits: defaultLimits}
	for _, o := range opts {
		o(&cfg)
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		var s *sqlstore.Store
		s, err = open(ctx, path, cfg)
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

// createPrivate creates an empty file at path, mode 0600, unless one
// exists (SQLite takes an empty file for an empty database).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create sqlite %s: %w", path, err)
	}
	return f.Close()
}

// dsn is the connection string of every connection to path.
func dsn(path string, limits walLimits) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(15000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Writers never checkpoint (it would stall the request that crosses
	// SQLite's threshold, and could not reset the log anyway while
	// others read or write): the checkpointer does, between writes.
	q.Add("_pragma", "wal_autocheckpoint(0)")
	// Should anything else reset the log, the file shrinks to this.
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", limits.CheckpointAt))
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

func open(ctx context.Context, path string, cfg config) (*sqlstore.Store, error) {
	connector, err := sqlite.NewConnector(dsn(path, cfg.limits))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// The checkpointer's handle: one connection of its own, so that it
	// never waits for the pool while writers wait for it.
	ckdb := sql.OpenDB(connector)
	ckdb.SetMaxOpenConns(1)
	wal := newWalIndex(path)
	ck := newCheckpointer(ckdb, path, wal, cfg.limits, cfg.log)
	ck.onEvent = cfg.onCheckpoint
	if cfg.onCommit != nil {
		connector = commitHooked{Connector: connector, onCommit: func() { cfg.onCommit(ck.gate.writerInside()) }}
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	// The WAL index's descriptor closes only after every connection of
	// the store has (walIndex.file: closing it drops the process's
	// locks on the -shm file, theirs included).
	closeIndex := func() { _ = wal.close() } // a read-only map: nothing to lose
	s := sqlstore.NewWithOptions(db, sqlstore.Options{FormatError: formatError, WriteGate: ck.gate,
		OnClose: ck.close, AfterClose: closeIndex,
		WorldClock: true, DatabaseLock: true, CommitStamp: wal.stamp, PinnedBegin: "BEGIN IMMEDIATE"})
	// Running before the migrations, which write through the gate too.
	go ck.run()
	if err := migrate(ctx, s); err != nil {
		s.Close()
		return nil, err
	}
	// The database is in WAL mode now: its index can be read. Without
	// it, stamps say "cannot say" and the world clock is queried.
	if err := wal.attach(ctx, sql.OpenDB(connector)); err != nil {
		cfg.log.Warn("sqlite: the WAL index is not mapped; the world clock is read by query", "err", err)
	}
	return s, nil
}

// commitHooked runs onCommit as each of its connections commits (tests
// check every commit happens inside the write gate).
type commitHooked struct {
	driver.Connector
	onCommit func()
}

func (c commitHooked) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if h, ok := conn.(sqlite.HookRegisterer); ok {
		h.RegisterCommitHook(func() int32 {
			c.onCommit()
			return 0 // go on with the commit
		})
	}
	return conn, nil
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
	if err := s.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`)
		return err
	}); err != nil {
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
