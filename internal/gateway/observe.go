package gateway

import (
	"github.com/slashd/slashd/internal/snowflake"
)

// Observation is what Config.Observe is told: a session identified,
// resumed or closed, or a dispatch written to its connection.
type Observation struct {
	Kind          string
	ApplicationID snowflake.ID
	Session       string
	// Shard and Intents: an identify's (Shard nil: none asked for).
	Shard   *[2]int
	Intents uint64
	// Seq: a resume's sequence number.
	Seq int64
	// Code and By: a close's code and who closed ("client", "server").
	Code int
	By   string
	// Event, Seq and Data: a dispatch's, sliced from its frame as
	// written (Data must not be changed).
	Event string
	Data  []byte
}

// Observation kinds.
const (
	ObservedIdentify = "identify"
	ObservedResume   = "resume"
	ObservedClose    = "close"
	ObservedDispatch = "dispatch"
)

// observe tells Config.Observe, if any.
func (g *Gateway) observe(o Observation) {
	if g.cfg.Observe != nil {
		g.cfg.Observe(o)
	}
}

// observing reports whether anything observes the gateway (so that the
// send path builds no Observation for nobody).
func (g *Gateway) observing() bool { return g.cfg.Observe != nil }

// observeDispatch tells Config.Observe of a dispatch written: its type
// and its data, as the session keeps them.
func (g *Gateway) observeDispatch(app snowflake.ID, session string, seq int64, t string, data []byte) {
	g.observe(Observation{Kind: ObservedDispatch, ApplicationID: app, Session: session, Seq: seq, Event: t, Data: data})
}
