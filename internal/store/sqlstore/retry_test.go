package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver

	"github.com/slashd/slashd/internal/store/sqlstore"
)

var errRetry = errors.New("fake serialization failure")

func isRetry(err error) bool { return errors.Is(err, errRetry) }

// newStore opens a SQLite database with one table, t(n).
func newStore(t *testing.T, o sqlstore.Options) *sqlstore.Store {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	s := sqlstore.NewWithOptions(db, o)
	t.Cleanup(func() { s.Close() })
	return s
}

func rows(t *testing.T, s *sqlstore.Store) []int {
	t.Helper()
	r, err := s.DB().Query(`SELECT n FROM t ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []int
	for r.Next() {
		var n int
		if err := r.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// insertFailing inserts the attempt's number, then fails retryably while
// the attempt is below succeedAt (0: always).
func insertFailing(ctx context.Context, attempts *int, succeedAt int) func(*sql.Tx) error {
	return func(tx *sql.Tx) error {
		*attempts++
		if _, err := tx.ExecContext(ctx, `INSERT INTO t (n) VALUES ($1)`, *attempts); err != nil {
			return err
		}
		if succeedAt == 0 || *attempts < succeedAt {
			return errRetry
		}
		return nil
	}
}

func TestTxRetriesRetryableErrors(t *testing.T) {
	s := newStore(t, sqlstore.Options{Retryable: isRetry})
	attempts := 0
	if err := s.Tx(t.Context(), insertFailing(t.Context(), &attempts, 3)); err != nil {
		t.Fatalf("Tx: %v", err)
	}
	if attempts != 3 {
		t.Errorf("fn ran %d times, want 3", attempts)
	}
	// The failed attempts were rolled back.
	if got := rows(t, s); len(got) != 1 || got[0] != 3 {
		t.Errorf("rows = %v, want [3]", got)
	}
}

func TestTxGivesUpAfterMaxAttempts(t *testing.T) {
	s := newStore(t, sqlstore.Options{Retryable: isRetry, MaxAttempts: 4})
	attempts := 0
	err := s.Tx(t.Context(), insertFailing(t.Context(), &attempts, 0))
	if !errors.Is(err, errRetry) || !strings.Contains(err.Error(), "4 attempts") {
		t.Errorf("err = %v, want the retryable error after 4 attempts", err)
	}
	if attempts != 4 {
		t.Errorf("fn ran %d times, want 4", attempts)
	}
	if got := rows(t, s); len(got) != 0 {
		t.Errorf("rows = %v, want none", got)
	}
}

func TestTxDoesNotRetryOtherErrors(t *testing.T) {
	errOther := errors.New("plan refused")
	for name, o := range map[string]sqlstore.Options{
		"not retryable":    {Retryable: isRetry},
		"no Retryable set": {}, // as New makes it: SQLite's behaviour
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t, o)
			attempts := 0
			fail := errRetry
			if o.Retryable != nil {
				fail = errOther
			}
			err := s.Tx(t.Context(), func(tx *sql.Tx) error {
				attempts++
				return fail
			})
			if err != fail || attempts != 1 {
				t.Errorf("err = %v after %d runs, want %v after 1", err, attempts, fail)
			}
		})
	}
}

func TestTxStopsRetryingWhenContextEnds(t *testing.T) {
	s := newStore(t, sqlstore.Options{Retryable: isRetry, MaxAttempts: 1000})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	attempts := 0
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		attempts++
		return errRetry
	})
	if err == nil {
		t.Fatal("Tx succeeded")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Tx returned after %s, %d attempts; want soon after the context ended", d, attempts)
	}
}
