package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// openPinnedDB is a WAL database whose write transactions begin
// IMMEDIATE, as SQLite's store opens them, with a table of two columns.
func openPinnedDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(tb.TempDir(), "db.sqlite")+
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(15000)&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE rows (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, t TEXT)`); err != nil {
		tb.Fatal(err)
	}
	return db
}

// The pinned writer commits what fn wrote, rolls back whatever fails
// (fn's error, a statement's, a panic) and goes on with the next
// transaction; Close gives its connection back before the pool closes.
func TestPinnedWriter(t *testing.T) {
	db := openPinnedDB(t)
	s := NewWithOptions(db, Options{PinnedBegin: "BEGIN IMMEDIATE"})
	ctx := t.Context()
	insert := func(id int64) func(pinnedTx) error {
		return func(tx pinnedTx) error {
			_, err := tx.exec(`INSERT INTO rows (id, v, t) VALUES ($1, $2, $3)`, id, int(id)*10, nil)
			return err
		}
	}
	count := func() (n int) {
		if err := db.QueryRow(`SELECT count(*) FROM rows`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.runPinned(ctx, insert(1)); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	if err := s.runPinned(ctx, func(tx pinnedTx) error {
		if err := insert(2)(tx); err != nil {
			return err
		}
		return refused
	}); !errors.Is(err, refused) {
		t.Errorf("fn's error: got %v", err)
	}
	if err := s.runPinned(ctx, func(tx pinnedTx) error {
		if err := insert(3)(tx); err != nil {
			return err
		}
		return insert(1)(tx) // a taken id
	}); err == nil {
		t.Error("a taken id: no error")
	}
	func() {
		defer func() { _ = recover() }()
		_ = s.runPinned(ctx, func(tx pinnedTx) error {
			_ = insert(4)(tx)
			panic("fn panics")
		})
	}()
	if err := s.runPinned(ctx, insert(5)); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
	var ids []int64
	rows, err := db.Query(`SELECT id FROM rows ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != 2 || ids[0] != 1 || ids[1] != 5 {
		t.Errorf("rows %v, want [1 5]: only what committed", ids)
	}
	if n := count(); n != 2 {
		t.Errorf("%d rows", n)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.runPinned(ctx, insert(6)); err == nil {
		t.Error("a transaction after Close: no error")
	}
}

// BenchmarkPinnedTx is a two-row write transaction under a request's
// (cancellable) context, through database/sql as the floor of
// BenchmarkRatioInvoke writes it, and on the pinned writer.
func BenchmarkPinnedTx(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const query = `INSERT INTO rows (v, t) VALUES ($1, $2)`
	b.Run("database/sql", func(b *testing.B) {
		db := openPinnedDB(b)
		ins, err := db.Prepare(query)
		if err != nil {
			b.Fatal(err)
		}
		defer ins.Close()
		for i := 0; b.Loop(); i++ {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			for range 2 {
				if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, i, "hello"); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pinned", func(b *testing.B) {
		s := NewWithOptions(openPinnedDB(b), Options{PinnedBegin: "BEGIN IMMEDIATE"})
		defer s.Close()
		for i := 0; b.Loop(); i++ {
			err := s.runPinned(ctx, func(tx pinnedTx) error {
				for range 2 {
					if _, err := tx.exec(query, i, "hello"); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
