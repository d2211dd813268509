package ui

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
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
	CommandVersion *snowflake.ID `json:"command_version,omitempty"`
	At             time.Time     `json:"at"`
	Route          string        `json:"route"`
	Endpoint       string        `json:"endpoint,omitempty"`
	Status         int           `json:"status,omitempty"`
	Outcome        string        `json:"outcome"`
	Reason         string        `json:"reason,omitempty"`
	// SignatureHeaders are the X-Signature-Ed25519 and
	// X-Signature-Timestamp headers an endpoint delivery carried.
	SignatureHeaders map[string]string `json:"signature_headers,omitempty"`
	LatencyMS        float64           `json:"latency_ms"`
	Payload          json.RawMessage   `json:"payload"`
	Answer           json.RawMessage   `json:"answer"`
	// Later is what happened after the answer, in order: the app's
	// follow-ups (messages of the interaction) and the edits and the
	// deletion of its original response, as message events (at most
	// logLater, each body capped).
	Later []LogMessage `json:"later"`
	// Refusals are the app's requests for this interaction that were
	// refused (its callback, follow-ups, edits, or its inline answer),
	// in order: at most logRefusals, each body capped (refusals.go).
	Refusals []Refusal `json:"refusals"`

	// originals are the ids of the messages the answer stands for (its
	// message; a component's message it updates): their edits are the
	// answer's.
	originals []snowflake.ID
}

// LogMessage is one message event that completes a log entry.
type LogMessage struct {
	Event     string          `json:"event"` // "follow-up", "edit" or "delete"
	At        time.Time       `json:"at"`
	MessageID snowflake.ID    `json:"message_id"`
	Message   json.RawMessage `json:"message,omitempty"`
}

const (
	logLater   = 20
	logMsgCap  = 16 << 10
	earlyCount = 256
)

type interactionLog struct {
	mu      sync.Mutex
	entries ring[LogEntry]
	// early holds the message events and refusals of interactions not
	// logged yet: an answer and its follow-ups may be stored, and a
	// callback refused, before the delivery is reported (a ring as
	// well).
	early ring[earlyMessage]
	// refusals are the last ones, for the chats (refusals.go).
	refusals ring[Refusal]
}

func newInteractionLog() interactionLog {
	return interactionLog{entries: newRing[LogEntry](logEntries), early: newRing[earlyMessage](earlyCount),
		refusals: newRing[Refusal](refusalsKept)}
}

// earlyMessage is a message event, or (refusal set) a refusal, that
// came before its entry.
type earlyMessage struct {
	typ     string
	at      time.Time
	m       event.Message
	refusal *Refusal
}

// copy is the entry with its own slices, to hand out of the lock.
func (e *LogEntry) copy() LogEntry {
	out := *e
	out.Later = append([]LogMessage(nil), e.Later...)
	out.Refusals = append([]Refusal(nil), e.Refusals...)
	return out
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
		Payload: capJSON(d.Payload), Answer: capJSON(d.Answer), Later: []LogMessage{}, Refusals: []Refusal{}}
	if d.Signature != "" {
		e.SignatureHeaders = map[string]string{"X-Signature-Ed25519": d.Signature, "X-Signature-Timestamp": d.Timestamp}
	}
	e.originals = answerMessages(d)
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
	// What arrived before the entry completes it now.
	for i := range l.early.len() {
		em := l.early.at(i)
		if r := em.refusal; r != nil && *r.InteractionID == e.InteractionID {
			e.addRefusal(*r)
			*em = earlyMessage{}
			continue
		}
		if em.m.ID != 0 && e.owns(em.m) {
			e.add(em.typ, em.at, em.m)
			*em = earlyMessage{}
		}
	}
	l.entries.push(e)
	out := e.copy()
	l.mu.Unlock()
	h.publishEntry(out)
}

// answerMessages are the messages a delivery's answer stands for: the
// message it made or updated, and a component's message when the answer
// updates it (DEFERRED_UPDATE_MESSAGE 6, UPDATE_MESSAGE 7).
func answerMessages(d api.Delivery) []snowflake.ID {
	var ans struct {
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID snowflake.ID `json:"id"`
			} `json:"message"`
		} `json:"resource"`
	}
	var p struct {
		Message struct {
			ID snowflake.ID `json:"id"`
		} `json:"message"`
	}
	_ = json.Unmarshal(d.Answer, &ans)
	_ = json.Unmarshal(d.Payload, &p)
	var out []snowflake.ID
	if ans.Resource.Message.ID != 0 {
		out = append(out, ans.Resource.Message.ID)
	}
	if t := ans.Resource.Type; (t == 6 || t == 7) && p.Message.ID != 0 {
		out = append(out, p.Message.ID)
	}
	return out
}

// owns reports whether a message event belongs to the entry: a message
// of its interaction, or one its answer stands for.
func (e *LogEntry) owns(m event.Message) bool {
	if m.InteractionID == e.InteractionID {
		return true
	}
	for _, id := range e.originals {
		if id == m.ID {
			return true
		}
	}
	return false
}

// add records a message event in the entry: a new message of the
// interaction other than its answer is a follow-up; a change of the
// answer's (or a follow-up's) an edit. The answer's own creation is the
// Answer already.
func (e *LogEntry) add(typ string, at time.Time, m event.Message) {
	ev := ""
	switch typ {
	case event.MessageCreate:
		for _, id := range e.originals {
			if id == m.ID {
				return
			}
		}
		ev = "follow-up"
	case event.MessageUpdate:
		ev = "edit"
	case event.MessageDelete:
		ev = "delete"
	}
	if len(e.Later) >= logLater {
		return
	}
	lm := LogMessage{Event: ev, At: at.UTC(), MessageID: m.ID}
	if len(m.Body) > 0 {
		if len(m.Body) > logMsgCap {
			lm.Message = json.RawMessage(logTruncMsg)
		} else {
			lm.Message = append(json.RawMessage(nil), m.Body...)
		}
	}
	e.Later = append(e.Later, lm)
}

// logMessage completes the log's entries with a message event; it
// returns the entry it completed (a copy), if any. An event no entry
// owns is kept a while, for the entry its interaction may be reported
// in later.
func (h *Handler) logMessage(typ string, m event.Message) (LogEntry, bool) {
	l := &h.log
	now := h.cfg.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	// The newest entry that owns it: a message several interactions
	// touched (a component's) is the latest one's to show.
	var e *LogEntry
	for i := range l.entries.len() {
		if c := l.entries.at(i); c.owns(m) && (e == nil || !c.At.Before(e.At)) {
			e = c
		}
	}
	if e != nil {
		n := len(e.Later)
		e.add(typ, now, m)
		if len(e.Later) == n {
			return LogEntry{}, false
		}
		return e.copy(), true
	}
	if m.InteractionID == 0 && typ == event.MessageCreate {
		return LogEntry{}, false // a user's post: no interaction's
	}
	l.early.push(earlyMessage{typ: typ, at: now, m: m})
	return LogEntry{}, false
}

// interactions is GET /ui/interactions[?application_id=…&guild_id=…]:
// the log, newest first.
func (h *Handler) interactions(w http.ResponseWriter, r *http.Request) {
	if h.authorized(w, r) == nil {
		return
	}
	q := r.URL.Query()
	app, guild := q.Get("application_id"), q.Get("guild_id")
	l := &h.log
	l.mu.Lock()
	out := make([]LogEntry, 0, l.entries.len())
	for i := l.entries.len() - 1; i >= 0; i-- { // newest first
		e := *l.entries.at(i)
		if app != "" && e.ApplicationID.String() != app {
			continue
		}
		if guild != "" && (e.GuildID == nil || e.GuildID.String() != guild) {
			continue
		}
		out = append(out, e.copy())
	}
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = jsonenc.NewEncoder(w).Encode(out)
}
