package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/worldclock"
)

// TestAllowAhead: a key whose clock runs ahead (a test world's) sees its
// window end when its clock passes the end, while a key on the
// limiter's own clock keeps its window.
func TestAllowAhead(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	l := New(func() time.Time { return base })
	lim := Limit{Count: 1, Window: time.Minute}
	if !l.Allow("plain", lim).Allowed || !l.AllowAhead("world", lim, 0).Allowed {
		t.Fatal("first requests refused")
	}
	if l.AllowAhead("world", lim, 59*time.Second).Allowed {
		t.Error("the world's window ended before its clock passed the window's end")
	}
	res := l.AllowAhead("world", lim, time.Minute)
	if !res.Allowed {
		t.Error("the world's clock moved a minute ahead and its window did not end")
	}
	if !res.ResetAt.Equal(base.Add(time.Minute)) {
		t.Errorf("ResetAt = %v, want a minute from the real now (the bot's clock)", res.ResetAt)
	}
	if l.Allow("plain", lim).Allowed {
		t.Error("a key on the real clock saw its window end with another key's clock")
	}
	// Through the Checker: the context carries the offset.
	c := Local{L: l}
	ctx := worldclock.WithOffset(context.Background(), 2*time.Minute)
	if res, _ := c.Allow(ctx, "world", lim); !res.Allowed {
		t.Error("Local.Allow ignored the context's world clock")
	}
	if res, _ := c.Allow(context.Background(), "plain", lim); res.Allowed {
		t.Error("Local.Allow without a world clock let a spent key through")
	}
}
