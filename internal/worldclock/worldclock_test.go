package worldclock

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestNow(t *testing.T) {
	base := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return base }
	tests := []struct {
		name string
		ctx  context.Context
		want time.Time
	}{
		{"no world", context.Background(), base},
		{"offset", WithOffset(context.Background(), 15*time.Minute), base.Add(15 * time.Minute)},
		{"lookup", WithLookup(context.Background(), func() time.Duration { return time.Hour }), base.Add(time.Hour)},
		{"inner wins", WithOffset(WithOffset(context.Background(), time.Hour), time.Minute), base.Add(time.Minute)},
	}
	for _, tt := range tests {
		if got := Now(tt.ctx, now); !got.Equal(tt.want) {
			t.Errorf("%s: Now = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLookupOnceWhenNeeded: the lookup runs on the first read only, once
// however many goroutines read, and never when nothing reads.
func TestLookupOnceWhenNeeded(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	lookup := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return time.Second
	}
	_ = WithLookup(context.Background(), lookup)
	if calls != 0 {
		t.Fatalf("lookup ran %d times before anything read the offset", calls)
	}
	ctx := WithLookup(context.Background(), lookup)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if d := Offset(ctx); d != time.Second {
				t.Errorf("Offset = %v", d)
			}
		})
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("lookup ran %d times, want 1", calls)
	}
}
