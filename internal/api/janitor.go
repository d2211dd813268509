package api

import (
	"context"
	"time"
)

// interactionRetention is how long an interaction is remembered: its
// token stops serving after 15 minutes (50027), and after a day the token
// is forgotten (10015); the messages stay.
const interactionRetention = 24 * time.Hour

// ForgetOldInteractions deletes the interactions older than the
// retention and returns how many.
func (s *Server) ForgetOldInteractions(ctx context.Context) (int64, error) {
	return s.store.DeleteInteractionsBefore(ctx, s.now().Add(-interactionRetention))
}

// RunJanitor forgets old interactions every interactions interval and,
// when the store counts the rate limits, ended windows every windows
// interval (they last seconds, and every request that finds no live
// window adds a row), once at the start too, until ctx ends.
func (s *Server) RunJanitor(ctx context.Context, interactions, windows time.Duration) {
	forget := time.NewTicker(interactions)
	defer forget.Stop()
	sweep := time.NewTicker(windows)
	defer sweep.Stop()
	s.forgetOldInteractions(ctx)
	s.forgetEndedWindows(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-forget.C:
			s.forgetOldInteractions(ctx)
		case <-sweep.C:
			s.forgetEndedWindows(ctx)
		}
	}
}

func (s *Server) forgetOldInteractions(ctx context.Context) {
	if n, err := s.ForgetOldInteractions(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("forget old interactions", "err", err)
	} else if n > 0 {
		s.log.Debug("forgot old interactions", "count", n)
	}
}

// forgetEndedWindows deletes the rate-limit windows that have ended from
// the store that counts them (a node's own windows live in memory).
func (s *Server) forgetEndedWindows(ctx context.Context) {
	if !s.cfg.SharedRateLimits {
		return
	}
	if n, err := s.store.DeleteRateLimitsBefore(ctx, s.now()); err != nil && ctx.Err() == nil {
		s.log.Error("forget ended rate-limit windows", "err", err)
	} else if n > 0 {
		s.log.Debug("forgot ended rate-limit windows", "count", n)
	}
}
