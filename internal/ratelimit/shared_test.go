package ratelimit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// memCounter is a Counter in memory, as the store keeps it.
type memCounter struct {
	mu sync.Mutex
	m  map[string]struct {
		n     int
		reset time.Time
	}
	err error
}

func (c *memCounter) HitRateLimit(_ context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, time.Time{}, c.err
	}
	if c.m == nil {
		c.m = map[string]struct {
			n     int
			reset time.Time
		}{}
	}
	e := c.m[key]
	if !now.Before(e.reset) {
		e.n, e.reset = 0, now.Add(window)
	}
	e.n++
	c.m[key] = e
	return e.n, e.reset, nil
}

func TestShared(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := &memCounter{}
	s := NewShared(c, func() time.Time { return now })
	lim := Limit{Count: 2, Window: time.Second}
	ctx := context.Background()
	cases := []struct {
		advance   time.Duration
		allowed   bool
		remaining int
		retry     time.Duration
	}{
		{0, true, 1, 0},
		{100 * time.Millisecond, true, 0, 0},
		{100 * time.Millisecond, false, 0, 800 * time.Millisecond},
		{time.Second, true, 1, 0}, // a new window
	}
	for i, want := range cases {
		now = now.Add(want.advance)
		got, err := s.Allow(ctx, "k", lim)
		if err != nil {
			t.Fatal(err)
		}
		if got.Allowed != want.allowed || got.Remaining != want.remaining || got.RetryAfter != want.retry || got.Limit != 2 {
			t.Fatalf("check %d: %+v, want allowed %v remaining %d retry %v", i, got, want.allowed, want.remaining, want.retry)
		}
	}
	c.err = errors.New("store down")
	if _, err := s.Allow(ctx, "k", lim); err == nil {
		t.Fatal("a counter error is not reported")
	}
}
