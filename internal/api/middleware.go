package api

import (
	"context"
	"encoding/hex"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/fault"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/store"
)

type principalKey struct{}

func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey{}).(auth.Principal)
	return p
}

// wrap adds, in order: authentication (unless public), rate limiting
// (global per token or IP, then the route's bucket per major resource),
// and error rendering.
func (s *Server) wrap(template string, kind routeKind, h handlerFunc) http.Handler {
	bucket := ratelimit.BucketHash(template)
	faultRoute, _ := fault.NormalizeRoute(template)
	routeLimit := s.cfg.ReadLimit
	watchRefusals := refusalRoutes[template]
	if kind == writeRoute {
		routeLimit = s.cfg.WriteLimit
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cache != nil && kind != publicRoute {
			// One barrier per request (shared caches): what any node
			// acknowledged before now is never read stale.
			r = r.WithContext(s.cache.Sync(r.Context()))
		}
		if s.cache != nil && (kind == clientRoute || kind == chatRoute) {
			// A user's request reads the world (their membership, the
			// guild's roles and channels): one look at the world clock
			// serves all its reads (see internal/store/cache).
			r = r.WithContext(s.cache.SyncWorld(r.Context()))
		}
		who := "ip:" + clientIP(r)
		if kind != publicRoute && s.refuseFailingAddress(w, r) {
			return
		}
		if kind == clientRoute || kind == chatRoute {
			p, err := s.authenticateClient(r, kind == chatRoute)
			if err != nil {
				s.writeAuthError(w, r, err)
				return
			}
			s.acceptCredential(r)
			r = r.WithContext(s.withWorldClock(context.WithValue(r.Context(), principalKey{}, p), p))
			who = "u:" + p.Token.UserID.String()
		} else if kind != publicRoute {
			p, err := auth.Authenticate(r.Context(), s.store, r.Header.Get("Authorization"), s.now())
			if errors.Is(err, auth.ErrInvalidToken) {
				s.writeAuthError(w, r, refusedCredential(r))
				return
			}
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			r = r.WithContext(s.withWorldClock(context.WithValue(r.Context(), principalKey{}, p), p))
			if s.expiredInWorld(r.Context(), p) {
				// Valid on the real clock, expired on its world's.
				s.writeAuthError(w, r, refusedCredential(r))
				return
			}
			s.acceptCredential(r)
			who = "t:" + hex.EncodeToString(p.Token.Hash[:8])
		}
		// The journal's decorator: an app's request in a test world.
		w, r, recorded := s.journalRequest(w, r)
		defer recorded()
		if watchRefusals {
			// The playground's: an app's message write refused (refusals.go).
			var refused func()
			w, refused = s.watchRefusals(w, r)
			defer refused()
		}
		if s.cfg.RateLimit && !s.allow(w, r, who, bucket, routeLimit) {
			return
		}
		if s.restFaults(w, r, faultRoute, bucket) {
			return
		}
		if kind == publicRoute {
			// An interaction's token routes act for its app: its handler
			// reads the time of the app's world (looked up only if it
			// reads the time; the rate limit above, by address, is on
			// the real clock).
			r = r.WithContext(s.withPathClock(r))
		}
		release, err := s.holdUploadBudget(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		defer release()
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// authenticateClient reads a user's client token: the bare
// Authorization value a chat client sends; with orBot, a bot token
// ("Bot …") too, whose principal is the bot user.
func (s *Server) authenticateClient(r *http.Request, orBot bool) (auth.Principal, error) {
	tok := strings.TrimSpace(r.Header.Get("Authorization"))
	if scheme, _, _ := strings.Cut(tok, " "); orBot && strings.EqualFold(scheme, "bot") {
		p, err := auth.Authenticate(r.Context(), s.store, tok, s.now())
		if errors.Is(err, auth.ErrInvalidToken) {
			return auth.Principal{}, errUnauthorized
		}
		return p, err
	}
	if tok == "" || strings.ContainsRune(tok, ' ') {
		return auth.Principal{}, errUnauthorized
	}
	user, err := s.store.ClientTokenUser(r.Context(), auth.Hash(tok))
	if errors.Is(err, store.ErrNotFound) {
		return auth.Principal{}, errUnauthorized
	}
	if err != nil {
		return auth.Principal{}, err
	}
	return auth.Principal{Token: store.Token{Kind: "client", UserID: user}}, nil
}

// allow applies the global and the route limits, sets the X-RateLimit-*
// headers and, when a limit is hit, writes the 429 and returns false.
func (s *Server) allow(w http.ResponseWriter, r *http.Request, who, bucket string, lim ratelimit.Limit) bool {
	global, err := s.limiter.Allow(r.Context(), "global:"+who, s.cfg.GlobalLimit)
	if err != nil {
		// A shared counter that cannot be reached does not take the API
		// down with it: the request goes through, and is logged.
		s.log.Warn("rate limit unavailable", "err", err)
		return true
	}
	if !global.Allowed {
		w.Header().Set("X-RateLimit-Global", "true")
		w.Header().Set("X-RateLimit-Scope", "global")
		writeRateLimited(w, global.RetryAfter, true)
		return false
	}
	// Buckets are per top-level resource: the guild where there is one.
	major := r.PathValue("guild_id")
	res, err := s.limiter.Allow(r.Context(), "route:"+bucket+":"+major+":"+who, lim)
	if err != nil {
		s.log.Warn("rate limit unavailable", "err", err)
		return true
	}
	h := w.Header()
	h.Set("X-RateLimit-Bucket", bucket)
	setLimitHeaders(h, res)
	if !res.Allowed {
		h.Set("X-RateLimit-Scope", "user")
		writeRateLimited(w, res.RetryAfter, false)
		return false
	}
	return true
}

func writeRateLimited(w http.ResponseWriter, retry time.Duration, global bool) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retry.Seconds()))))
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message":     "You are being rate limited.",
		"retry_after": math.Round(retry.Seconds()*1000) / 1000,
		"global":      global,
	})
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
