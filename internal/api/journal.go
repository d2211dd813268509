package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// The test worlds' journal (docs/journal.md) is recorded at the server's
// edges, never inside a handler: wrap's journalRequest (every REST
// request an app's token made, and the 429s given), dispatch's
// journalDelivery (interactions), messageEvents (messages, whatever
// route wrote them) and the gateway's observer (sessions and
// dispatches). Only what belongs to a world is recorded.

// journalKey carries, in a request's context, the world and route of
// the app's request being served: the message entries name them.
type journalKey struct{}

type journalScope struct {
	world, app snowflake.ID
	route      string
}

// maxErrorBody bounds the error body a rest.request entry keeps.
const maxErrorBody = 8 << 10

// journalRequest starts recording r when an app's token (bot or Bearer)
// of a world made it: it returns the writer to serve r with, r with the
// journal's scope, and the function that records the answer.
func (s *Server) journalRequest(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	if s.journal == nil {
		return w, r, func() {}
	}
	p := principalFrom(r.Context())
	app, kind := p.Token.ApplicationID, strings.ToLower(p.Token.Kind)
	var world snowflake.ID
	known := false
	switch {
	case app != 0 && (p.Token.Kind == store.TokenBot || p.Token.Kind == store.TokenBearer):
		world, known = s.journal.WorldOf(app)
	case r.PathValue("interaction_token") != "":
		// An interaction's token authenticates the request (its
		// callback, its webhook): the app is the interaction's.
		kind = "interaction"
		if id, err := snowflake.Parse(r.PathValue("application_id")); err == nil {
			app = id
			world, known = s.journal.WorldOf(app)
		} else if id, err := snowflake.Parse(r.PathValue("interaction_id")); err == nil {
			app, world, known = s.journal.Interaction(id)
			if !known {
				return w, r, func() {} // not delivered by this node: not a world's (see docs/journal.md)
			}
		}
	}
	if app == 0 {
		return w, r, func() {}
	}
	if !known {
		a, err := s.store.Application(r.Context(), app)
		if err != nil {
			return w, r, func() {}
		}
		s.journal.Learn(app, a.WorldID)
		world = a.WorldID
	}
	if world == 0 {
		return w, r, func() {}
	}
	start := time.Now()
	rec := &journalWriter{ResponseWriter: w, status: http.StatusOK}
	r = r.WithContext(context.WithValue(r.Context(), journalKey{}, journalScope{world: world, app: app, route: r.Pattern}))
	return rec, r, func() {
		body := restEntry{ApplicationID: app, Method: r.Method, Route: r.Pattern, Path: redactedPath(r),
			Status: rec.status, LatencyMS: float64(time.Since(start).Microseconds()) / 1000, Token: kind}
		if rec.status >= 400 && len(rec.body) > 0 {
			if json.Valid(rec.body) {
				body.Error = json.RawMessage(rec.body)
			} else {
				body.Error, _ = json.Marshal(string(rec.body))
			}
		}
		s.journal.Record(world, journal.RESTRequest, body)
		if rec.status == http.StatusTooManyRequests {
			h := rec.Header()
			retry := retryAfterOf(rec.body, h)
			s.journal.Record(world, journal.RateLimitHit, rateLimitEntry{ApplicationID: app, Method: r.Method, Route: r.Pattern,
				Scope: h.Get("X-RateLimit-Scope"), Global: h.Get("X-RateLimit-Global") == "true", Bucket: h.Get("X-RateLimit-Bucket"),
				RetryAfter: retry})
		}
	}
}

// retryAfterOf is a 429's exact wait: the body's retry_after (the
// Retry-After header is whole seconds, rounded up), else the bucket's
// X-RateLimit-Reset-After, else Retry-After.
func retryAfterOf(body []byte, h http.Header) float64 {
	var b struct {
		RetryAfter *float64 `json:"retry_after"`
	}
	if json.Unmarshal(body, &b) == nil && b.RetryAfter != nil {
		return *b.RetryAfter
	}
	for _, name := range []string{"X-RateLimit-Reset-After", "Retry-After"} {
		if v, err := strconv.ParseFloat(h.Get(name), 64); err == nil {
			return v
		}
	}
	return 0
}

type restEntry struct {
	ApplicationID snowflake.ID    `json:"application_id"`
	Token         string          `json:"token"` // bot, bearer or interaction
	Method        string          `json:"method"`
	Route         string          `json:"route"`
	Path          string          `json:"path"`
	Status        int             `json:"status"`
	LatencyMS     float64         `json:"latency_ms"`
	Error         json.RawMessage `json:"error,omitempty"`
}

type rateLimitEntry struct {
	ApplicationID snowflake.ID `json:"application_id"`
	Method        string       `json:"method"`
	Route         string       `json:"route"`
	Scope         string       `json:"scope,omitempty"`
	Global        bool         `json:"global"`
	Bucket        string       `json:"bucket,omitempty"`
	RetryAfter    float64      `json:"retry_after"`
}

// redactedPath is r's path with its secrets (interaction and webhook
// tokens) replaced: the journal is read by anyone with the admin token,
// but a token in it would outlive its use in logs and test output.
func redactedPath(r *http.Request) string {
	p := r.URL.Path
	for _, name := range []string{"interaction_token", "webhook_token"} {
		if v := r.PathValue(name); v != "" {
			p = strings.Replace(p, "/"+v, "/:"+name, 1)
		}
	}
	return p
}

// journalWriter notes the status and, when refused, the error body.
type journalWriter struct {
	http.ResponseWriter
	status int
	body   []byte
	wrote  bool
}

func (w *journalWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *journalWriter) Write(b []byte) (int, error) {
	w.wrote = true
	if w.status >= 400 && len(w.body) < maxErrorBody {
		w.body = append(w.body, b[:min(len(b), maxErrorBody-len(w.body))]...)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *journalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush on (a handler that asserts http.Flusher).
func (w *journalWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// journalDelivered records an invocation handed to its app; it runs
// before the delivery.
func (s *Server) journalDelivered(in invocation) {
	if s.journal == nil || in.app.WorldID == 0 {
		return
	}
	s.journal.LearnInteraction(in.record.ID, in.app.ID, in.app.WorldID)
	route := targetGateway
	switch {
	case serviceAnswers(in.cmd):
		route = targetService
	case in.app.InteractionsEndpointURL != "":
		route = targetEndpoint
	}
	s.journal.Record(in.app.WorldID, journal.InteractionDelivered, journal.Spliced{Fields: interactionEntry{
		InteractionID: in.record.ID, ApplicationID: in.app.ID, Type: in.record.Type, GuildID: in.record.GuildID,
		ChannelID: in.record.ChannelID, UserID: in.record.UserID, Route: route},
		Members: []journal.Member{{Name: "payload", JSON: in.body, Encoded: true}}})
}

// journalDelivery records what became of an invocation: answered (its
// answer as the invoking client was shown it) or failed (why). It
// returns rec with its answer's message loaded, so that the invoker's
// answer rendered next reads it no second time; the entry is encoded by
// the journal's writer, off the request's path.
func (s *Server) journalDelivery(ctx context.Context, in invocation, d delivery, took time.Duration, rec answered, err error) answered {
	if s.journal == nil || in.app.WorldID == 0 {
		return rec
	}
	e := interactionEntry{InteractionID: in.record.ID, ApplicationID: in.app.ID, Type: in.record.Type,
		GuildID: in.record.GuildID, ChannelID: in.record.ChannelID, UserID: in.record.UserID, Route: d.target,
		Outcome: d.outcome, Status: d.status, LatencyMS: float64(took.Microseconds()) / 1000}
	if err != nil {
		e.Reason = d.reason
		if e.Reason == "" {
			e.Reason = err.Error()
		}
		s.journal.Record(in.app.WorldID, journal.InteractionFailed, e)
		return rec
	}
	e.ResponseType = int(rec.ResponseType)
	rec = s.withOriginalMessage(ctx, rec)
	body := journal.Spliced{Fields: e}
	if res, rerr := s.callbackResponse(ctx, rec); rerr == nil {
		// Nothing in res changes after this: its message body and
		// result are the store's bytes, only read from here on.
		body.Members = []journal.Member{{Name: "answer", Value: res.spliced()}}
	}
	s.journal.Record(in.app.WorldID, journal.InteractionAnswered, body)
	return rec
}

// spliced is r as the journal's writer encodes it: the answer's
// message (and any other result) spliced in as stored, the same JSON
// as r's own encoding (encode).
func (r callbackResult) spliced() *journal.Spliced {
	v := &journal.Spliced{Fields: struct {
		Interaction callbackInteraction `json:"interaction"`
	}{r.Interaction}}
	if res := r.Resource; res != nil {
		v.Members = []journal.Member{{Name: "resource", Value: &journal.Spliced{
			Fields: struct {
				Type int `json:"type"`
			}{res.Type},
			Members: []journal.Member{{Name: "activity_instance", JSON: res.ActivityInstance},
				{Name: "message", JSON: res.Message, Encoded: res.encoded}, {Name: "choices", JSON: res.Choices}, {Name: "modal", JSON: res.Modal}}}}}
	}
	return v
}

// withOriginalMessage is rec with its answer's message read (when it has
// one not read yet; rec unchanged when the read fails: callbackResponse
// then reads it, and says why).
func (s *Server) withOriginalMessage(ctx context.Context, rec answered) answered {
	if rec.OriginalMessageID == 0 || rec.msg != nil && rec.msg.ID == rec.OriginalMessageID {
		return rec
	}
	if m, err := s.store.Message(ctx, rec.OriginalMessageID); err == nil {
		rec.msg, rec.encoded = &m, false // the store's bytes: checked when spliced
	}
	return rec
}

type interactionEntry struct {
	InteractionID snowflake.ID `json:"interaction_id"`
	ApplicationID snowflake.ID `json:"application_id"`
	Type          int          `json:"interaction_type"`
	GuildID       snowflake.ID `json:"guild_id,omitempty"`
	ChannelID     snowflake.ID `json:"channel_id,omitempty"`
	UserID        snowflake.ID `json:"user_id"`
	Route         string       `json:"route"`
	Outcome       string       `json:"outcome,omitempty"`
	Status        int          `json:"endpoint_status,omitempty"`
	LatencyMS     float64      `json:"latency_ms,omitempty"`
	Reason        string       `json:"reason,omitempty"`
	ResponseType  int          `json:"response_type,omitempty"`
	// payload (delivered) and answer (answered) are spliced in.
}

// journalMessage records a message written (typ: the bus event's type),
// with the request that wrote it when an app's request did.
func (s *Server) journalMessage(ctx context.Context, typ string, msg store.Message) {
	if s.journal == nil {
		return
	}
	scope, _ := ctx.Value(journalKey{}).(journalScope)
	world := scope.world
	if world == 0 {
		world = s.worldOfMessage(ctx, msg)
	}
	if world == 0 {
		return
	}
	kind := journal.MessageCreated
	switch typ {
	case event.MessageUpdate:
		kind = journal.MessageEdited
	case event.MessageDelete:
		kind = journal.MessageDeleted
	}
	body := journal.Spliced{Fields: messageEntry{MessageID: msg.ID, ChannelID: msg.ChannelID, GuildID: msg.GuildID,
		AuthorID: msg.AuthorID, InteractionID: msg.InteractionID, VisibleTo: msg.VisibleTo, ApplicationID: scope.app,
		Route: scope.route}}
	if kind != journal.MessageDeleted {
		// Checked and spliced in by the writer, off the request's path.
		body.Members = []journal.Member{{Name: "message", JSON: msg.Body}}
	}
	s.journal.Record(world, kind, body)
}

type messageEntry struct {
	MessageID     snowflake.ID `json:"message_id"`
	ChannelID     snowflake.ID `json:"channel_id"`
	GuildID       snowflake.ID `json:"guild_id,omitempty"`
	AuthorID      snowflake.ID `json:"author_id,omitempty"`
	InteractionID snowflake.ID `json:"interaction_id,omitempty"`
	VisibleTo     snowflake.ID `json:"visible_to,omitempty"`
	ApplicationID snowflake.ID `json:"application_id,omitempty"` // the app whose request wrote it
	Route         string       `json:"route,omitempty"`          // that request's route ("": not an app's request)
	// message (created and edited) is spliced in.
}

// worldOfMessage is the world of a message's guild, or (outside guilds)
// of its author; 0 when unknown.
func (s *Server) worldOfMessage(ctx context.Context, msg store.Message) snowflake.ID {
	if msg.GuildID != 0 {
		if g, err := s.store.Guild(ctx, msg.GuildID); err == nil {
			return g.WorldID
		}
		return 0
	}
	if msg.AuthorID != 0 {
		if u, err := s.store.User(ctx, msg.AuthorID); err == nil {
			return u.WorldID
		}
	}
	return 0
}

// journalGateway is the gateway's observer: sessions of a world's apps
// and what they were sent.
func (s *Server) journalGateway(o gateway.Observation) {
	if w, known := s.journal.WorldOf(o.ApplicationID); known && w == 0 {
		return // not a world's app: nothing to decode
	}
	switch o.Kind {
	case gateway.ObservedIdentify:
		s.journal.RecordApp(o.ApplicationID, journal.GatewayIdentify, gatewayEntry{App: o.ApplicationID, Session: o.Session,
			Shard: o.Shard, Intents: o.Intents})
	case gateway.ObservedResume:
		s.journal.RecordApp(o.ApplicationID, journal.GatewayResume, gatewayEntry{App: o.ApplicationID, Session: o.Session, Seq: o.Seq})
	case gateway.ObservedClose:
		s.journal.RecordApp(o.ApplicationID, journal.GatewayClose, gatewayEntry{App: o.ApplicationID, Session: o.Session, Code: o.Code,
			By: o.By})
	case gateway.ObservedDispatch:
		s.journal.RecordApp(o.ApplicationID, journal.GatewayDispatch, dispatchEntry(o))
	}
}

type gatewayEntry struct {
	App     snowflake.ID `json:"application_id"` // the session's app: a world may have several
	Session string       `json:"session_id"`
	Shard   *[2]int      `json:"shard,omitempty"`
	Intents uint64       `json:"intents,omitempty"`
	Seq     int64        `json:"seq,omitempty"`
	Code    int          `json:"code,omitempty"`
	By      string       `json:"by,omitempty"` // client or server
}

// maxDispatchData bounds the data a gateway.dispatch entry keeps.
const maxDispatchData = 4 << 10

// dispatchEntry keeps a dispatch's data when small, except an
// INTERACTION_CREATE's: interaction.delivered has it already.
func dispatchEntry(o gateway.Observation) any {
	e := struct {
		App       snowflake.ID `json:"application_id"`
		Session   string       `json:"session_id"`
		Type      string       `json:"event"`
		Seq       int64        `json:"seq"`
		Truncated bool         `json:"data_omitted,omitempty"`
	}{App: o.ApplicationID, Session: o.Session, Type: o.Event, Seq: o.Seq}
	switch {
	case o.Event == event.InteractionCreate:
	case len(o.Data) <= maxDispatchData: // the gateway encoded it: valid JSON
		return journal.Spliced{Fields: e, Members: []journal.Member{{Name: "data", JSON: o.Data, Encoded: true}}}
	default:
		e.Truncated = true
	}
	return e
}

// startJournal starts the recorder (when on) and the long-polls' waiters.
func (s *Server) startJournal(ctx context.Context, cfg Config, d Deps) {
	s.journalWaiters = journal.NewWaiters(ctx, s.events)
	if cfg.JournalEntries <= 0 {
		return
	}
	s.journal = journal.New(journal.Options{Store: d.Store, Bus: s.events, IDs: s.ids, Now: s.now, Keep: cfg.JournalEntries,
		Logger: s.log})
	s.metrics.registry.CounterFunc("slashd_journal_dropped_total",
		"Journal entries this node dropped (its queue was full, or a batch failed to be written); should stay 0.",
		func() float64 { return float64(s.journal.Dropped()) })
	m := s.store.(messageEvents)
	m.journal = s.journalMessage
	s.store = m
}

// ReadJournal reads a world's journal, long-polling (the admin API's GET
// /admin/v1/worlds/{world}/events).
func (s *Server) ReadJournal(ctx context.Context, q journal.Query) (journal.Page, error) {
	// What this node queued before the read is written first: a test
	// that acted and then asks for its failures sees them all.
	if err := s.journal.Sync(ctx); err != nil {
		return journal.Page{}, fmt.Errorf("journal: wait for the queue: %w", err)
	}
	return journal.Read(ctx, s.store, s.journalWaiters, q)
}

// Journal is the recorder (nil: off), for tests and benchmarks.
func (s *Server) Journal() *journal.Recorder { return s.journal }

// journalFault records a fault that fired (fault.FiredFunc): its kind,
// id, target and what it did.
func (s *Server) journalFault(_ context.Context, world snowflake.ID, f store.Fault, detail string) {
	s.journal.Record(world, journal.FaultFired, map[string]any{"fault_id": f.ID.String(), "kind": f.Kind,
		"application_id": f.AppID.String(), "route": f.Route, "session_id": f.Session, "detail": detail,
		"remaining": f.Remaining})
}
