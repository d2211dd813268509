package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmtCache keeps the read path's statements prepared: preparing costs
// as much as running a small query, and the same few queries run on
// every request. database/sql re-prepares a Stmt on each pooled
// connection as needed.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.preparedStmt(query); ok {
		return st, nil
	}
	// Prepared outside the lock: preparing waits for a pooled connection,
	// and a transaction holding one may be waiting for the lock
	// (preparedStmt), which would deadlock.
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts.mu.Lock()
	old, raced := s.stmts.stmts[query]
	if !raced {
		if s.stmts.stmts == nil {
			s.stmts.stmts = make(map[string]*sql.Stmt)
		}
		s.stmts.stmts[query] = st
	}
	s.stmts.mu.Unlock()
	if raced {
		// Another caller prepared it meanwhile. Closed outside the lock:
		// closing waits for each connection the statement was prepared
		// on, and one of those may be in a transaction's statement that
		// waits, on the server, for a lock held by a transaction that
		// waits for the cache's lock (seen as a deadlock of concurrent
		// answers on PostgreSQL).
		_ = st.Close()
		return old, nil
	}
	return st, nil
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryRow runs a one-row query; a failed prepare surfaces from Scan.
func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.stmt(ctx, query)
	if err != nil {
		// Let database/sql report the error through Row.Scan.
		return s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	stmts := c.stmts
	c.stmts = nil
	c.mu.Unlock()
	for _, st := range stmts { // outside the lock: see stmt
		st.Close()
	}
}

// reader runs the read path's queries: through the statement cache on
// the pool (Store.cached), or inside a transaction with the cache's
// statements (txReader).
type reader interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type cachedReader struct{ s *Store }

func (s *Store) cached() reader { return cachedReader{s} }

func (c cachedReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.s.query(ctx, query, args...)
}

func (c cachedReader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.s.queryRow(ctx, query, args...)
}

// txReader runs cached statements inside tx when the cache has them
// (database/sql prepares each once per connection and reuses it), the
// plain query otherwise.
type txReader struct {
	s  *Store
	tx *sql.Tx
}

func (r txReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := r.s.preparedStmt(query); ok {
		return r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return r.tx.QueryContext(ctx, query, args...)
}

func (r txReader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := r.s.preparedStmt(query); ok {
		return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return r.tx.QueryRowContext(ctx, query, args...)
}

// preparedStmt returns a statement the cache already holds. A transaction
// never prepares into the cache: preparing takes a second pooled
// connection, and when every other one waits for this transaction's write
// lock (BEGIN IMMEDIATE) that would deadlock until the busy timeout.
func (s *Store) preparedStmt(query string) (*sql.Stmt, bool) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	st, ok := s.stmts.stmts[query]
	return st, ok
}

// exec runs a write through the statement cache on the pool, inside the
// write gate.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	leave, err := s.enterWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return st.ExecContext(ctx, args...)
}

// prepareAll puts queries in the statement cache, outside any
// transaction, so that a transaction about to run them finds them
// prepared (txReader, txExec): parsing a statement costs about as much
// as running it, on the paths that run on every invocation.
func (s *Store) prepareAll(ctx context.Context, queries ...string) error {
	for _, q := range queries {
		if _, err := s.stmt(ctx, q); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
	}
	return nil
}

// txExec runs a write inside tx with the cached statement when the cache
// has it (see prepareAll), the plain statement otherwise.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st, ok := s.preparedStmt(query); ok {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}
