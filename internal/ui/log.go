package ui

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/snowflake"
)

// The interaction log: the last deliveries the API reported (see
// api.Server.OnDelivery), kept in memory, in a ring of fixed size, each
// payload and answer capped. It is the playground's own observation of
// this node, not part of the world: a restart empties it.
const (
	logEntries  = 200
	logBodyCap  = 64 << 10
	logTruncMsg = `"(truncated: more than 64 KiB)"`
)

// LogEntry is one delivery in the log, on the wire.
type LogEntry struct {
	InteractionID snowflake.ID  `json:"interaction_id"`
	Type          int           `json:"type"`
	ApplicationID snowflake.ID  `json:"application_id"`
	GuildID       *snowflake.ID `json:"guild_id"`
	ChannelID     snowflake.ID  `json:"channel_id"`
	UserID        snowflake.ID  `json:"user_id"`
	// CommandVersion: see api.Delivery (absent for components and modals).
	CommandVersion *snowflake.ID   `json:"command_version,omitempty"`
	At             time.Time       `json:"at"`
	Route          string          `json:"route"`
	Endpoint       string          `json:"endpoint,omitempty"`
	Status         int             `json:"status,omitempty"`
	Outcome        string          `json:"outcome"`
	Reason         string          `json:"reason,omitempty"`
	LatencyMS      float64         `json:"latency_ms"`
	Payload        json.RawMessage `json:"payload"`
	Answer         json.RawMessage `json:"answer"`
}

type interactionLog struct {
	mu      sync.Mutex
	entries []LogEntry // a ring: next is where the next one goes
	next    int
}

func capJSON(b []byte) json.RawMessage {
	switch {
	case len(b) == 0:
		return json.RawMessage("null")
	case len(b) > logBodyCap:
		return json.RawMessage(logTruncMsg)
	}
	return json.RawMessage(append([]byte(nil), b...))
}

// Record is the API's delivery hook: cmd/slashd passes it to
// api.Server.OnDelivery.
func (h *Handler) Record(d api.Delivery) {
	e := LogEntry{InteractionID: d.InteractionID, Type: d.Type, ApplicationID: d.ApplicationID, ChannelID: d.ChannelID,
		UserID: d.UserID, At: d.At.UTC(), Route: d.Route, Endpoint: d.Endpoint, Status: d.Status, Outcome: d.Outcome,
		Reason: d.Reason, LatencyMS: float64(d.Latency.Microseconds()) / 1000,
		Payload: capJSON(d.Payload), Answer: capJSON(d.Answer)}
	if d.GuildID != 0 {
		g := d.GuildID
		e.GuildID = &g
	}
	if d.CommandVersion != 0 && (d.Type == 2 || d.Type == 4) {
		v := d.CommandVersion
		e.CommandVersion = &v
	}
	l := &h.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) < logEntries {
		l.entries = append(l.entries, e)
		return
	}
	l.entries[l.next] = e
	l.next = (l.next + 1) % logEntries
}

// interactions is GET /ui/interactions[?application_id=…&guild_id=…]:
// the log, newest first.
func (h *Handler) interactions(w http.ResponseWriter, r *http.Request) {
	if h.session(r) == nil {
		uiError(w, http.StatusUnauthorized, "401: Unauthorized")
		return
	}
	q := r.URL.Query()
	app, guild := q.Get("application_id"), q.Get("guild_id")
	l := &h.log
	l.mu.Lock()
	out := make([]LogEntry, 0, len(l.entries))
	for i := range l.entries {
		// newest first: the one before next, backwards
		e := l.entries[(l.next-1-i+2*len(l.entries))%len(l.entries)]
		if app != "" && e.ApplicationID.String() != app {
			continue
		}
		if guild != "" && (e.GuildID == nil || e.GuildID.String() != guild) {
			continue
		}
		out = append(out, e)
	}
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(out)
}
