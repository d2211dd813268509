package gateway

import "github.com/slashd/slashd/internal/snowflake"

// AppSessions counts one app's gateway sessions, for those who want to
// know whether its bot is online (the playground says so when the app's
// interactions go to an endpoint instead).
type AppSessions struct {
	// Connected are the sessions with a connection: this node's, and
	// those another node announced and has not ended (a node is told
	// when another's session starts and ends, not when its client drops
	// and comes back).
	Connected int
	// Resumable are this node's sessions whose client went away within
	// the resume window.
	Resumable int
}

// AppSessions counts appID's sessions that this node knows of.
func (g *Gateway) AppSessions(appID snowflake.ID) AppSessions {
	g.mu.Lock()
	all := make([]*session, 0, len(g.byApp[appID]))
	for s := range g.byApp[appID] {
		all = append(all, s)
	}
	g.mu.Unlock()
	var out AppSessions
	for _, s := range all {
		if s.liveHere() {
			out.Connected++
		} else {
			out.Resumable++
		}
	}
	return out
}

// liveHere reports whether the session counts as connected: it has a
// connection, or it is another node's that has not been seen to leave.
func (s *session) liveHere() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shadow {
		return s.leftAt.IsZero() && !s.dead
	}
	return s.conn != nil
}
