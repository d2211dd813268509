package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/ratelimit"
)

// Abuse limits: a request with a missing or bad credential costs a hash
// and a store lookup, so a client address gets a budget of such failures
// (Config.AuthFailureLimit), after which every request it makes to a
// route that takes a credential is refused with a global 429, before the
// credential is read, until the window ends. The failures are counted in
// this process: counting them in a shared store would cost the round
// trip the limit is there to save. docs/compat.md says why.

// refuseFailingAddress answers 429 and returns true when the request's
// client address has used up its budget of authentication failures.
// Call it before checking the request's credential.
func (s *Server) refuseFailingAddress(w http.ResponseWriter, r *http.Request) bool {
	if s.failures == nil {
		return false
	}
	res := s.failures.Peek(ratelimit.AddressKey(r.RemoteAddr), s.cfg.AuthFailureLimit)
	if res.Allowed {
		return false
	}
	setLimitHeaders(w.Header(), res)
	w.Header().Set("X-RateLimit-Global", "true")
	w.Header().Set("X-RateLimit-Scope", "global")
	writeRateLimited(w, res.RetryAfter, true)
	return true
}

// countAuthFailure counts a request answered 401 against its client
// address, and says so in the log when that uses up the budget.
func (s *Server) countAuthFailure(r *http.Request) {
	s.countAuthFailureFrom(r.RemoteAddr)
}

// countAuthFailureFrom counts one authentication failure against the
// client at remoteAddr (a RemoteAddr, "host:port").
func (s *Server) countAuthFailureFrom(remoteAddr string) {
	if s.failures == nil {
		return
	}
	addr := ratelimit.AddressKey(remoteAddr)
	res := s.failures.Allow(addr, s.cfg.AuthFailureLimit)
	if res.Allowed && res.Remaining == 0 {
		s.log.Warn("client address used up its authentication failure budget: refused until the window ends",
			"address", addr, "failures", res.Limit, "refused_for", res.ResetAfter)
	}
}

// writeAuthError renders an error of a route's authentication, counting
// it when it is a 401.
func (s *Server) writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	if ae, ok := apierr.As(err); ok && ae.Status == http.StatusUnauthorized {
		s.countAuthFailure(r)
	}
	s.writeError(w, r, err)
}

// guardCredential wraps a handler that checks a credential of its own
// (the OAuth2 token, revocation, @me and userinfo endpoints): refused
// addresses are refused there too, and its 401s count.
func (s *Server) guardCredential(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseFailingAddress(w, r) {
			return
		}
		rec := &unauthorizedRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.unauthorized {
			s.countAuthFailure(r)
		}
	})
}

// unauthorizedRecorder notes whether a response is a 401.
type unauthorizedRecorder struct {
	http.ResponseWriter
	unauthorized bool
}

func (u *unauthorizedRecorder) WriteHeader(code int) {
	u.unauthorized = code == http.StatusUnauthorized
	u.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the underlying writer.
func (u *unauthorizedRecorder) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// setLimitHeaders sets the X-RateLimit-* headers that describe a bucket.
func setLimitHeaders(h http.Header, res ratelimit.Result) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(res.ResetAt.UnixMilli())/1000, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(res.ResetAfter.Seconds(), 'f', 3, 64))
}

// gatewayClientKey is the context key of a gateway connection's client
// address (see guardGateway).
type gatewayClientKey struct{}

// guardGateway puts the websocket gateway under the authentication
// failure budget: an address over its budget is refused (429) before
// the upgrade, and an IDENTIFY or RESUME with an unknown token counts
// against the budget of the address that sent it (gatewayDirectory.Bot
// finds it in the connection's context, which the gateway derives from
// the upgrade request's).
func (s *Server) guardGateway(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseFailingAddress(w, r) {
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gatewayClientKey{}, r.RemoteAddr)))
	})
}
