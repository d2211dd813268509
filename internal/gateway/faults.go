package gateway

import (
	"context"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/snowflake"
)

// Faults are test worlds' faults acting on the gateway's send path
// (internal/fault, through the API; docs/faults.md). The gateway asks at
// a few points of a session's life what to do wrong; Active is asked
// first, and is a pointer load, so a gateway whose bots have no fault
// pays nothing else.
type Faults interface {
	// Active reports whether any fault may act at all.
	Active() bool
	// Act asks what to do to app's session at point (event: the
	// dispatch's type at FaultAtDispatch); the zero FaultAction is
	// nothing.
	Act(ctx context.Context, app snowflake.ID, session string, point FaultPoint, event string) FaultAction
}

// FaultPoint is where the gateway asks its Faults.
type FaultPoint int

const (
	// FaultAtHeartbeat: a heartbeat came in (its ACK may be withheld,
	// or the connection told to go).
	FaultAtHeartbeat FaultPoint = iota
	// FaultAtAttach: a session was identified or resumed on a connection.
	FaultAtAttach
	// FaultAtPoke: the faults changed (ApplyFaults), for every session
	// this node holds a connection of.
	FaultAtPoke
	// FaultAtDispatch: a dispatch is about to be written.
	FaultAtDispatch
)

// FaultAction is what a fault makes the gateway do.
type FaultAction struct {
	Reconnect      bool          // op 7 RECONNECT, then close (the session stays resumable)
	InvalidSession bool          // op 9 INVALID_SESSION with d = Resumable; the connection may identify or resume again
	Resumable      bool          // with InvalidSession
	Close          int           // close the connection with this code (0: no)
	WithholdAck    bool          // at a heartbeat: no ACK
	Delay          time.Duration // at a dispatch: write it (and what follows) this much later
}

func (g *Gateway) faultsActive() bool { return g.cfg.Faults != nil && g.cfg.Faults.Active() }

// ApplyFaults asks the faults about every session this node holds a
// connection of (call it when the faults changed): a new fault acts on
// the bots connected now, not at their next heartbeat.
func (g *Gateway) ApplyFaults(ctx context.Context) {
	if !g.faultsActive() {
		return
	}
	g.mu.Lock()
	conns := make([]*conn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	g.mu.Unlock()
	for _, c := range conns {
		if c.session() != nil {
			c.applyFault(ctx, FaultAtPoke)
		}
	}
}

// applyFault asks the faults what to do to this connection's session at
// point and does it; it reports whether a heartbeat's ACK is withheld.
func (c *conn) applyFault(ctx context.Context, point FaultPoint) (withholdAck bool) {
	if !c.g.faultsActive() {
		return false
	}
	s := c.session()
	if s == nil {
		return false
	}
	a := c.g.cfg.Faults.Act(ctx, s.appID, s.id, point, "")
	switch {
	case a.WithholdAck:
		return true
	case a.Reconnect:
		go c.reconnect(c.ctx)
	case a.InvalidSession:
		c.invalidateSession(s, a.Resumable)
	case a.Close != 0:
		go c.close(websocket.StatusCode(a.Close), "")
	}
	return false
}

// invalidateSession sends op 9 as the real gateway does when a session
// cannot go on: the session leaves the connection (dead unless
// resumable), which may then IDENTIFY (or RESUME) again.
func (c *conn) invalidateSession(s *session, resumable bool) {
	c.mu.Lock()
	if c.sess != s {
		c.mu.Unlock()
		return
	}
	c.sess = nil
	c.mu.Unlock()
	c.g.letGo(c, s, !resumable)
	c.send(frame(opInvalidSession, resumable))
	c.armIdentifyDeadline()
}

// dispatchDelay is how long a fault holds a dispatch of type t to s.
func (c *conn) dispatchDelay(s *session, t string) time.Duration {
	if !c.g.faultsActive() {
		return 0
	}
	return c.g.cfg.Faults.Act(c.ctx, s.appID, s.id, FaultAtDispatch, t).Delay
}

// pause waits d unless the connection ends first (false then).
func (c *conn) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}
