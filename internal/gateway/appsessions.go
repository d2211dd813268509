package gateway

import (
	"slices"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// AppSessions counts one app's gateway sessions, for those who want to
// know whether its bot is online (the playground says so when the app's
// interactions go to an endpoint instead).
type AppSessions struct {
	// Connected are the sessions with a connection: this node's, and
	// those another node announced and has not said its client left
	// (GATEWAY_SESSION_DETACHED) nor ended.
	Connected int
	// Resumable are the sessions whose client went away within the
	// resume window: this node's, and those another node said its
	// client left (or that node went silent).
	Resumable int
}

// AppSessions counts appID's sessions that this node knows of.
func (g *Gateway) AppSessions(appID snowflake.ID) AppSessions {
	var out AppSessions
	for _, s := range g.appSessions(appID) {
		if s.liveHere() {
			out.Connected++
		} else {
			out.Resumable++
		}
	}
	return out
}

// SessionInfo describes one bot session of an app, as every node of a
// cluster knows it (docs/admin-api.md, GET /admin/v1/worlds/{world}/sessions).
type SessionInfo struct {
	ID            string
	ApplicationID snowflake.ID
	ShardID       int
	Shards        int
	Intents       uint64
	// IdentifiedAt is when its READY was made (zero for a session
	// another node announced before it said when).
	IdentifiedAt time.Time
	// Connected: a connection holds it, here or on another node.
	Connected bool
	// DisconnectedAt is when its client went away (Connected false):
	// it may be resumed within the resume window from then.
	DisconnectedAt time.Time
}

// SessionList lists appID's sessions that this node knows of (its own
// and the other nodes' shadows, which is all of them), the oldest first.
func (g *Gateway) SessionList(appID snowflake.ID) []SessionInfo {
	all := g.appSessions(appID)
	out := make([]SessionInfo, 0, len(all))
	for _, s := range all {
		out = append(out, s.info())
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		if c := a.IdentifiedAt.Compare(b.IdentifiedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

func (g *Gateway) appSessions(appID snowflake.ID) []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	all := make([]*session, 0, len(g.byApp[appID]))
	for s := range g.byApp[appID] {
		all = append(all, s)
	}
	return all
}

// liveHere reports whether the session counts as connected: it has a
// connection, or it is another node's that has not been seen to leave.
func (s *session) liveHere() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live()
}

func (s *session) live() bool {
	if s.shadow {
		return s.leftAt.IsZero() && !s.dead
	}
	return s.conn != nil
}

func (s *session) info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := SessionInfo{ID: s.id, ApplicationID: s.appID, ShardID: s.shardID, Shards: s.shards, Intents: s.intents,
		IdentifiedAt: s.identified, Connected: s.live()}
	if !in.Connected {
		in.DisconnectedAt = s.leftAt
	}
	return in
}

// letGo detaches c from s, its session, when c closes or the session is
// invalidated (dead: it cannot be resumed), and tells the other nodes:
// the session ended, or its client went away and it waits for a resume.
func (g *Gateway) letGo(c *conn, s *session, dead bool) {
	now := g.cfg.Now()
	detached, ended := s.detach(c, now, dead)
	switch {
	case ended:
		g.removeSession(s)
		g.publish(eventSessionEnd, sessionEvent{Session: s.id, Node: g.cfg.Node})
	case detached:
		g.publish(eventSessionDetached, sessionEvent{Session: s.id, Node: g.cfg.Node, At: now})
	}
}
