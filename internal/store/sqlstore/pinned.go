package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
)

// pinnedWriter runs the hottest write there is, an invocation answered
// inline (CreateAnsweredInteraction), on one connection kept out of the
// pool and driven through the driver's own interfaces.
//
// Through database/sql such a transaction starts goroutines (BeginTx's
// watcher of the context; with a cancellable context, the SQLite
// driver's interrupt watcher for each statement) and converts its
// arguments behind a few locks: on the 2-core machine a two-row
// transaction under a request's context took 32–38 µs that way and
// 21–23 µs here (BenchmarkPinnedTx), and each goroutine started may wake
// the idle CPU, which on a small virtual machine costs more than the
// goroutine.
//
// The backend asks for it (Options.PinnedBegin) where its transactions
// need nothing database/sql adds: SQLite's, which this process's write
// gate already takes in turn, one at a time.
type pinnedWriter struct {
	begin string // the statement that begins a write transaction

	mu    sync.Mutex             // one transaction at a time on conn
	conn  *sql.Conn              // nil until first used, and after it broke
	stmts map[string]driver.Stmt // prepared on conn
	args  []driver.NamedValue    // a statement's arguments, reused (the driver copies them)
}

// pinnedTx is a transaction on the pinned connection.
type pinnedTx struct {
	conn any // the driver's connection, valid during the transaction only
	w    *pinnedWriter
}

// pin takes the connection from the pool, if it has none. Callers pin
// before they enter the write gate: a writer waiting for a connection
// inside the gate would wait for every reader of the pool.
func (p *pinnedWriter) pin(ctx context.Context, db *sql.DB) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pinLocked(ctx, db)
}

func (p *pinnedWriter) pinLocked(ctx context.Context, db *sql.DB) error {
	if p.conn != nil {
		return nil
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("pin a connection: %w", err)
	}
	p.conn, p.stmts = c, map[string]driver.Stmt{}
	return nil
}

// run runs fn in one transaction on the pinned connection, committing
// if it returns nil and rolling back otherwise (a panic included). ctx
// bounds only the wait for a connection (pin): a transaction that has
// begun runs to its end, as it has nothing to wait for but the disk
// and, rarely, another process's writer (the busy timeout bounds that).
func (p *pinnedWriter) run(ctx context.Context, db *sql.DB, fn func(pinnedTx) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.pinLocked(ctx, db); err != nil { // dropped since pin: rare
		return err
	}
	// database/sql closes a connection whose Raw function panicked (after
	// tx rolled back): the next transaction pins another.
	panicked := true
	defer func() {
		if panicked {
			p.dropLocked()
		}
	}()
	err := p.conn.Raw(func(dc any) error { return p.tx(dc, fn) })
	panicked = false
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		p.dropLocked()
	}
	return err
}

func (p *pinnedWriter) tx(dc any, fn func(pinnedTx) error) error {
	// BEGIN and COMMIT are prepared once too: parsing them again for
	// each transaction cost more than running them.
	if _, err := p.exec(dc, p.begin, nil); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	done := false
	defer func() {
		if !done {
			// A failed COMMIT leaves SQLite's transaction open.
			_, _ = p.exec(dc, "ROLLBACK", nil)
		}
	}()
	if err := fn(pinnedTx{conn: dc, w: p}); err != nil {
		return err
	}
	if _, err := p.exec(dc, "COMMIT", nil); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	done = true
	return nil
}

// exec runs one statement of the transaction, prepared once on the
// connection, with args converted as database/sql converts them.
func (t pinnedTx) exec(query string, args ...any) (driver.Result, error) {
	named := t.w.args[:0]
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, fmt.Errorf("argument $%d: %w", i+1, err)
		}
		named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	t.w.args = named
	defer clear(named) // keeps no value alive until the next statement
	return t.w.exec(t.conn, query, named)
}

// exec runs query, prepared once on the pinned connection dc. Nothing
// interrupts it (see run): a context without Done spares the driver its
// watcher goroutine.
func (p *pinnedWriter) exec(dc any, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := p.stmt(dc, query)
	if err != nil {
		return nil, err
	}
	sx, ok := st.(driver.StmtExecContext)
	if !ok {
		return nil, fmt.Errorf("the driver's statement (%T) cannot execute", st)
	}
	return sx.ExecContext(context.Background(), args)
}

// stmt returns query prepared on the pinned connection dc.
func (p *pinnedWriter) stmt(dc any, query string) (driver.Stmt, error) {
	if st, ok := p.stmts[query]; ok {
		return st, nil
	}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("the driver's connection (%T) cannot prepare statements", dc)
	}
	st, err := pc.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	p.stmts[query] = st
	return st, nil
}

// close gives the connection back to the pool, before the pool closes.
func (p *pinnedWriter) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropLocked()
}

func (p *pinnedWriter) dropLocked() {
	if p.conn == nil {
		return
	}
	_ = p.conn.Raw(func(any) error {
		for _, st := range p.stmts {
			_ = st.Close()
		}
		return nil
	})
	_ = p.conn.Close()
	p.conn, p.stmts = nil, nil
}
