package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/webhook"
)

// serverMetrics are the families the API exposes at /metrics. Every
// label takes values from a bounded set: route patterns (never raw
// paths), known methods, status codes, interaction types and outcomes,
// delivery targets and store method names. None carries an id, a token
// or a URL.
type serverMetrics struct {
	registry     *metrics.Registry
	requests     *metrics.CounterVec   // route, method, code
	durations    *metrics.HistogramVec // route
	interactions *metrics.CounterVec   // type, outcome
	delivery     *metrics.HistogramVec // target
	storeOps     *metrics.HistogramVec // op
	busGaps      *metrics.CounterVec   // consumer
	// Uploaded files this node stored and evicted (files.go).
	filesStored, fileBytesStored, filesEvicted, fileBytesEvicted *metrics.CounterVec
}

// routeUnmatched is the route label of requests no route took (the
// catch-all's 404s and 405s): one value, however many paths are tried.
const routeUnmatched = "unmatched"

// Interaction outcomes, the outcome label of slashd_interactions_total.
const (
	outcomeAnswered        = "answered"         // the app's initial answer came in time
	outcomeDeferred        = "deferred"         // … and it was a deferred answer (type 5 or 6)
	outcomeTimeout         = "timeout"          // no answer within the answer window
	outcomeDeliveryFailed  = "delivery_failed"  // the endpoint could not be reached or answered an error status
	outcomeInvalidResponse = "invalid_response" // the app answered with something unusable
	outcomeRejected        = "rejected"         // slashd refused the invocation: never delivered
	outcomeError           = "error"            // slashd failed (store) or the invoking client went away
)

// Delivery targets, the target label of slashd_interaction_delivery_seconds.
const (
	targetEndpoint = "endpoint" // the app's Interactions Endpoint URL
	targetGateway  = "gateway"  // INTERACTION_CREATE to the app's gateway sessions
	targetService  = "service"  // an entry point slashd launches itself (handler 2)
)

func newServerMetrics(started time.Time, gatewayStats func() gateway.Stats) *serverMetrics {
	r := metrics.NewRegistry()
	m := &serverMetrics{
		registry: r,
		requests: r.Counter("slashd_http_requests_total",
			"HTTP requests served, by route pattern, method and status code.", "route", "method", "code"),
		durations: r.Histogram("slashd_http_request_duration_seconds",
			"Time to serve an HTTP request, by route pattern (websocket upgrades are not timed).",
			metrics.DefaultDurationBuckets, "route"),
		interactions: r.Counter("slashd_interactions_total",
			"Interactions invoked, by type and outcome.", "type", "outcome"),
		delivery: r.Histogram("slashd_interaction_delivery_seconds",
			"Time from handing an interaction to its app until its initial answer (or the failure), by target.",
			[]float64{.005, .01, .025, .05, .1, .25, .5, 1, 1.5, 2, 2.5, 3, 5}, "target"),
		storeOps: r.Histogram("slashd_store_operation_duration_seconds",
			"Time of a store call, by store method.", metrics.DefaultDurationBuckets, "op"),
		filesStored: r.Counter("slashd_files_stored_total",
			"Files uploaded with messages that this node stored."),
		fileBytesStored: r.Counter("slashd_file_bytes_stored_total",
			"Bytes of the files uploaded with messages that this node stored."),
		filesEvicted: r.Counter("slashd_files_evicted_total",
			"Stored files this node's writes evicted, the oldest first, to keep within the files quota."),
		fileBytesEvicted: r.Counter("slashd_file_bytes_evicted_total",
			"Bytes of the stored files this node's writes evicted to keep within the files quota."),
		busGaps: r.Counter("slashd_event_bus_gaps_total",
			"Times a consumer's event bus subscription lost events to its full buffer: the gateway "+
				"(dispatches may have been missed) or the read cache (it emptied itself).", "consumer"),
	}
	// Both series exist from the start, at 0, so that an alert on them
	// has something to compare.
	for _, c := range []*metrics.CounterVec{m.filesStored, m.fileBytesStored, m.filesEvicted, m.fileBytesEvicted} {
		c.With()
	}
	m.busGaps.With(gapGateway)
	m.busGaps.With(gapCache)
	sessions := r.Gauge("slashd_gateway_sessions",
		"Gateway sessions this node holds, by state: connected, or resumable (waiting for the client to resume).", "state")
	connections := r.Gauge("slashd_gateway_connections", "Open gateway websocket connections on this node, identified or not.")
	r.OnCollect(func() {
		st := gatewayStats()
		sessions.With("connected").Set(float64(st.Connected))
		sessions.With("resumable").Set(float64(st.Resumable))
		connections.With().Set(float64(st.Connections))
	})
	r.RegisterRuntime(started)
	return m
}

// The consumers slashd_event_bus_gaps_total counts.
const (
	gapGateway = "gateway"
	gapCache   = "cache"
)

// busGap counts one gap in consumer's bus subscription.
func (m *serverMetrics) busGap(consumer string) func() {
	return func() { m.busGaps.With(consumer).Inc() }
}

// observeStore is the timed store's observer.
func (m *serverMetrics) observeStore(op string, start time.Time) {
	m.storeOps.With(op).Observe(time.Since(start).Seconds())
}

// observeRequest counts a served request under its route pattern.
func (m *serverMetrics) observeRequest(pattern, method string, code int, took time.Duration) {
	route := routeLabel(pattern)
	var buf [8]byte
	m.requests.With(route, methodLabel(method), string(strconv.AppendInt(buf[:0], int64(code), 10))).Inc()
	if code != http.StatusSwitchingProtocols { // a websocket's time is its whole connection
		m.durations.With(route).Observe(took.Seconds())
	}
}

// routeLabel is the route label of a request the mux matched to
// pattern: the pattern without its method ("/api/v10/users/@me").
func routeLabel(pattern string) string {
	if pattern == "" || pattern == "/" {
		return routeUnmatched
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}

// methodLabel keeps the method label bounded: a request may carry any
// method name.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions:
		return m
	}
	return "other"
}

// interactionTypeLabel names an interaction type for the type label.
func interactionTypeLabel(t interaction.Type) string {
	switch t {
	case interaction.ApplicationCommand:
		return "application_command"
	case interaction.Autocomplete:
		return "autocomplete"
	case interaction.MessageComponent:
		return "message_component"
	case interaction.ModalSubmit:
		return "modal_submit"
	}
	return "unknown"
}

// Metrics is the registry /metrics serves, for serving it on another
// address (Config.ServeMetrics false).
func (s *Server) Metrics() *metrics.Registry { return s.metrics.registry }

// countInteraction counts an invocation's outcome.
func (s *Server) countInteraction(t interaction.Type, outcome string) {
	s.metrics.interactions.With(interactionTypeLabel(t), outcome).Inc()
}

// refusalOutcome is the outcome of an invocation that failed before its
// delivery: refused by the API's checks, or slashd's own failure.
func refusalOutcome(err error) string {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return outcomeRejected
	}
	return outcomeError
}

// deliveryDone logs and counts what became of a delivered invocation.
func (s *Server) deliveryDone(in invocation, d delivery, took time.Duration) {
	it := interaction.Type(in.record.Type)
	s.countInteraction(it, d.outcome)
	if d.target != targetService {
		s.metrics.delivery.With(d.target).Observe(took.Seconds())
	}
	// Typed attributes (LogAttrs): the same line as Info's key-value
	// pairs, without converting them, on every invocation's path.
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs, slog.Any("application_id", in.app.ID), slog.Any("interaction_id", in.record.ID),
		slog.String("type", interactionTypeLabel(it)), slog.String("target", d.target), slog.String("outcome", d.outcome),
		slog.Float64("latency_ms", float64(took.Microseconds())/1000))
	if d.endpoint != "" {
		attrs = append(attrs, slog.String("endpoint", d.endpoint))
	}
	if d.status != 0 {
		attrs = append(attrs, slog.Int("status", d.status))
	}
	msg := "interaction answered"
	if d.outcome != outcomeAnswered && d.outcome != outcomeDeferred {
		msg = "interaction failed"
		attrs = append(attrs, slog.String("reason", d.reason))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, msg, attrs...)
}

// endpointForLog is an Interactions Endpoint URL without what may be
// secret in it (credentials, the query).
func endpointForLog(raw string) string { return webhook.EndpointForLog(raw) }
