package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waiting reports how many acquires wait.
func (b *uploadBudget) waitingCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting)
}

// waitUntil polls cond (the budget's state changes in other goroutines).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// The upload budget holds at most its limit: past it requests wait in
// turn, a release lets the first waiting one in, a request larger than
// the budget takes all of it, and a request given up leaves the queue.
func TestUploadBudget(t *testing.T) {
	t.Parallel()
	b := &uploadBudget{limit: 100}
	ctx := context.Background()
	first, err := b.acquire(ctx, 60)
	if err != nil || first != 60 {
		t.Fatalf("acquire 60: %d, %v", first, err)
	}
	got := make(chan int64, 2)
	go func() { n, _ := b.acquire(ctx, 50); got <- n }()
	waitUntil(t, "the second request waits", func() bool { return b.waitingCount() == 1 })
	// A small request behind a waiting one waits too (in turn).
	go func() { n, _ := b.acquire(ctx, 10); got <- n }()
	waitUntil(t, "the third request waits behind it", func() bool { return b.waitingCount() == 2 })
	if b.inFlight() != 60 {
		t.Fatalf("in flight %d, want 60", b.inFlight())
	}
	b.release(first)
	if a, c := <-got, <-got; a+c != 60 {
		t.Fatalf("granted %d and %d after the release", a, c)
	}
	if b.inFlight() != 60 {
		t.Fatalf("in flight %d, want 60 (50 + 10)", b.inFlight())
	}
	b.release(50)
	b.release(10)

	// Larger than the budget: all of it, at once when nothing is held.
	all, err := b.acquire(ctx, 1000)
	if err != nil || all != 100 {
		t.Fatalf("acquire 1000 of 100: %d, %v", all, err)
	}
	gone, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := b.acquire(gone, 1); done <- err }()
	waitUntil(t, "a request waits", func() bool { return b.waitingCount() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a request given up: %v", err)
	}
	if b.waitingCount() != 0 {
		t.Fatal("the request given up is still queued")
	}
	b.release(all)
	if b.inFlight() != 0 {
		t.Fatalf("in flight %d after every release", b.inFlight())
	}
}
