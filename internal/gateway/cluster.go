package gateway

import (
	"context"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
)

// Several slashd nodes share one event bus. Each node reads the bus as
// one ordered log and keeps, besides the sessions whose connections it
// holds, a shadow of every other node's sessions: the same dispatches
// with the same sequence numbers, because every node applies the same
// rule to the same ordered events. A client whose node dies resumes on
// any other node, which replays from its shadow.
//
// The rule: a session takes the events that come after its start marker
// on the bus (GATEWAY_SESSION_START, published by the node that
// identified it, with how many dispatches READY and its guilds took).
// Its own node holds it pending until the marker comes back, so that it
// numbers exactly what the shadows number. The owner announces a
// session's end; a resume announces itself (GATEWAY_SESSION_RESUMED), so
// that every node numbers RESUMED alike and a former owner lets go of its
// connection. Nodes say they are alive every
// few seconds: the shadows of a node gone silent count as disconnected
// from then, and expire after the resume window.
//
// The order must be the same on every node: the in-process bus and an
// ordered natsbus (a JetStream stream) give that; core NATS does not.

// Control events of the gateway, carried by the bus with the dispatches.
const (
	eventSessionStart   = "GATEWAY_SESSION_START"
	eventSessionEnd     = "GATEWAY_SESSION_END"
	eventSessionResumed = "GATEWAY_SESSION_RESUMED"
	eventNodeAlive      = "GATEWAY_NODE_ALIVE"
)

// sessionEvent is the data of the session control events.
type sessionEvent struct {
	Session string       `json:"session"`
	Node    string       `json:"node"`
	App     snowflake.ID `json:"app,omitempty"`
	ShardID int          `json:"shard_id,omitempty"`
	Shards  int          `json:"shards,omitempty"`
	Intents uint64       `json:"intents,omitempty"`
	Initial int64        `json:"initial,omitempty"` // READY and GUILD_CREATEs
}

// decodeControl reads a control event's data.
func decodeControl(data any) (sessionEvent, bool) {
	var se sessionEvent
	if event.DecodeData(data, &se) != nil || se.Node == "" {
		return se, false
	}
	return se, true
}

// aliveInterval is how often a node says it is alive; three missed make
// its shadows count as disconnected.
const aliveInterval = 5 * time.Second

// publish sends a control event; the bus's Flush, when it has one, makes
// sure a marker is out before the client hears of its session.
func (g *Gateway) publish(t string, se sessionEvent) {
	if g.bus == nil {
		return
	}
	ctx := context.Background()
	g.bus.Publish(ctx, event.Event{Type: t, Data: se})
	if f, ok := g.bus.(interface{ Flush(context.Context) error }); ok {
		if err := f.Flush(ctx); err != nil {
			g.log.Warn("gateway: flush the bus", "err", err)
		}
	}
}

// control applies a control event from the bus.
func (g *Gateway) control(e event.Event) {
	se, ok := decodeControl(e.Data)
	if !ok {
		return
	}
	now := g.cfg.Now()
	switch e.Type {
	case eventNodeAlive:
		g.mu.Lock()
		g.seen[se.Node] = now
		g.mu.Unlock()
	case eventSessionStart:
		if se.Node == g.cfg.Node {
			if s := g.session(se.Session); s != nil {
				s.start()
			}
			return
		}
		if g.session(se.Session) == nil && se.Shards > 0 {
			g.addSession(newShadow(se, g.cfg.ReplayLimit))
		}
	case eventSessionEnd:
		if s := g.session(se.Session); s != nil && se.Node != g.cfg.Node {
			g.removeSession(s)
		}
	case eventSessionResumed:
		s := g.session(se.Session)
		if s == nil {
			return
		}
		if se.Node != g.cfg.Node {
			if c := s.moveTo(se.Node); c != nil {
				go c.close(CloseUnknownError, "session resumed elsewhere")
			}
		}
		s.dispatch("RESUMED", resumedData)
	}
}

// announceAlive tells the other nodes this one is alive.
func (g *Gateway) announceAlive() {
	g.publish(eventNodeAlive, sessionEvent{Node: g.cfg.Node})
}

// silentSince returns when a node was last heard of, and whether it has
// gone silent.
func (g *Gateway) silentSince(node string, now time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	last, ok := g.seen[node]
	if !ok {
		// Never heard: count from when this node started listening.
		last = g.started
	}
	return last, now.Sub(last) > 3*aliveInterval
}
