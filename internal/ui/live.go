package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// Live updates: server-sent events (docs/design.md, "Playground UI").
//
// The chat view streams GET /ui/live/chat?ticket=…: the messages created,
// edited and deleted in the channel it shows, as its member sees them
// (ephemeral ones only when they are that member's). The events come from
// the event bus, where the API publishes every message write
// (event.MessageCreate, …) on whichever node made it. The ticket comes from
// POST /ui/live/chat {channel_id, user_id} with the member's client
// token: the UI asks the API, in process and with that token, whether
// the member may read the channel (GET …/messages?limit=1), the same
// rules the chat's own reads follow, and asks again on every
// (re)connection.
//
// The log view streams GET /ui/live/log[?application_id=…&guild_id=…]:
// each new or completed interaction-log entry.
//
// Each stream has a bounded buffer: a stream that falls behind loses its
// buffered events and is told "resync", on which the page reads the whole
// state again (as it does on every "ready", so a reconnection misses
// nothing). A comment line every Heartbeat keeps proxies from closing an
// idle stream. A stream ends when its client goes or the handler is
// closed (Close).
const (
	streamBuffer      = 64
	maxTicketsPerUser = 16
	maxTickets        = 1024
	defaultHeartbeat  = 15 * time.Second
)

// sse is one event as written on a stream.
type sse struct {
	name string
	data []byte
}

type stream struct {
	ch     chan sse
	resync atomic.Bool
	kick   chan struct{} // cap 1: a resync is due
	// the filter: a chat stream's channel and member, or a log stream's
	// application and guild (0: any)
	chat          bool
	channel, user snowflake.ID
	app, guild    snowflake.ID
}

// offer queues ev without blocking; a full buffer turns into a resync.
func (s *stream) offer(ev sse) {
	select {
	case s.ch <- ev:
	default:
		s.dueResync()
	}
}

// dueResync marks the stream for a resync and wakes its writer.
func (s *stream) dueResync() {
	s.resync.Store(true)
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// chatTicket is what POST /ui/live/chat checked: the member, the channel
// and the member's client token (kept to check again on reconnection),
// for one session (its key). Tickets are in memory: after a restart the
// page asks for new ones, as after any refused reconnection.
type chatTicket struct {
	session string
	user    snowflake.ID
	channel snowflake.ID
	token   string
	made    time.Time
}

// LiveStreams is how many live streams are open.
func (h *Handler) LiveStreams() int {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	return len(h.streams)
}

// Close ends every live stream and stops listening to the bus. Call it
// before http.Server.Shutdown, which waits for open requests (a stream
// never finishes on its own).
func (h *Handler) Close() { h.stop() }

func (h *Handler) addStream(s *stream) {
	h.liveMu.Lock()
	h.streams[s] = struct{}{}
	h.liveMu.Unlock()
}

func (h *Handler) dropStream(s *stream) {
	h.liveMu.Lock()
	delete(h.streams, s)
	h.liveMu.Unlock()
}

// fanOut offers ev to every stream that wants it.
func (h *Handler) fanOut(ev sse, wants func(*stream) bool) {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	for s := range h.streams {
		if wants(s) {
			s.offer(ev)
		}
	}
}

// resyncAll tells every stream to resync.
func (h *Handler) resyncAll() {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	for s := range h.streams {
		s.dueResync()
	}
}

// listen reads the bus until it closes: message events go to the chat
// streams of their channel and complete the log's entries.
func (h *Handler) listen(events <-chan event.Event) {
	for e := range events {
		if e.AfterGap {
			// The subscription lost events to its full buffer: every
			// stream may have missed some, so every page reads its
			// state again.
			h.resyncAll()
		}
		var name string
		if e.Type == event.RequestRefused {
			var r event.Refusal
			if event.DecodeData(e.Data, &r) == nil {
				h.refused(r)
			}
			continue
		}
		switch e.Type {
		case event.MessageCreate:
			name = "message_create"
		case event.MessageUpdate:
			name = "message_update"
		case event.MessageDelete:
			name = "message_delete"
		default:
			continue
		}
		var m event.Message
		if event.DecodeData(e.Data, &m) != nil || m.ChannelID == 0 {
			continue
		}
		data := []byte(m.Body)
		if e.Type == event.MessageDelete || len(data) == 0 {
			data, _ = jsonenc.Marshal(map[string]string{"id": m.ID.String(), "channel_id": m.ChannelID.String()})
		}
		h.fanOut(sse{name: name, data: data}, func(s *stream) bool {
			return s.chat && s.channel == m.ChannelID && (m.VisibleTo == 0 || m.VisibleTo == s.user)
		})
		if e, ok := h.logMessage(e.Type, m); ok {
			h.publishEntry(e)
		}
	}
}

// publishEntry sends a log entry (new or completed) to the log streams
// whose filter it passes.
func (h *Handler) publishEntry(e LogEntry) {
	data, err := jsonenc.Marshal(e)
	if err != nil {
		return
	}
	h.fanOut(sse{name: "entry", data: data}, func(s *stream) bool {
		return !s.chat && (s.app == 0 || s.app == e.ApplicationID) &&
			(s.guild == 0 || (e.GuildID != nil && *e.GuildID == s.guild))
	})
}

// replay writes, after a chat stream's "ready" or "resync", the
// refusals kept for its channel: what the page reads again does not
// have them (a live one may come twice: the page keeps each once).
func (h *Handler) replay(s *stream, write func(sse) bool) bool {
	if !s.chat {
		return true
	}
	for _, ev := range h.keptRefusals(s) {
		if !write(ev) {
			return false
		}
	}
	return true
}

// liveTicket is POST /ui/live/chat {channel_id} with the member's client
// token in Authorization: a ticket for GET /ui/live/chat.
func (h *Handler) liveTicket(w http.ResponseWriter, r *http.Request) {
	s := h.authorized(w, r)
	if s == nil {
		return
	}
	var body struct {
		ChannelID snowflake.ID `json:"channel_id"`
		UserID    snowflake.ID `json:"user_id"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.ChannelID == 0 || body.UserID == 0 {
		uiError(w, http.StatusBadRequest, "400: Bad Request: send {\"channel_id\": …, \"user_id\": …}")
		return
	}
	token, user := r.Header.Get("Authorization"), body.UserID
	if status, msg := h.checkReader(r, token, body.ChannelID); status != http.StatusOK {
		uiError(w, status, msg)
		return
	}
	id, err := h.random()
	if err != nil {
		uiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	now := h.cfg.Now()
	h.liveMu.Lock()
	if len(h.tickets) >= maxTickets {
		h.pruneTicketsLocked(now)
	}
	// A member's tickets are few: the oldest goes.
	var oldest string
	n := 0
	for k, t := range h.tickets {
		if t.session == s.key && t.user == user {
			n++
			if oldest == "" || t.made.Before(h.tickets[oldest].made) {
				oldest = k
			}
		}
	}
	if n >= maxTicketsPerUser {
		delete(h.tickets, oldest)
	}
	h.tickets[id] = chatTicket{session: s.key, user: user, channel: body.ChannelID, token: token, made: now}
	h.liveMu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = jsonenc.NewEncoder(w).Encode(map[string]string{"ticket": id})
}

// pruneTicketsLocked makes room among the tickets: those older than a
// session's lifetime go (their session has ended), then, if there are
// still too many, the oldest.
func (h *Handler) pruneTicketsLocked(now time.Time) {
	var oldest string
	for k, t := range h.tickets {
		if now.Sub(t.made) > h.cfg.SessionTTL {
			delete(h.tickets, k)
			continue
		}
		if oldest == "" || t.made.Before(h.tickets[oldest].made) {
			oldest = k
		}
	}
	if len(h.tickets) >= maxTickets {
		delete(h.tickets, oldest)
	}
}

// dropTickets forgets a session's tickets (it logged out).
func (h *Handler) dropTickets(session string) {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	for k, t := range h.tickets {
		if t.session == session {
			delete(h.tickets, k)
		}
	}
}

// checkReader asks the API, in process with token (a member's client
// token), whether its user may read the channel's messages. It returns
// the API's status and message. Which member the token is the page
// says (user_id): the session is an admin's, who may mint any member's
// token and see as them anyway.
func (h *Handler) checkReader(r *http.Request, token string, channel snowflake.ID) (int, string) {
	if token == "" {
		return http.StatusUnauthorized, "401: Unauthorized"
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet,
		"/api/v10/channels/"+channel.String()+"/messages?limit=1", nil)
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	req.RemoteAddr, req.Host = r.RemoteAddr, r.Host
	req.Header.Set("Authorization", token)
	rec := &bodyRecorder{header: http.Header{}}
	h.cfg.API.ServeHTTP(rec, req)
	if status := rec.code(); status != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(rec.body.Bytes(), &e) != nil || e.Message == "" {
			e.Message = fmt.Sprintf("HTTP %d", status)
		}
		return status, e.Message
	}
	return http.StatusOK, ""
}

// bodyRecorder is a ResponseWriter that keeps the status and body.
type bodyRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bodyRecorder) Header() http.Header { return b.header }
func (b *bodyRecorder) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if b.body.Len() < 64<<10 {
		b.body.Write(p)
	}
	return len(p), nil
}
func (b *bodyRecorder) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bodyRecorder) code() int {
	if b.status == 0 {
		return http.StatusOK
	}
	return b.status
}

// liveChat is GET /ui/live/chat?ticket=…: the chat stream.
func (h *Handler) liveChat(w http.ResponseWriter, r *http.Request) {
	s := h.authorized(w, r)
	if s == nil {
		return
	}
	h.liveMu.Lock()
	t, ok := h.tickets[r.URL.Query().Get("ticket")]
	h.liveMu.Unlock()
	if !ok || t.session != s.key {
		uiError(w, http.StatusNotFound, "404: Unknown ticket")
		return
	}
	// The member may have lost the channel since: ask again.
	if status, msg := h.checkReader(r, t.token, t.channel); status != http.StatusOK {
		uiError(w, status, msg)
		return
	}
	h.serveStream(w, r, &stream{chat: true, channel: t.channel, user: t.user})
}

// liveLog is GET /ui/live/log[?application_id=…&guild_id=…]: the log
// stream.
func (h *Handler) liveLog(w http.ResponseWriter, r *http.Request) {
	if h.authorized(w, r) == nil {
		return
	}
	st := &stream{}
	q := r.URL.Query()
	for key, dst := range map[string]*snowflake.ID{"application_id": &st.app, "guild_id": &st.guild} {
		if v := q.Get(key); v != "" {
			id, err := snowflake.Parse(v)
			if err != nil {
				uiError(w, http.StatusBadRequest, "400: Bad Request: "+key+" is not a snowflake")
				return
			}
			*dst = id
		}
	}
	h.serveStream(w, r, st)
}

// serveStream writes s's events until the client goes or the handler
// is closed.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request, s *stream) {
	rc := http.NewResponseController(w)
	s.ch, s.kick = make(chan sse, streamBuffer), make(chan struct{}, 1)
	h.addStream(s)
	defer h.dropStream(s)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	beat := h.cfg.Heartbeat
	write := func(p []byte) bool {
		// The server's WriteTimeout would cut a long stream: each write
		// gets its own deadline (an error: the writer does not support
		// deadlines, and there is none to extend).
		_ = rc.SetWriteDeadline(time.Now().Add(beat + 10*time.Second))
		if _, err := w.Write(p); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	event := func(ev sse) bool {
		var b strings.Builder
		b.WriteString("event: ")
		b.WriteString(ev.name)
		b.WriteString("\ndata: ")
		b.Write(ev.data) // JSON: one line
		b.WriteString("\n\n")
		return write([]byte(b.String()))
	}
	// "ready" after the stream is registered: what the page reads now
	// cannot miss an event sent later.
	if !event(sse{name: "ready", data: []byte("{}")}) || !h.replay(s, event) {
		return
	}
	ticker := time.NewTicker(beat)
	defer ticker.Stop()
	for {
		select {
		case ev := <-s.ch:
			if !event(ev) {
				return
			}
		case <-s.kick:
			if !s.resync.Swap(false) {
				continue
			}
			for drained := false; !drained; {
				select {
				case <-s.ch:
				default:
					drained = true
				}
			}
			if !event(sse{name: "resync", data: []byte("{}")}) || !h.replay(s, event) {
				return
			}
		case <-ticker.C:
			if !write([]byte(": keep-alive\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}
