package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
	"github.com/slashd/slashd/internal/store/storetest"
)

// The contract suite SQLite passes, each subtest in a schema of its own.
func TestContract(t *testing.T) {
	pgtest.Server(t) // one clear skip (or failure) rather than one per subtest
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, pgtest.DSN(t))
	})
}

// Secrets at rest, against the bytes in PostgreSQL's tables.
func TestSecrets(t *testing.T) {
	storetest.RunSecrets(t, func(t *testing.T) *sqlstore.Store { return open(t, pgtest.DSN(t)) })
}

// Revoking an admin token ends its playground sessions.
func TestPlaygroundRevocation(t *testing.T) {
	storetest.RunPlaygroundRevocation(t, func(t *testing.T) *sqlstore.Store { return open(t, pgtest.DSN(t)) })
}

// open opens the store at dsn and closes it when the test ends.
func open(t *testing.T, dsn string) *sqlstore.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func migrationNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatalf("no migrations in %s", dir)
	}
	return out
}

func appliedMigrations(t *testing.T, s *sqlstore.Store) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Several nodes may start on one empty database at once: each migration
// is applied once, and every node opens.
func TestConcurrentOpenOfEmptySchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	const n = 4
	stores := make([]*sqlstore.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(t.Context(), dsn) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("open %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	if got, want := appliedMigrations(t, stores[0]), len(migrationNames(t, "migrations")); got != want {
		t.Errorf("%d migrations recorded, want %d", got, want)
	}
	// Every node works on the one schema.
	if err := stores[1].CreateUser(t.Context(), store.User{ID: 1, Username: "u"}); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[n-1].User(t.Context(), 1); err != nil {
		t.Errorf("another node reads the user: %v", err)
	}
}

func TestReopenKeepsDataAndMigratesNothing(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, store.User{ID: 1, Username: "u"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for i := range 2 {
		s := open(t, dsn)
		if got, want := appliedMigrations(t, s), len(migrationNames(t, "migrations")); got != want {
			t.Errorf("reopen %d: %d migrations recorded, want %d", i, got, want)
		}
		if _, err := s.User(ctx, 1); err != nil {
			t.Errorf("reopen %d: user lost: %v", i, err)
		}
	}
}

// A transaction that fails to serialize is run again, and then sees the
// write it conflicted with.
func TestSerializationFailureIsRetried(t *testing.T) {
	s := open(t, pgtest.DSN(t))
	ctx := t.Context()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO counter (id, n) VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	var (
		attempts int
		failures []error
	)
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		attempts++
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
			return err
		}
		if attempts == 1 {
			// Another writer commits after this transaction's snapshot.
			if _, err := s.DB().ExecContext(ctx, `UPDATE counter SET n = n + 10 WHERE id = 1`); err != nil {
				return fmt.Errorf("concurrent update: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE counter SET n = $1 WHERE id = 1`, n+1)
		if err != nil {
			failures = append(failures, err)
		}
		return err
	})
	if err != nil {
		t.Fatalf("Tx: %v", err)
	}
	if attempts != 2 {
		t.Errorf("fn ran %d times, want 2", attempts)
	}
	if len(failures) != 1 || !postgres.Retryable(failures[0]) {
		t.Errorf("first attempt failed with %v, want one serialization failure", failures)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 11 {
		t.Errorf("counter = %d, want 11 (the retry read the concurrent write)", n)
	}
}

// Read-modify-writes that cannot be serialized by a row lock alone (each
// reads what the others write) lose nothing: SQLite's guarantee.
func TestWriteSkewIsPrevented(t *testing.T) {
	s := open(t, pgtest.DSN(t))
	ctx := t.Context()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE items (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	// Each writer counts the rows and inserts the next id: without
	// serializable isolation, concurrent writers would pick the same id
	// (a unique violation) or, with distinct ids, count wrong.
	const n = 12
	var (
		wg    sync.WaitGroup
		tries atomic.Int32
	)
	for range n {
		wg.Go(func() {
			err := s.Tx(ctx, func(tx *sql.Tx) error {
				tries.Add(1)
				var c int
				if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM items`).Scan(&c); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO items (id) VALUES ($1)`, c+1)
				return err
			})
			if err != nil {
				t.Errorf("Tx: %v", err)
			}
		})
	}
	wg.Wait()
	var c, max int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*), MAX(id) FROM items`).Scan(&c, &max); err != nil {
		t.Fatal(err)
	}
	if c != n || max != n {
		t.Errorf("%d rows up to id %d, want %d and %d", c, max, n, n)
	}
	t.Logf("%d transactions in %d attempts", n, tries.Load())
}

func TestFormatError(t *testing.T) {
	s := open(t, pgtest.DSN(t))
	ctx := t.Context()
	u := store.User{ID: 1, Username: "u"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, u); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate user: err = %v, want ErrConflict", err)
	}
	// A grant of an unknown app: a foreign key violation.
	err := s.CreateGrant(ctx, store.Grant{ID: 5, ApplicationID: 99, UserID: 1})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("grant of an unknown app: err = %v, want ErrNotFound", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	if _, err := postgres.Open(ctx, "postgres://u:secret@127.0.0.1:5432/db?pool_max_conns=zero"); err == nil ||
		!strings.Contains(err.Error(), "pool_max_conns") {
		t.Errorf("bad pool_max_conns: err = %v", err)
	}
	// Nothing listens on port 1; the error names the server, not the
	// password.
	_, err := postgres.Open(ctx, "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/db") || strings.Contains(err.Error(), "secret") {
		t.Errorf("unreachable server: err = %v", err)
	}
}

func TestPoolMaxConns(t *testing.T) {
	dsn := pgtest.WithParam(t, pgtest.DSN(t), "pool_max_conns", "3")
	s := open(t, dsn)
	if got := s.DB().Stats().MaxOpenConnections; got != 3 {
		t.Errorf("MaxOpenConnections = %d, want 3", got)
	}
}

// The PostgreSQL migrations keep pace with SQLite's: one file for each,
// and the same tables with the same columns.
func TestSchemaMatchesSQLite(t *testing.T) {
	pg := migrationNames(t, "migrations")
	lite := migrationNames(t, filepath.Join("..", "sqlite", "migrations"))
	if !slices.Equal(pg, lite) {
		t.Errorf("migrations differ:\n postgres %v\n sqlite   %v", pg, lite)
	}

	ls, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	want := columns(t, ls.DB(), `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY m.name, p.cid`) // SQLite's own (sqlite_sequence)

	ps := open(t, pgtest.DSN(t))
	got := columns(t, ps.DB(), `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	delete(got, "schema_migrations_lock") // PostgreSQL's alone: serializes migrators
	if !equalTables(got, want) {
		t.Errorf("schemas differ:\n postgres %v\n sqlite   %v", got, want)
	}
}

func columns(t *testing.T, db *sql.DB, query string) map[string][]string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		out[table] = append(out[table], column)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTables(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
