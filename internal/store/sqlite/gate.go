package sqlite

import (
	"context"
	"slices"
	"sync"
)

// writeGate admits this process's writes one at a time, in arrival
// order, and lets the checkpointer in between two of them.
//
// SQLite takes one writer at a time anyway: queueing here instead of in
// SQLite's busy handler (which sleeps 1, 2, 5, 10 … ms between tries)
// hands the lock over at once. And it is what bounds the WAL: a writer
// that leaves the log over the threshold reserves the gate before
// leaving (onLeave), so the next one in is the checkpointer, whatever
// writers are waiting, and its TRUNCATE checkpoint runs where no
// transaction of this process is open. The log grows past the threshold
// by one transaction at most before a checkpoint resets it.
type writeGate struct {
	// onLeave runs as a writer leaves, still inside: true reserves the
	// gate for the checkpointer (and wakes it through due).
	onLeave func() bool
	due     chan struct{} // capacity 1

	mu       sync.Mutex
	held     bool // a writer or the checkpointer is inside
	writer   bool // … and it is a writer
	reserved bool // the checkpointer goes next; writers wait
	queue    []*gateWaiter
	ckpt     chan struct{} // closed to let the waiting checkpointer in
	writes   uint64        // writes that left the gate, ever
}

type gateWaiter struct {
	ready   chan struct{}
	granted bool
}

func newWriteGate(onLeave func() bool) *writeGate {
	return &writeGate{onLeave: onLeave, due: make(chan struct{}, 1)}
}

// Enter implements sqlstore.WriteGate.
func (g *writeGate) Enter(ctx context.Context) (func(), error) {
	g.mu.Lock()
	if !g.held && !g.reserved && len(g.queue) == 0 {
		g.held, g.writer = true, true
		g.mu.Unlock()
		return g.leave, nil
	}
	w := &gateWaiter{ready: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return g.leave, nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		if w.granted { // let in as ctx ended: pass the turn on
			g.handOff()
		} else {
			g.queue = slices.DeleteFunc(g.queue, func(q *gateWaiter) bool { return q == w })
		}
		return nil, ctx.Err()
	}
}

// leave is a writer's way out.
func (g *writeGate) leave() {
	reserve := g.onLeave != nil && g.onLeave()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	if reserve && !g.reserved {
		g.reserved = true
		select {
		case g.due <- struct{}{}:
		default:
		}
	}
	g.handOff()
}

// handOff passes the gate on as its holder leaves: to the checkpointer
// when it is reserved (or leaves it empty until the checkpointer comes),
// else to the writer that has waited longest. g.mu is held.
func (g *writeGate) handOff() {
	g.writer = false
	switch {
	case g.reserved:
		g.held = false
		if g.ckpt != nil {
			close(g.ckpt)
			g.ckpt = nil
			g.held = true
		}
	case len(g.queue) > 0:
		w := g.queue[0]
		g.queue = g.queue[1:]
		w.granted = true
		g.writer = true
		close(w.ready)
	default:
		g.held = false
	}
}

// enterCheckpoint lets the checkpointer in ahead of every waiting writer,
// once the writer inside (if any) leaves.
func (g *writeGate) enterCheckpoint() {
	g.mu.Lock()
	g.reserved = true
	if !g.held {
		g.held = true
		g.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	g.ckpt = ch
	g.mu.Unlock()
	<-ch
}

// leaveCheckpoint opens the gate to writers again.
func (g *writeGate) leaveCheckpoint() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved = false
	g.handOff()
}

// writerInside reports whether a writer holds the gate (the commit hook
// of tests checks every commit happens inside).
func (g *writeGate) writerInside() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writer
}

// writesLeft is how many writes have left the gate so far.
func (g *writeGate) writesLeft() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writes
}
