// Package worldclock carries a test world's clock through a request's
// context. A world's clock runs ahead of real time by an offset (POST
// /admin/v1/worlds/{world}/clock moves it); whatever reads time on
// behalf of a world's principal (interaction tokens' lifetime and answer
// window, the daily command-create limit, rate-limit windows, Bearer
// tokens' expiry, OAuth2 codes' lifetime) reads Now(ctx, …) instead of the
// bare clock, so that moving one world's clock leaves every other world's
// time alone.
//
// The offset is looked up at most once per request, and only when
// something reads it: the API puts a lazy lookup in the context after
// authentication (WithLookup), since a principal's world is known only
// then and most requests of a world-less principal never need it.
package worldclock

import (
	"context"
	"sync"
	"time"
)

type key struct{}

// holder is a context's offset, looked up on first use.
type holder struct {
	once   sync.Once
	lookup func() time.Duration
	offset time.Duration
}

func (h *holder) get() time.Duration {
	h.once.Do(func() {
		if h.lookup != nil {
			h.offset = h.lookup()
		}
	})
	return h.offset
}

// WithOffset is ctx whose world's clock runs d ahead of real time.
func WithOffset(ctx context.Context, d time.Duration) context.Context {
	h := &holder{offset: d}
	h.once.Do(func() {})
	return context.WithValue(ctx, key{}, h)
}

// WithLookup is ctx whose world's offset is lookup's answer, asked for
// once, when first needed (it must not block for long: a store read).
func WithLookup(ctx context.Context, lookup func() time.Duration) context.Context {
	return context.WithValue(ctx, key{}, &holder{lookup: lookup})
}

// Offset is how far ctx's world's clock runs ahead of real time (0: no
// world, or a world whose clock was never moved).
func Offset(ctx context.Context) time.Duration {
	if h, ok := ctx.Value(key{}).(*holder); ok {
		return h.get()
	}
	return 0
}

// Now is ctx's world's time: now() plus the world's offset.
func Now(ctx context.Context, now func() time.Time) time.Time {
	return now().Add(Offset(ctx))
}
