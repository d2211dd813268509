package api

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/ratelimit"
)

// Abuse limits: a client address gets a budget of requests that fail
// authentication (Config.AuthFailureLimit: the real service's invalid
// request limit, 10,000 per 10 minutes). Once it is spent, until the
// window ends, a request from the address that fails authentication is
// answered with a global 429 instead of its 401, and one whose
// credential is not known to be valid is refused with that 429 before
// anything is looked up, but for a trickle (overBudgetLookups) that
// lets a credential never seen before prove itself. A request whose
// credential is known good (it was accepted since this process started)
// is served as ever: a test suite that spends the budget checking its
// own bad-token handling does not lock its bot out. The failures are
// counted in this process: counting them in a shared store would cost
// the round trip the limit is there to save. docs/compat.md says why.

// overBudgetLookups is how many credentials not known to be valid an
// address over its budget may still have looked up: a flood of garbage
// costs at most this many store lookups, and a valid token that was
// never used before gets through within a second or so.
var overBudgetLookups = ratelimit.Limit{Count: 1, Window: time.Second}

// refuseFailingAddress answers 429 and returns true when the request's
// client address has used up its budget of authentication failures and
// its credential is neither known to be valid nor allowed a lookup.
// Call it before checking the request's credential.
func (s *Server) refuseFailingAddress(w http.ResponseWriter, r *http.Request) bool {
	if s.mayCheckCredential(r.RemoteAddr, r.Header.Get("Authorization")) {
		return false
	}
	s.writeAddressRefused(w, s.failures.Peek(ratelimit.AddressKey(r.RemoteAddr), s.cfg.AuthFailureLimit))
	return true
}

// mayCheckCredential reports whether a credential (an Authorization
// value) presented from remoteAddr may be checked: the address is
// within its budget, or the credential was accepted before, or the
// address may still have one looked up.
func (s *Server) mayCheckCredential(remoteAddr, credential string) bool {
	if s.failures == nil {
		return true
	}
	addr := ratelimit.AddressKey(remoteAddr)
	if s.failures.Peek(addr, s.cfg.AuthFailureLimit).Allowed || s.accepted.has(credential) {
		return true
	}
	return s.lookups.Allow(addr, overBudgetLookups).Allowed
}

// writeAddressRefused answers the 429 of an address over its budget:
// the API's global rate limit answer, so that libraries pause every
// request, with the budget's X-RateLimit-* headers.
func (s *Server) writeAddressRefused(w http.ResponseWriter, res ratelimit.Result) {
	setLimitHeaders(w.Header(), res)
	w.Header().Set("X-RateLimit-Global", "true")
	w.Header().Set("X-RateLimit-Scope", "global")
	writeRateLimited(w, res.RetryAfter, true)
}

// countAuthFailure counts a request answered 401 against its client
// address; the result says whether the address is now over its budget.
func (s *Server) countAuthFailure(r *http.Request) ratelimit.Result {
	return s.countAuthFailureFrom(r.RemoteAddr)
}

// countAuthFailureFrom counts one authentication failure against the
// client at remoteAddr (a RemoteAddr, "host:port"), and says so in the
// log when that uses up the budget. Without a budget it is allowed.
func (s *Server) countAuthFailureFrom(remoteAddr string) ratelimit.Result {
	if s.failures == nil {
		return ratelimit.Result{Allowed: true}
	}
	addr := ratelimit.AddressKey(remoteAddr)
	res := s.failures.Allow(addr, s.cfg.AuthFailureLimit)
	if res.Allowed && res.Remaining == 0 {
		s.log.Warn("client address used up its authentication failure budget: its failures get 429 until the window ends "+
			"(credentials known to be valid are still served)",
			"address", addr, "failures", res.Limit, "window_ends_in", res.ResetAfter)
	}
	return res
}

// writeAuthError renders an error of a route's authentication, counting
// it when it is a 401, which becomes the 429 of an address over its
// budget.
func (s *Server) writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	if ae, ok := apierr.As(err); ok && ae.Status == http.StatusUnauthorized {
		if res := s.countAuthFailure(r); !res.Allowed {
			s.writeAddressRefused(w, res)
			return
		}
	}
	s.writeError(w, r, err)
}

// acceptCredential notes that a request's credential was accepted.
func (s *Server) acceptCredential(r *http.Request) {
	if s.failures != nil {
		s.accepted.add(r.Header.Get("Authorization"))
	}
}

// guardCredential wraps a handler that checks a credential of its own
// (the OAuth2 token, revocation, @me and userinfo endpoints, the admin
// API): refused addresses are refused there too, its 401s count (and
// become 429s over the budget), and the credentials it accepts are
// noted.
func (s *Server) guardCredential(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseFailingAddress(w, r) {
			return
		}
		rec := &unauthorizedRecorder{ResponseWriter: w, s: s, r: r}
		h.ServeHTTP(rec, r)
		if !rec.wroteHeader {
			rec.WriteHeader(http.StatusOK)
		}
	})
}

// unauthorizedRecorder counts a handler's 401 against the request's
// address, answering the address's 429 instead when that is over its
// budget, and notes the credential of any answer that is neither 401 nor
// 429 as accepted.
type unauthorizedRecorder struct {
	http.ResponseWriter
	s           *Server
	r           *http.Request
	wroteHeader bool
	refused     bool // the 429 went out instead: the handler's body is dropped
}

func (u *unauthorizedRecorder) WriteHeader(code int) {
	if u.wroteHeader {
		return
	}
	u.wroteHeader = true
	switch code {
	case http.StatusUnauthorized:
		if res := u.s.countAuthFailure(u.r); !res.Allowed {
			u.refused = true
			u.Header().Del("WWW-Authenticate")
			u.s.writeAddressRefused(u.ResponseWriter, res)
			return
		}
	case http.StatusTooManyRequests:
	default:
		if u.r.Header.Get("Authorization") != "" {
			u.s.acceptCredential(u.r)
		}
	}
	u.ResponseWriter.WriteHeader(code)
}

func (u *unauthorizedRecorder) Write(b []byte) (int, error) {
	if !u.wroteHeader {
		u.WriteHeader(http.StatusOK)
	}
	if u.refused {
		return len(b), nil
	}
	return u.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (u *unauthorizedRecorder) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// noteAccepted wraps a handler that checks its credential and counts its
// failures itself (the admin API): the credentials of its answers that
// are neither 401 nor 429 are noted as accepted.
func (s *Server) noteAccepted(h http.Handler) http.Handler {
	if s.failures == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&acceptedRecorder{ResponseWriter: w, s: s, r: r}, r)
	})
}

// acceptedRecorder notes the request's credential as accepted when the
// answer is neither 401 nor 429.
type acceptedRecorder struct {
	http.ResponseWriter
	s    *Server
	r    *http.Request
	done bool
}

func (a *acceptedRecorder) WriteHeader(code int) {
	if !a.done {
		a.done = true
		if code != http.StatusUnauthorized && code != http.StatusTooManyRequests {
			a.s.acceptCredential(a.r)
		}
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *acceptedRecorder) Write(b []byte) (int, error) {
	if !a.done {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (a *acceptedRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// credentialSet remembers credentials (Authorization values, hashed)
// that were accepted, up to a bound: the ones in use by the server's
// bots and clients, which an address over its budget may still present.
type credentialSet struct {
	mu   sync.Mutex
	max  int
	seen map[[sha256.Size]byte]struct{}
}

func newCredentialSet(max int) *credentialSet {
	return &credentialSet{max: max, seen: map[[sha256.Size]byte]struct{}{}}
}

func (c *credentialSet) add(credential string) {
	if credential == "" {
		return
	}
	k := sha256.Sum256([]byte(credential))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[k]; ok {
		return
	}
	if len(c.seen) >= c.max {
		for old := range c.seen { // any one: a credential forgotten is only looked up again
			delete(c.seen, old)
			break
		}
	}
	c.seen[k] = struct{}{}
}

func (c *credentialSet) has(credential string) bool {
	if credential == "" {
		return false
	}
	k := sha256.Sum256([]byte(credential))
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.seen[k]
	return ok
}

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
// failure budget: an IDENTIFY or RESUME with an unknown token counts
// against the budget of the address that sent it, and over the budget
// one whose token is not known to be valid is closed 4004 without a
// lookup (gatewayDirectory.Bot finds the address in the connection's
// context, which the gateway derives from the upgrade request's). The
// upgrade itself carries no credential, so it is not refused: the
// gateway's cap on connections per address bounds what an address holds.
func (s *Server) guardGateway(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gatewayClientKey{}, r.RemoteAddr)))
	})
}
