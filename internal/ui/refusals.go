package ui

import (
	"encoding/json"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// Refusals: an app's message write the API refused (event.RequestRefused,
// published on the bus by whichever node refused it). The playground
// shows the bot developer why: in the chat, beside the interaction, to
// the member who invoked it (a bot's refused channel post, which no
// interaction owns, to everyone viewing the channel), and in the
// interaction log's entry. Both are bounded: the node keeps the last
// refusalsKept (each error body capped at refusalBodyCap) to show a chat
// that (re)connects, and a log entry keeps at most logRefusals.
const (
	refusalsKept    = 256
	refusalBodyCap  = 8 << 10
	logRefusals     = 10
	refusalTruncMsg = `"(truncated: more than 8 KiB)"`
)

// Refusal is one refused request, on the wire (the chat stream's
// "refusal" events and the log entries' refusals).
type Refusal struct {
	ID            snowflake.ID  `json:"id"`
	At            time.Time     `json:"at"`
	ApplicationID snowflake.ID  `json:"application_id"`
	InteractionID *snowflake.ID `json:"interaction_id"`
	ChannelID     snowflake.ID  `json:"channel_id"`
	UserID        *snowflake.ID `json:"user_id"`
	// InteractionType, Name and CommandType: what the member invoked
	// (see event.Refusal).
	InteractionType int    `json:"interaction_type,omitempty"`
	Name            string `json:"name,omitempty"`
	CommandType     int    `json:"command_type,omitempty"`
	// Method is empty for an endpoint's inline answer (Route "inline
	// answer", Path the endpoint).
	Method string          `json:"method,omitempty"`
	Route  string          `json:"route"`
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Error  json.RawMessage `json:"error"`
}

// newRefusal is the wire form of a refusal event, its body capped.
func newRefusal(r event.Refusal) Refusal {
	out := Refusal{ID: r.ID, At: r.ID.Time().UTC(), ApplicationID: r.ApplicationID, ChannelID: r.ChannelID,
		Method: r.Method, Route: r.Route, Path: r.Path, Status: r.Status, Error: json.RawMessage("null"),
		InteractionType: r.InteractionType, Name: r.Name, CommandType: r.CommandType}
	if r.InteractionID != 0 {
		id := r.InteractionID
		out.InteractionID = &id
	}
	if r.UserID != 0 {
		u := r.UserID
		out.UserID = &u
	}
	switch {
	case len(r.Error) > refusalBodyCap:
		out.Error = json.RawMessage(refusalTruncMsg)
	case len(r.Error) > 0 && json.Valid(r.Error):
		out.Error = append(json.RawMessage(nil), r.Error...)
	}
	return out
}

// visibleTo reports whether the chat of user shows the refusal: the
// invoker's, or everyone's when no interaction owns it.
func (r Refusal) visibleTo(user snowflake.ID) bool {
	return r.UserID == nil || *r.UserID == user
}

// refused takes a refusal from the bus: kept, added to its interaction's
// log entry, and streamed to the chats of its channel. The log learns of
// it first, so that whoever has seen a refusal in a chat finds it in the
// log too (an entry recorded after that holds it).
func (h *Handler) refused(ev event.Refusal) {
	if ev.ChannelID == 0 || ev.ID == 0 {
		return
	}
	r := newRefusal(ev)
	h.log.mu.Lock()
	h.log.refusals.push(r)
	h.log.mu.Unlock()
	entry, changed := LogEntry{}, false
	if r.InteractionID != nil {
		entry, changed = h.logRefusal(r)
	}
	if data, err := jsonenc.Marshal(r); err == nil {
		h.fanOut(sse{name: "refusal", data: data}, func(s *stream) bool {
			return s.chat && s.channel == r.ChannelID && r.visibleTo(s.user)
		})
	}
	if changed {
		h.publishEntry(entry)
	}
}

// keptRefusals are the refusals kept for a chat stream's channel and
// member, oldest first: sent after its "ready" and each "resync".
func (h *Handler) keptRefusals(s *stream) []sse {
	h.log.mu.Lock()
	defer h.log.mu.Unlock()
	rr := &h.log.refusals
	var out []sse
	for i := range rr.len() {
		r := *rr.at(i)
		if r.ChannelID != s.channel || !r.visibleTo(s.user) {
			continue
		}
		if data, err := jsonenc.Marshal(r); err == nil {
			out = append(out, sse{name: "refusal", data: data})
		}
	}
	return out
}

// logRefusal adds a refusal to its interaction's log entry and returns
// the entry (a copy); one not logged yet is kept a while, as early
// message events are.
func (h *Handler) logRefusal(r Refusal) (LogEntry, bool) {
	l := &h.log
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.entries.len() {
		if e := l.entries.at(i); e.InteractionID == *r.InteractionID {
			if !e.addRefusal(r) {
				return LogEntry{}, false
			}
			return e.copy(), true
		}
	}
	l.early.push(earlyMessage{refusal: &r})
	return LogEntry{}, false
}

// addRefusal records a refusal in the entry (at most logRefusals; the
// same one once); it reports whether the entry changed.
func (e *LogEntry) addRefusal(r Refusal) bool {
	if len(e.Refusals) >= logRefusals {
		return false
	}
	for _, x := range e.Refusals {
		if x.ID == r.ID {
			return false
		}
	}
	e.Refusals = append(e.Refusals, r)
	return true
}
