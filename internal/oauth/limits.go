package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/slashd/slashd/internal/ratelimit"
)

// LoginLimits are the budgets of the consent page's password checks: per
// login name (Account) and per client address (Address). A check costs
// an argon2id derivation (19 MiB, tens of milliseconds of CPU), so each
// attempt is counted before it runs, successful ones too, and
// concurrent attempts cannot overrun a budget. The zero Limit turns one
// off.
type LoginLimits struct {
	Account ratelimit.Limit
	Address ratelimit.Limit
}

// guarded wraps an endpoint that checks a credential in Deps.Guard.
func (s *Server) guarded(h http.HandlerFunc) http.HandlerFunc { return s.guard(h).ServeHTTP }

// loginRefused counts a login attempt for name from r's address, and
// returns how long the client must wait when a budget is used up (0
// when the attempt may go on). The address is checked first, so that
// one address cannot use up the budgets of many accounts.
func (s *Server) loginRefused(ctx context.Context, r *http.Request, name string) (time.Duration, error) {
	if s.limiter == nil {
		return 0, nil
	}
	sum := sha256.Sum256([]byte(name)) // a fixed-size key whatever the name's length
	for _, c := range []struct {
		key string
		lim ratelimit.Limit
	}{
		{"login:address:" + ratelimit.AddressKey(r.RemoteAddr), s.logins.Address},
		{"login:account:" + hex.EncodeToString(sum[:16]), s.logins.Account},
	} {
		if !c.lim.On() {
			continue
		}
		res, err := s.limiter.Allow(ctx, c.key, c.lim)
		if err != nil {
			return 0, fmt.Errorf("count login attempt: %w", err)
		}
		if !res.Allowed {
			return max(res.RetryAfter, time.Second), nil
		}
	}
	return 0, nil
}

// tooManyLogins is the login form's message when a budget is used up.
func tooManyLogins(wait time.Duration) string {
	return "Too many login attempts. Try again in " + roughly(wait) + "."
}

// roughly says d in whole minutes, or seconds under a minute, rounded up.
func roughly(d time.Duration) string {
	n, unit := int(math.Ceil(d.Minutes())), "minute"
	if d < time.Minute {
		n, unit = int(math.Ceil(d.Seconds())), "second"
	}
	if n != 1 {
		unit += "s"
	}
	return strconv.Itoa(n) + " " + unit
}
