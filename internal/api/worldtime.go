package api

// Test worlds' clocks (internal/worldclock): a world's principal reads
// its world's time wherever the API reads time on its behalf.

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/worldclock"
)

// nowIn is the time of ctx's world: real time plus the world's offset
// (real time for a principal of no world).
func (s *Server) nowIn(ctx context.Context) time.Time { return worldclock.Now(ctx, s.now) }

// withWorldClock is ctx with a lazy lookup of p's world's clock: read
// once, the first time something asks. A principal known to be of no
// world (most are) gets ctx as it is: real time, at no cost (the rate
// limiter asks on every request).
func (s *Server) withWorldClock(ctx context.Context, p auth.Principal) context.Context {
	if world, known := s.principalWorlds.get(p.Token); known && world == 0 {
		return ctx
	}
	return worldclock.WithLookup(ctx, func() time.Duration { return s.principalClock(ctx, p) })
}

// principalClock is how far the clock of p's world runs ahead: the
// world of the app a bot or Bearer token acts for, or of the user a
// client token is. A failed read is logged and counts as no offset.
func (s *Server) principalClock(ctx context.Context, p auth.Principal) time.Duration {
	world, err := s.tokenWorld(ctx, p.Token)
	if err == nil && world != 0 {
		var d time.Duration
		if d, err = s.store.WorldClockOffset(ctx, world); err == nil {
			return d
		}
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
		s.log.Warn("world clock unavailable: real time is used", "err", err)
	}
	return 0
}

// expiredInWorld reports whether p's token has expired on its world's
// clock (authentication checked it on the real clock).
func (s *Server) expiredInWorld(ctx context.Context, p auth.Principal) bool {
	exp := p.Token.ExpiresAt
	return !exp.IsZero() && !s.nowIn(ctx).Before(exp)
}

// withPathClock is r's context with a lazy lookup of the clock of the
// world an unauthenticated route acts in: the app its path names
// (application_id: webhook routes), or the app of the interaction it
// names (interaction_id: the callback).
func (s *Server) withPathClock(r *http.Request) context.Context {
	ctx := r.Context()
	appPath, interactionPath := r.PathValue("application_id"), r.PathValue("interaction_id")
	if appPath == "" && interactionPath == "" {
		return ctx
	}
	return worldclock.WithLookup(ctx, func() time.Duration {
		var app snowflake.ID
		if id, err := snowflake.Parse(appPath); err == nil && appPath != "" {
			app = id
		} else if id, err := snowflake.Parse(interactionPath); err == nil && interactionPath != "" {
			// A fresh interaction may not be written yet (interactions
			// are written in batches): write it first, as the route does.
			if err := s.pending.flush(ctx, s.store, id); err != nil {
				return 0
			}
			rec, err := s.store.Interaction(ctx, id)
			if err != nil {
				return 0
			}
			app = rec.ApplicationID
		}
		if app == 0 {
			return 0
		}
		return s.principalClock(ctx, auth.Principal{Token: store.Token{ApplicationID: app}})
	})
}

// principalWorlds remembers the world of the apps and users that
// authenticated: an app's or a user's world is fixed at its creation
// and ids are never reused, so an entry never goes stale (one of a
// deleted world names a world whose clock is no longer found: real
// time, as for a principal of none). Bounded: it starts over when full.
type principalWorlds struct {
	m sync.Map // worldMember → snowflake.ID
	n atomic.Int64
}

// worldMember is an app (the principal of its bot and Bearer tokens) or
// a user (of a client token).
type worldMember struct {
	id   snowflake.ID
	user bool
}

const principalWorldsSize = 65536

func memberOf(tok store.Token) worldMember {
	if tok.ApplicationID != 0 {
		return worldMember{id: tok.ApplicationID}
	}
	return worldMember{id: tok.UserID, user: true}
}

func (c *principalWorlds) get(tok store.Token) (world snowflake.ID, known bool) {
	v, ok := c.m.Load(memberOf(tok))
	if !ok {
		return 0, false
	}
	return v.(snowflake.ID), true
}

func (c *principalWorlds) put(tok store.Token, world snowflake.ID) {
	if c.n.Add(1) > principalWorldsSize {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(memberOf(tok), world)
}
