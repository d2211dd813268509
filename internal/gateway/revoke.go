package gateway

import "github.com/slashd/slashd/internal/snowflake"

// revokeApp ends everything app's bot has on this node's gateway, as
// the real gateway does when a bot's token stops being valid: each
// connection closes with 4004 Authentication failed (its session ends
// with it: a RESUME would fail the same way), and every session of the
// app left here, resumable or another node's shadow, is forgotten. Each
// node does so on the bus's event (event.ApplicationDeleted), so that
// no node keeps a deleted app's bot online.
func (g *Gateway) revokeApp(app snowflake.ID) {
	if app == 0 {
		return
	}
	g.mu.Lock()
	var conns []*conn
	for c := range g.conns {
		conns = append(conns, c)
	}
	sessions := make([]*session, 0, len(g.byApp[app]))
	for s := range g.byApp[app] {
		sessions = append(sessions, s)
	}
	g.mu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		ours := c.app == app || c.sess != nil && c.sess.appID == app
		c.mu.Unlock()
		if ours {
			go c.close(CloseAuthenticationFailed, "")
		}
	}
	for _, s := range sessions {
		g.removeSession(s)
	}
}
