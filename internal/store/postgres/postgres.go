// Package postgres is slashd's PostgreSQL store: the shared portable SQL
// of sqlstore over pgx's database/sql driver, for deployments that run
// several slashd nodes on one database.
//
// The SQL keeps to what CockroachDB and YugabyteDB also run: BIGINT ids,
// INTEGER flags, TEXT JSON, BYTEA secrets, ON CONFLICT and RETURNING; no
// sequences, triggers, functions, advisory locks or LISTEN/NOTIFY.
// Transactions run SERIALIZABLE, so that every read-modify-write is as
// isolated as on SQLite (whose writers take turns), and a transaction
// that fails to serialize (SQLSTATE 40001) or deadlocks (40P01) is run
// again from the start.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultMaxConns is the pool size when the DSN sets no pool_max_conns.
const DefaultMaxConns = 16

// IsDSN reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL), as --store does.
func IsDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database dsn names (a postgres:// URL or a
// key=value connection string, as libpq takes), applies pending
// migrations and returns the store. Besides libpq's parameters the DSN
// may set pool_max_conns, the most connections the store opens (default
// DefaultMaxConns); other unknown parameters (search_path,
// application_name …) are session settings.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	maxConns := DefaultMaxConns
	if v, ok := cfg.RuntimeParams["pool_max_conns"]; ok {
		delete(cfg.RuntimeParams, "pool_max_conns")
		if maxConns, err = strconv.Atoi(v); err != nil || maxConns < 1 {
			return nil, fmt.Errorf("postgres: pool_max_conns %q: want a positive integer", v)
		}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "slashd"
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	// Recycled now and then, so that a pool spreads again over the nodes
	// of a cluster behind a load balancer after one restarts.
	db.SetConnMaxLifetime(time.Hour)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", where, err)
	}
	s := sqlstore.NewWithOptions(db, sqlstore.Options{
		FormatError: formatError,
		Isolation:   sql.LevelSerializable,
		// A command scope's writes and an interaction's answer serialize
		// on a row lock they take first.
		LockedIsolation: sql.LevelReadCommitted,
		Retryable:       Retryable,
	})
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres %s: %w", where, err)
	}
	return s, nil
}

// SQLSTATE codes the package acts on.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeDuplicateTable       = "42P07"
	codeDuplicateColumn      = "42701"
	codeDuplicateObject      = "42710"
)

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Retryable reports whether a transaction that failed with err may
// succeed when run again: a serialization failure (which is also how
// CockroachDB asks for a retry) or a deadlock.
func Retryable(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected:
		return true
	}
	return false
}

// formatError turns constraint failures into the store's sentinels, as
// SQLite's does: a duplicate key is a conflict, a missing referenced row
// (or a row still referenced) is not found.
func formatError(err error) error {
	switch sqlState(err) {
	case codeUniqueViolation:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case codeForeignKeyViolation:
		return fmt.Errorf("%w: referenced row missing: %w", store.ErrNotFound, err)
	}
	return err
}

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, each in its own transaction, in name order.
//
// Several nodes may start on one database at once: each migration's
// transaction first locks the one row of schema_migrations_lock (SELECT
// … FOR UPDATE: CockroachDB accepts no schema change after a write in
// its transaction, and has no advisory locks), so migrators take turns,
// and the later one, at READ COMMITTED, sees the migration recorded once
// it holds the lock. Where a database runs the transaction at a
// stronger isolation regardless (CockroachDB, YugabyteDB without read
// committed), the later one fails to serialize, or finds the table it
// would create, and runs again with a fresh view.
func migrate(ctx context.Context, db *sql.DB) error {
	if err := bootstrap(ctx, db); err != nil {
		return err
	}
	applied := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	slices.Sort(names)
	for _, name := range names {
		if applied[name] {
			continue
		}
		if err := retry(ctx, migrationRetryable, func() error { return applyMigration(ctx, db, name) }); err != nil {
			return err
		}
	}
	return nil
}

// bootstrap creates the migration tables and the lock row. Concurrent
// CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL (as a
// duplicate key in its catalog); the loser tries again and finds the
// table.
func bootstrap(ctx context.Context, db *sql.DB) error {
	return retry(ctx, migrationRetryable, func() error {
		for _, stmt := range []string{
			`CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`,
			`CREATE TABLE IF NOT EXISTS schema_migrations_lock (id INTEGER PRIMARY KEY, locked_at BIGINT NOT NULL)`,
			`INSERT INTO schema_migrations_lock (id, locked_at) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`,
		} {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create migration tables: %w", err)
			}
		}
		return nil
	})
}

// migrationRetryable is what a migrator racing another may hit: besides
// serialization failures, the other's table, column, index or key,
// which a fresh attempt finds recorded as applied.
func migrationRetryable(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected, codeUniqueViolation,
		codeDuplicateTable, codeDuplicateColumn, codeDuplicateObject:
		return true
	}
	return false
}

func applyMigration(ctx context.Context, db *sql.DB, name string) error {
	body, err := migrations.ReadFile(name)
	if err != nil {
		return fmt.Errorf("read migration %s: %w", name, err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", name, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `SELECT id FROM schema_migrations_lock WHERE id = 1 FOR UPDATE`); err != nil {
		return fmt.Errorf("migration %s: lock: %w", name, err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, name).Scan(&n); err != nil {
		return fmt.Errorf("check migration %s: %w", name, err)
	}
	if n > 0 {
		return nil // another node applied it while this one waited
	}
	for _, stmt := range sqlstore.MigrationStatements(string(body)) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`,
		name, time.Now().Unix()); err != nil {
		return fmt.Errorf("record migration %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", name, err)
	}
	return nil
}

// retry runs fn up to ten times while it fails with errors retryable
// accepts, waiting a little longer each time.
func retry(ctx context.Context, retryable func(error) bool, fn func() error) error {
	const attempts = 10
	for n := 1; ; n++ {
		err := fn()
		if err == nil || !retryable(err) || n == attempts {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(n*n) * 5 * time.Millisecond):
		}
	}
}
