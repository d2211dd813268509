package sqlstore

import (
	"context"
	"database/sql"
)

// WriteGate is entered around every write of a Store: each transaction
// (Tx and its kin, which SQLite begins IMMEDIATE, as writers) and each
// single-statement write (execWrite, exec, writeRow). SQLite's store
// admits one writer at a time through it and lets its checkpointer in
// between two writes, where no transaction of this process is open.
// Reads never enter it.
type WriteGate interface {
	// Enter waits for the gate (or for ctx to end) and returns the
	// function that leaves it, to be called once the write has
	// committed or rolled back.
	Enter(ctx context.Context) (leave func(), err error)
}

// enterWrite enters the store's write gate, if it has one.
func (s *Store) enterWrite(ctx context.Context) (func(), error) {
	if s.gate == nil {
		return func() {}, nil
	}
	return s.gate.Enter(ctx)
}

// execWrite runs one write statement, its own transaction, inside the
// write gate.
func (s *Store) execWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	leave, err := s.enterWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	return s.db.ExecContext(ctx, query, args...)
}

// writeRow runs a one-row write (… RETURNING) through the statement
// cache, inside the write gate, and scans its row into dest: the
// statement's transaction ends with the scan, so the gate is left after
// it.
func (s *Store) writeRow(ctx context.Context, dest []any, query string, args ...any) error {
	leave, err := s.enterWrite(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return s.queryRow(ctx, query, args...).Scan(dest...)
}
