package api

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/fault"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
)

// Faults is the engine of test worlds' faults this server applies
// (docs/faults.md): the admin API's fault routes change it, the journal
// sets its OnFired hook.
func (s *Server) Faults() *fault.Engine { return s.faults }

// restFaults is the REST edge of the faults: a decorator of a route's
// handler (wrap calls it once authenticated), which answers for the
// handler when a fault of the caller's app fires. route is the route as
// faults name it (fault.NormalizeRoute of its template). A node whose
// worlds have no fault spends one pointer load here.
func (s *Server) restFaults(w http.ResponseWriter, r *http.Request, route, bucket string) (answered bool) {
	if !s.faults.Any() {
		return false
	}
	ctx := r.Context()
	appID := s.requestApp(ctx, r)
	if appID == 0 {
		return false
	}
	app, err := s.store.Application(ctx, appID)
	if err != nil || !s.faults.InWorld(app.WorldID) {
		return false
	}
	t := fault.Target{World: app.WorldID, App: appID, Route: route}
	f, ok := s.faults.Fire(ctx, t, func() string { return r.Method + " " + r.URL.Path }, fault.RESTKinds)
	if !ok {
		return false
	}
	switch f.Kind {
	case fault.REST429:
		writeFaultRateLimited(w, f.Params, bucket, s.now())
	case fault.REST500:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "500: Internal Server Error", "code": 0})
	case fault.REST502:
		// What the edge in front of the real API answers when the API
		// behind it fails: an HTML page, not the API's JSON (docs/compat.md).
		h := w.Header()
		h.Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(badGatewayPage))
	case fault.RESTDelay:
		t := time.NewTimer(time.Duration(f.Params.DelayMS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return false
	}
	return true
}

// badGatewayPage is the body of a rest.502.
const badGatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
	"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"

// requestApp is the app a request acts for: its bot or Bearer token's,
// or, on the token-in-path routes, the app the path names (webhooks) or
// the interaction's (callbacks); 0 for none (a user's client token).
func (s *Server) requestApp(ctx context.Context, r *http.Request) snowflake.ID {
	if p := principalFrom(ctx); p.Token.ApplicationID != 0 {
		return p.Token.ApplicationID
	}
	if id, err := snowflake.Parse(r.PathValue("application_id")); err == nil && r.PathValue("interaction_token") != "" {
		return id
	}
	id, err := snowflake.Parse(r.PathValue("interaction_id"))
	if err != nil {
		return 0
	}
	if pr := s.pending.get(id); pr != nil {
		pr.mu.Lock()
		defer pr.mu.Unlock()
		return pr.rec.ApplicationID
	}
	rec, err := s.store.Interaction(ctx, id)
	if err != nil {
		return 0
	}
	return rec.ApplicationID
}

// writeFaultRateLimited answers a rest.429 as the real limits answer:
// a route bucket's (scope user), the global limit's, or a shared
// resource's, with the fault's retry_after.
func writeFaultRateLimited(w http.ResponseWriter, p fault.Params, bucket string, now time.Time) {
	retry := time.Duration(p.RetryAfter * float64(time.Second))
	h := w.Header()
	switch p.Scope {
	case fault.ScopeGlobal:
		h.Set("X-RateLimit-Global", "true")
		h.Set("X-RateLimit-Scope", "global")
		writeRateLimited(w, retry, true)
		return
	case fault.ScopeShared:
		h.Set("X-RateLimit-Scope", "shared")
	default:
		h.Set("X-RateLimit-Scope", "user")
	}
	h.Set("X-RateLimit-Bucket", bucket)
	setLimitHeaders(h, ratelimit.Result{Limit: 1, Remaining: 0, ResetAt: now.Add(retry), ResetAfter: retry})
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retry.Seconds()))))
	writeRateLimited(w, retry, false)
}

// startFaults makes the fault engine over st and loads the live faults.
func (s *Server) startFaults(ctx context.Context, st fault.Store) {
	s.faults = fault.NewEngine(st, s.events, s.log, s.metrics.registry)
	if err := s.faults.Reload(ctx); err != nil {
		s.log.Warn("faults: load", "err", err)
	}
}

// watchFaults follows the faults' changes (this node's and the others')
// until ctx ends, applying new ones to the gateway's sessions at once.
func (s *Server) watchFaults(ctx context.Context) {
	s.faults.OnReload(func(ctx context.Context) { s.gateway.ApplyFaults(ctx) })
	s.faults.Watch(ctx)
}

// worldOfApp is the test world of an app (0: none, or unknown).
func (s *Server) worldOfApp(ctx context.Context, appID snowflake.ID) snowflake.ID {
	app, err := s.store.Application(ctx, appID)
	if err != nil {
		return 0
	}
	return app.WorldID
}

// deliverWithFaults is the delivery edge of the faults: a decorator of
// deliver, which hands the invocation to the app late, never, or after
// answering it itself, when a delivery fault of the app's world fires.
func (s *Server) deliverWithFaults(ctx context.Context, in invocation, d *delivery) (answered, error) {
	if !s.faults.InWorld(in.app.WorldID) || serviceAnswers(in.cmd) {
		return s.deliver(ctx, in, d)
	}
	return s.deliverFaulted(ctx, in, d)
}

// deliverFaulted is deliverWithFaults in a world with faults. Apart: its
// closures keep in, which would otherwise move every invocation (a
// kilobyte and more) to the heap, faults or not.
func (s *Server) deliverFaulted(ctx context.Context, in invocation, d *delivery) (answered, error) {
	t := fault.Target{World: in.app.WorldID, App: in.app.ID}
	f, ok := s.faults.Fire(ctx, t, func() string { return "interaction " + in.record.ID.String() }, fault.DeliveryKinds)
	if !ok {
		return s.deliver(ctx, in, d)
	}
	if in.app.InteractionsEndpointURL != "" {
		d.target, d.endpoint = targetEndpoint, endpointForLog(in.app.InteractionsEndpointURL)
	}
	deadline := in.record.CreatedAt.Add(answerWindow)
	switch f.Kind {
	case fault.DeliveryDrop:
		// Nothing reaches the app: the member waits out the deadline.
		return s.awaitAnswer(ctx, in.record.ID, deadline, d)
	case fault.DeliveryLate:
		// The member's invocation fails at the deadline, as it does when
		// nothing comes; the app gets the interaction after it, and its
		// answer is refused as a late answer is (10062).
		at := deadline.Add(time.Duration(f.Params.DelayMS) * time.Millisecond)
		s.afterFunc(max(at.Sub(s.now()), 0), func() { s.handOver(context.WithoutCancel(ctx), in) })
		return s.awaitAnswer(ctx, in.record.ID, deadline, d)
	case fault.DeliveryAnswered:
		// slashd answers first; the app then gets the interaction, and
		// its answer is refused as a second answer is (40060).
		v, err := form.DecodeJSON(f.Params.Response)
		if err != nil {
			return answered{}, err
		}
		cb, err := interaction.ParseCallback(v, in.payload.Type)
		if err != nil {
			s.log.Warn("faults: a delivery.answered response the interaction cannot take: delivered as usual",
				"fault", f.ID, "err", err)
			return s.deliver(ctx, in, d)
		}
		rec, err := s.answerRecord(ctx, in.record, &in.meta, cb, answerLaunch)
		if err != nil {
			return answered{}, err
		}
		go s.handOver(context.WithoutCancel(ctx), in)
		return rec, nil
	}
	return s.deliver(ctx, in, d)
}

// handOver gives an invocation to its app without waiting for an
// answer (a late or answered-for delivery): INTERACTION_CREATE on the
// gateway, or a signed POST to its endpoint, whose answer is applied as
// any other (and refused as the interaction's state says).
func (s *Server) handOver(ctx context.Context, in invocation) {
	if in.app.InteractionsEndpointURL == "" {
		s.events.Publish(ctx, event.Event{Type: event.InteractionCreate,
			ApplicationID: in.app.ID, GuildID: in.record.GuildID, Data: json.RawMessage(in.body)})
		return
	}
	resp, err := s.webhooks.Deliver(ctx, in.app.InteractionsEndpointURL, ed25519.PrivateKey(in.app.PrivateKey), in.body)
	if err != nil {
		s.log.Info("faults: a late or answered-for delivery failed", "interaction", in.record.ID, "err", err)
		return
	}
	if resp.ViaCallback {
		return
	}
	// An inline answer comes after the deadline or after slashd's own:
	// refused, as the real service drops it.
	s.log.Info("faults: the app's inline answer to a late or answered-for delivery was refused",
		"interaction", in.record.ID)
}

// gatewayFaults are the faults as the gateway asks them (gateway.Faults).
type gatewayFaults struct{ s *Server }

func (g gatewayFaults) Active() bool { return g.s.faults != nil && g.s.faults.Any() }

func (g gatewayFaults) Act(ctx context.Context, app snowflake.ID, session string, point gateway.FaultPoint, ev string) gateway.FaultAction {
	world := g.s.worldOfApp(ctx, app)
	if !g.s.faults.InWorld(world) {
		return gateway.FaultAction{}
	}
	t := fault.Target{World: world, App: app, Session: session, Event: ev}
	kinds := fault.SessionKinds
	switch point {
	case gateway.FaultAtHeartbeat:
		kinds = fault.HeartbeatKinds
	case gateway.FaultAtDispatch:
		kinds = fault.DispatchKinds
	}
	f, ok := g.s.faults.Fire(ctx, t, func() string { return "session " + session + " " + ev }, kinds)
	if !ok {
		return gateway.FaultAction{}
	}
	switch f.Kind {
	case fault.GatewayWithholdAck:
		return gateway.FaultAction{WithholdAck: true}
	case fault.GatewayReconnect:
		return gateway.FaultAction{Reconnect: true}
	case fault.GatewayInvalidSession:
		return gateway.FaultAction{InvalidSession: true, Resumable: f.Params.Resumable}
	case fault.GatewayClose:
		return gateway.FaultAction{Close: f.Params.Code}
	case fault.GatewayDelayDispatch:
		return gateway.FaultAction{Delay: time.Duration(f.Params.DelayMS) * time.Millisecond}
	}
	return gateway.FaultAction{}
}
