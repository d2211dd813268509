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
// session's end, and when its client goes away (GATEWAY_SESSION_DETACHED:
// the shadows count it as resumable, not connected, so that every node
// lists it alike); a resume announces itself (GATEWAY_SESSION_RESUMED), so
// that every node numbers RESUMED alike and a former owner lets go of its
// connection. Nodes say they are alive every
// few seconds: the shadows of a node gone silent count as disconnected
// from then, and expire after the resume window.
//
// A dispatch that answers one session (GUILD_MEMBERS_CHUNK, RATE_LIMITED)
// goes through the bus too, addressed to the session
// (GATEWAY_SESSION_DISPATCH): every node's copy of the session numbers
// it where it comes in the log, as it numbers the bus's other events.
// Its data travels in pieces of at most dispatchPieceBytes, which keeps
// each bus message far below NATS's 1 MB limit however large a chunk of
// members is; the session takes the dispatch once its last piece is in.
//
// A node asked to resume a session it does not know, or from a seq
// beyond its copy's, may simply not have read the bus as far as the
// client's old node had: it publishes a marker of its own
// (GATEWAY_NODE_SYNC), and once the marker comes back it has read
// everything published before, and its answer is final.
//
// The order must be the same on every node: the in-process bus and an
// ordered natsbus (a JetStream stream) give that; core NATS does not.

// Control events of the gateway, carried by the bus with the dispatches.
const (
	eventSessionStart    = "GATEWAY_SESSION_START"
	eventSessionEnd      = "GATEWAY_SESSION_END"
	eventSessionResumed  = "GATEWAY_SESSION_RESUMED"
	eventSessionDetached = "GATEWAY_SESSION_DETACHED"
	eventNodeAlive       = "GATEWAY_NODE_ALIVE"
	eventSessionDispatch = "GATEWAY_SESSION_DISPATCH"
	eventNodeSync        = "GATEWAY_NODE_SYNC"
)

// dispatchPieceBytes bounds the data one GATEWAY_SESSION_DISPATCH carries.
const dispatchPieceBytes = 256 << 10

// dispatchPiece is a GATEWAY_SESSION_DISPATCH's data: piece Piece of
// Pieces of the data of dispatch ID, named Name, to session Session.
type dispatchPiece struct {
	Session string `json:"session"`
	Node    string `json:"node"`
	ID      string `json:"id"`
	Name    string `json:"t"`
	Piece   int    `json:"piece"`
	Pieces  int    `json:"pieces"`
	Data    []byte `json:"data"`
}

// sessionEvent is the data of the session control events.
type sessionEvent struct {
	Session string       `json:"session"`
	Node    string       `json:"node"`
	App     snowflake.ID `json:"app,omitempty"`
	ShardID int          `json:"shard_id,omitempty"`
	Shards  int          `json:"shards,omitempty"`
	Intents uint64       `json:"intents,omitempty"`
	Initial int64        `json:"initial,omitempty"` // READY and GUILD_CREATEs
	At      time.Time    `json:"at,omitzero"`       // a start's: when it was identified
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

// dispatchTo numbers a dispatch in session s's sequence: through the
// bus when there is one, so that every node's copy of s numbers it alike.
func (g *Gateway) dispatchTo(s *session, name string, data []byte) {
	if g.bus == nil {
		s.dispatch(name, data)
		return
	}
	id, err := newSessionID()
	if err != nil {
		g.log.Error("gateway: dispatch id", "err", err)
		return
	}
	pieces := max((len(data)+dispatchPieceBytes-1)/dispatchPieceBytes, 1)
	for i := range pieces {
		piece := data[i*dispatchPieceBytes : min((i+1)*dispatchPieceBytes, len(data))]
		g.bus.Publish(context.Background(), event.Event{Type: eventSessionDispatch, ApplicationID: s.appID,
			Data: dispatchPiece{Session: s.id, Node: g.cfg.Node, ID: id, Name: name, Piece: i, Pieces: pieces, Data: piece}})
	}
}

// sessionDispatch applies a piece of a dispatch addressed to a session.
func (g *Gateway) sessionDispatch(e event.Event) {
	var p dispatchPiece
	if event.DecodeData(e.Data, &p) != nil || p.Name == "" {
		return
	}
	if s := g.session(p.Session); s != nil {
		if data, whole := s.assemble(p); whole {
			s.dispatch(p.Name, data)
		}
	}
}

// control applies a control event from the bus.
func (g *Gateway) control(e event.Event) {
	switch e.Type {
	case eventSessionDispatch:
		g.sessionDispatch(e)
		return
	case event.ApplicationDeleted:
		g.revokeApp(e.ApplicationID)
		return
	case eventNodeAlive, eventNodeSync, eventSessionStart, eventSessionEnd, eventSessionResumed, eventSessionDetached:
	default:
		return // another consumer's (the caches', the playground's): not decoded here
	}
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
	case eventNodeSync:
		if se.Node == g.cfg.Node {
			g.mu.Lock()
			if back, ok := g.syncs[se.Session]; ok {
				close(back)
				delete(g.syncs, se.Session)
			}
			g.mu.Unlock()
		}
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
	case eventSessionDetached:
		// The owner's client went away: the session waits for a resume,
		// here as there (a resume anywhere announces itself).
		if s := g.session(se.Session); s != nil && se.Node != g.cfg.Node {
			if owner, shadow := s.ownerNode(); shadow && owner == se.Node {
				if se.At.IsZero() {
					se.At = now
				}
				s.markLeft(se.At)
			}
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

// catchUp returns true once this node has applied every bus event
// published before the call: it publishes a marker (GATEWAY_NODE_SYNC)
// and waits for it to come back, which on an ordered bus comes after
// them. It returns false without a bus, after catchUpWait or when ctx
// ends.
func (g *Gateway) catchUp(ctx context.Context) bool {
	if g.bus == nil {
		return false
	}
	id, err := newSessionID()
	if err != nil {
		return false
	}
	back := make(chan struct{})
	g.mu.Lock()
	g.syncs[id] = back
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.syncs, id)
		g.mu.Unlock()
	}()
	g.publish(eventNodeSync, sessionEvent{Session: id, Node: g.cfg.Node})
	wait := time.NewTimer(catchUpWait)
	defer wait.Stop()
	select {
	case <-back:
		return true
	case <-wait.C:
		g.log.Warn("gateway: the bus did not bring this node's sync marker back", "marker", id)
		return false
	case <-ctx.Done():
		return false
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
