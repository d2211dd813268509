package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/store"
)

func testRateLimits(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	start := ms(1_700_000_000_000)
	window := time.Second
	hit := func(key string, at time.Time) (int, time.Time) {
		t.Helper()
		n, reset, err := s.HitRateLimit(ctx, key, at, window)
		if err != nil {
			t.Fatalf("HitRateLimit(%q): %v", key, err)
		}
		return n, reset
	}
	for i := 1; i <= 3; i++ { // within one window: counts up, the window stays
		n, reset := hit("a", start.Add(time.Duration(i)*100*time.Millisecond))
		if n != i || !reset.Equal(start.Add(100*time.Millisecond+window)) {
			t.Fatalf("hit %d: count %d, reset %v", i, n, reset)
		}
	}
	if n, _ := hit("b", start); n != 1 {
		t.Fatalf("another key: count %d, want 1", n)
	}
	// After the window ends a new one starts with this hit.
	later := start.Add(5 * time.Second)
	if n, reset := hit("a", later); n != 1 || !reset.Equal(later.Add(window)) {
		t.Fatalf("after the window: count %d, reset %v", n, reset)
	}

	// Concurrent hits are all counted.
	const workers = 40
	var (
		mu     sync.Mutex
		counts []int
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, _, err := s.HitRateLimit(ctx, "c", start, time.Minute)
			if err != nil {
				t.Errorf("concurrent hit: %v", err)
				return
			}
			mu.Lock()
			counts = append(counts, n)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(counts)
	for i, n := range counts {
		if n != i+1 {
			t.Fatalf("concurrent hits counted %v, want 1..%d", counts, workers)
		}
	}

	// Forgetting ended windows: b and the first a ended; c has not.
	n, err := s.DeleteRateLimitsBefore(ctx, later)
	if err != nil || n != 1 { // b (a was restarted at later)
		t.Fatalf("DeleteRateLimitsBefore = %d, %v; want 1", n, err)
	}
	if n, _ := hit("b", later); n != 1 {
		t.Fatalf("b after forgetting: count %d, want 1", n)
	}
	if n, _ := hit("c", start.Add(time.Second)); n != workers+1 {
		t.Fatalf("c kept: count %d, want %d", n, workers+1)
	}
}
