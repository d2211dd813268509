package sqlstore

import (
	"context"
	"database/sql"
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
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.stmts[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts.stmts == nil {
		s.stmts.stmts = make(map[string]*sql.Stmt)
	}
	s.stmts.stmts[query] = st
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
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}
