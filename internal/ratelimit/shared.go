package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/slashd/slashd/internal/worldclock"
)

// Counter counts requests in windows kept outside the process (the
// store), so that every node of a cluster counts against the same
// limits.
type Counter interface {
	// HitRateLimit counts one request against key's window (restarting a
	// window that ended by now) and returns the count and the window's end.
	HitRateLimit(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error)
}

// Checker checks one request against a limit: a Shared limiter, or a
// Local one.
type Checker interface {
	Allow(ctx context.Context, key string, lim Limit) (Result, error)
}

// Local is a Limiter with Shared's signature, for one process.
type Local struct{ L *Limiter }

// Allow implements Checker.
// A key of a test world's principal counts on that world's clock
// (internal/worldclock).
func (l Local) Allow(ctx context.Context, key string, lim Limit) (Result, error) {
	return l.L.AllowAhead(key, lim, worldclock.Offset(ctx)), nil
}

// Shared is a limiter whose windows a Counter keeps: the same fixed
// windows as Limiter, with one round trip per check.
type Shared struct {
	counter Counter
	now     func() time.Time
}

// NewShared returns a limiter counting in c.
func NewShared(c Counter, now func() time.Time) *Shared {
	if now == nil {
		now = time.Now
	}
	return &Shared{counter: c, now: now}
}

// Allow counts one request against key. Requests refused still count,
// which only makes a client that ignores 429s wait for the window's end.
func (s *Shared) Allow(ctx context.Context, key string, lim Limit) (Result, error) {
	if lim.Count < 1 || lim.Window <= 0 {
		panic(fmt.Sprintf("ratelimit: invalid Limit{Count: %d, Window: %v}", lim.Count, lim.Window))
	}
	now := worldclock.Now(ctx, s.now) // a test world's principal counts on its world's clock
	n, resetAt, err := s.counter.HitRateLimit(ctx, key, now, lim.Window)
	if err != nil {
		return Result{}, fmt.Errorf("rate limit %q: %w", key, err)
	}
	// ResetAt is on the real clock, as X-RateLimit-Reset is for the bot.
	res := Result{Limit: lim.Count, Allowed: n <= lim.Count, Remaining: max(lim.Count-n, 0),
		ResetAt: resetAt.Add(-worldclock.Offset(ctx)), ResetAfter: max(resetAt.Sub(now), 0)}
	if !res.Allowed {
		res.RetryAfter = res.ResetAfter
	}
	return res, nil
}
