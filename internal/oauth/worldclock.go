package oauth

// Test worlds' clocks (internal/worldclock): what the OAuth2 server does
// for a world's app reads that world's time. A code of a world's app
// lives its 10 minutes on the world's clock, and the access tokens a
// code, a refresh or client credentials give it expire 7 days after the
// world's now, so that a token issued after the world's clock moved is
// not born expired. An id_token's iat and exp stay on the real clock:
// the client's JWT library checks them against its own, which no world
// moves.

import (
	"context"
	"errors"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/worldclock"
)

// nowIn is the time of ctx's world (real time outside any world).
func (s *Server) nowIn(ctx context.Context) time.Time { return worldclock.Now(ctx, s.now) }

// withAppClock is ctx reading the clock of app's world: looked up once,
// when something first asks; nothing for an app of no world.
func (s *Server) withAppClock(ctx context.Context, app store.Application) context.Context {
	if app.WorldID == 0 {
		return ctx
	}
	return worldclock.WithLookup(ctx, func() time.Duration { return s.worldOffset(ctx, app.WorldID) })
}

// withAppIDClock is withAppClock for an app known by its id (the app
// row is the cache's).
func (s *Server) withAppIDClock(ctx context.Context, appID snowflake.ID) context.Context {
	if appID == 0 {
		return ctx
	}
	return worldclock.WithLookup(ctx, func() time.Duration {
		app, err := s.store.Application(ctx, appID)
		if err != nil {
			s.clockUnavailable(ctx, err)
			return 0
		}
		return s.worldOffset(ctx, app.WorldID)
	})
}

// worldOffset is how far world's clock runs ahead; a failed read counts
// as none (and is logged), as the API does.
func (s *Server) worldOffset(ctx context.Context, world snowflake.ID) time.Duration {
	if world == 0 {
		return 0
	}
	d, err := s.store.WorldClockOffset(ctx, world)
	if err != nil {
		s.clockUnavailable(ctx, err)
		return 0
	}
	return d
}

func (s *Server) clockUnavailable(ctx context.Context, err error) {
	if !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
		s.log.Warn("world clock unavailable: real time is used", "err", err)
	}
}
