package api

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/slashd/slashd/internal/fault"
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
	f, ok := s.faults.Fire(ctx, t, r.Method+" "+r.URL.Path,
		fault.REST429, fault.REST500, fault.REST502, fault.RESTDelay)
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

// startFaults makes the fault engine over st, loads the live faults and
// follows the other nodes' changes until ctx ends.
func (s *Server) startFaults(ctx context.Context, st fault.Store) {
	s.faults = fault.NewEngine(st, s.events, s.log, s.metrics.registry)
	if err := s.faults.Reload(ctx); err != nil {
		s.log.Warn("faults: load", "err", err)
	}
	s.faults.Watch(ctx)
}
