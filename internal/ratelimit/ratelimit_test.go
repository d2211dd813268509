package ratelimit

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a manually advanced clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 600_000_000, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestLimiter() (*Limiter, *fakeClock) {
	c := newFakeClock()
	return New(c.Now), c
}

func checkResult(t *testing.T, step string, got, want Result) {
	t.Helper()
	if got.Allowed != want.Allowed || got.Limit != want.Limit || got.Remaining != want.Remaining ||
		got.ResetAfter != want.ResetAfter || got.RetryAfter != want.RetryAfter || !got.ResetAt.Equal(want.ResetAt) {
		t.Errorf("%s:\n got %+v\nwant %+v", step, got, want)
	}
}

func TestAllowCountsDown(t *testing.T) {
	tests := []struct {
		name string
		lim  Limit
	}{
		{"one per second", Limit{Count: 1, Window: time.Second}},
		{"five per five seconds", Limit{Count: 5, Window: 5 * time.Second}},
		{"fifty per second", Limit{Count: 50, Window: time.Second}},
		{"sub-second window", Limit{Count: 3, Window: 250 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newTestLimiter()
			for i := range tt.lim.Count {
				checkResult(t, fmt.Sprintf("request %d", i+1), l.Allow("k", tt.lim), Result{
					Allowed:    true,
					Limit:      tt.lim.Count,
					Remaining:  tt.lim.Count - 1 - i,
					ResetAfter: tt.lim.Window,
					ResetAt:    t0.Add(tt.lim.Window),
				})
			}
			// The next request is over the limit.
			checkResult(t, "over limit", l.Allow("k", tt.lim), Result{
				Allowed:    false,
				Limit:      tt.lim.Count,
				Remaining:  0,
				ResetAfter: tt.lim.Window,
				RetryAfter: tt.lim.Window,
				ResetAt:    t0.Add(tt.lim.Window),
			})
		})
	}
}

// TestSequences drives the limiter through scripted timelines.
func TestSequences(t *testing.T) {
	type step struct {
		advance time.Duration // applied before the call
		peek    bool          // Peek instead of Allow
		key     string        // "" means "k"
		lim     Limit         // zero means the test's limit
		want    Result        // Limit is filled in from lim; ResetAt is checked as now+ResetAfter
	}
	lim := Limit{Count: 2, Window: 10 * time.Second}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "window is anchored at the first request",
			steps: []step{
				{advance: 0, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{advance: 3 * time.Second, want: Result{Allowed: true, Remaining: 0, ResetAfter: 7 * time.Second}},
				{advance: 2 * time.Second, want: Result{Allowed: false, Remaining: 0, ResetAfter: 5 * time.Second, RetryAfter: 5 * time.Second}},
				{advance: 4*time.Second + 999*time.Millisecond, want: Result{Allowed: false, Remaining: 0, ResetAfter: time.Millisecond, RetryAfter: time.Millisecond}},
				{advance: 999 * time.Microsecond, want: Result{Allowed: false, Remaining: 0, ResetAfter: time.Microsecond, RetryAfter: time.Microsecond}},
				// Exactly at the end of the window a new window opens.
				{advance: time.Microsecond, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{advance: 9 * time.Second, want: Result{Allowed: true, Remaining: 0, ResetAfter: time.Second}},
			},
		},
		{
			name: "rejected requests do not extend the window",
			steps: []step{
				{want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{advance: time.Second, want: Result{Allowed: false, ResetAfter: 9 * time.Second, RetryAfter: 9 * time.Second}},
				{advance: time.Second, want: Result{Allowed: false, ResetAfter: 8 * time.Second, RetryAfter: 8 * time.Second}},
				{advance: 8 * time.Second, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
			},
		},
		{
			name: "long idle gap starts a fresh window",
			steps: []step{
				{want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{advance: time.Hour, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
			},
		},
		{
			name: "peek does not consume",
			steps: []step{
				{peek: true, want: Result{Allowed: true, Remaining: 2, ResetAfter: 0}},
				{peek: true, want: Result{Allowed: true, Remaining: 2, ResetAfter: 0}},
				{advance: time.Second, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{advance: time.Second, peek: true, want: Result{Allowed: true, Remaining: 1, ResetAfter: 9 * time.Second}},
				{peek: true, want: Result{Allowed: true, Remaining: 1, ResetAfter: 9 * time.Second}},
				{want: Result{Allowed: true, Remaining: 0, ResetAfter: 9 * time.Second}},
				{advance: time.Second, peek: true, want: Result{Allowed: false, ResetAfter: 8 * time.Second, RetryAfter: 8 * time.Second}},
				{advance: 8 * time.Second, peek: true, want: Result{Allowed: true, Remaining: 2, ResetAfter: 0}},
			},
		},
		{
			name: "keys are independent",
			steps: []step{
				{key: "a", want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{key: "a", want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{key: "a", want: Result{Allowed: false, ResetAfter: 10 * time.Second, RetryAfter: 10 * time.Second}},
				{advance: 4 * time.Second, key: "b", want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{key: "a", want: Result{Allowed: false, ResetAfter: 6 * time.Second, RetryAfter: 6 * time.Second}},
				{key: "b", want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{advance: 6 * time.Second, key: "a", want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{key: "b", want: Result{Allowed: false, ResetAfter: 4 * time.Second, RetryAfter: 4 * time.Second}},
				{key: "", want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
			},
		},
		{
			name: "raised count applies at once",
			steps: []step{
				{want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{lim: Limit{Count: 3, Window: 10 * time.Second}, want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{lim: Limit{Count: 1, Window: 10 * time.Second}, want: Result{Allowed: false, Remaining: 0, ResetAfter: 10 * time.Second, RetryAfter: 10 * time.Second}},
			},
		},
		{
			name: "shortened window caps the wait and keeps the count",
			steps: []step{
				{want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{lim: Limit{Count: 2, Window: time.Second}, want: Result{Allowed: false, ResetAfter: time.Second, RetryAfter: time.Second}},
				{advance: 500 * time.Millisecond, want: Result{Allowed: false, ResetAfter: 500 * time.Millisecond, RetryAfter: 500 * time.Millisecond}},
				{advance: 500 * time.Millisecond, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
			},
		},
		{
			name: "clock going backwards never blocks longer than the window",
			steps: []step{
				{want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
				{want: Result{Allowed: true, Remaining: 0, ResetAfter: 10 * time.Second}},
				{advance: -time.Minute, want: Result{Allowed: false, ResetAfter: 10 * time.Second, RetryAfter: 10 * time.Second}},
				{advance: 10 * time.Second, want: Result{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newTestLimiter()
			for i, s := range tt.steps {
				c.Advance(s.advance)
				key := s.key
				if key == "" {
					key = "k"
				}
				sl := s.lim
				if sl == (Limit{}) {
					sl = lim
				}
				var got Result
				if s.peek {
					got = l.Peek(key, sl)
				} else {
					got = l.Allow(key, sl)
				}
				want := s.want
				want.Limit = sl.Count
				want.ResetAt = c.Now().Add(want.ResetAfter)
				checkResult(t, fmt.Sprintf("step %d (key %q, peek %v)", i, key, s.peek), got, want)
			}
		})
	}
}

func TestResultInvariants(t *testing.T) {
	l, c := newTestLimiter()
	lim := Limit{Count: 3, Window: 700 * time.Millisecond}
	for i := range 1000 {
		c.Advance(time.Duration(i%7) * 37 * time.Millisecond)
		r := l.Allow("k", lim)
		if r.Allowed != (r.RetryAfter == 0) {
			t.Fatalf("call %d: Allowed=%v but RetryAfter=%v", i, r.Allowed, r.RetryAfter)
		}
		if !r.Allowed && (r.Remaining != 0 || r.RetryAfter != r.ResetAfter) {
			t.Fatalf("call %d: blocked result %+v", i, r)
		}
		if r.ResetAfter <= 0 || r.ResetAfter > lim.Window || r.Remaining < 0 || r.Remaining >= lim.Count {
			t.Fatalf("call %d: out of range %+v", i, r)
		}
		if !r.ResetAt.Equal(c.Now().Add(r.ResetAfter)) {
			t.Fatalf("call %d: ResetAt %v != now+ResetAfter", i, r.ResetAt)
		}
	}
}

func TestConcurrentAllowNeverExceedsCount(t *testing.T) {
	tests := []struct {
		name       string
		keys       int
		count      int
		goroutines int
		perG       int // Allow calls per goroutine per key
	}{
		{"single hot key", 1, 100, 64, 20},
		{"count of one", 1, 1, 64, 5},
		{"several keys", 8, 25, 32, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newTestLimiter()
			lim := Limit{Count: tt.count, Window: time.Second}
			// Three windows; the clock is frozen while goroutines race.
			for window := range 3 {
				allowed := make([]atomic.Int64, tt.keys)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for g := range tt.goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						for i := range tt.perG * tt.keys {
							k := (g + i) % tt.keys
							if l.Allow("key"+strconv.Itoa(k), lim).Allowed {
								allowed[k].Add(1)
							}
						}
					}()
				}
				close(start)
				wg.Wait()
				for k := range allowed {
					if got := allowed[k].Load(); got != int64(tt.count) {
						t.Errorf("window %d key %d: %d requests allowed, want exactly %d", window, k, got, tt.count)
					}
				}
				c.Advance(lim.Window)
			}
		})
	}
}

func TestEvictionKeepsLenBounded(t *testing.T) {
	const (
		keysPerRound = 1000
		rounds       = 40
		// Per shard: at most 2n+minSweepOps entries where n is what the
		// last sweep left, and n is at most the keys of one round.
		bound = 2*keysPerRound + numShards*minSweepOps
	)
	l, c := newTestLimiter()
	lim := Limit{Count: 1, Window: time.Second}

	// A hot key whose window outlives the churn must never be evicted.
	hotLim := Limit{Count: 1, Window: time.Hour}
	if !l.Allow("hot", hotLim).Allowed {
		t.Fatal("hot key: first request rejected")
	}

	maxLen := 0
	for r := range rounds {
		for i := range keysPerRound {
			if !l.Allow(fmt.Sprintf("r%d-k%d", r, i), lim).Allowed {
				t.Fatalf("round %d key %d: fresh key rejected", r, i)
			}
			maxLen = max(maxLen, l.Len())
		}
		c.Advance(lim.Window) // every key of this round expires
	}
	if maxLen > bound {
		t.Errorf("Len reached %d after %d distinct keys, want <= %d", maxLen, rounds*keysPerRound, bound)
	}
	if got := l.Allow("hot", hotLim); got.Allowed {
		t.Errorf("hot key was evicted while its window was open: %+v", got)
	}

	// Light traffic on one key per shard eventually sweeps everything that
	// expired. (A shard that sees no traffic keeps its stale entries; they
	// are bounded as above.)
	var tail [numShards]string
	for i, n := 0, 0; n < numShards; i++ {
		k := "tail" + strconv.Itoa(i)
		if idx := l.shardIndex(k); tail[idx] == "" {
			tail[idx] = k
			n++
		}
	}
	for i := range 2 * minSweepOps * numShards {
		l.Allow(tail[i%numShards], lim)
	}
	if got, want := l.Len(), 1+numShards; got > 2*want {
		t.Errorf("after expiry and further traffic Len = %d, want about %d", got, want)
	}
}

func TestPeekDoesNotCreateEntries(t *testing.T) {
	l, _ := newTestLimiter()
	lim := Limit{Count: 1, Window: time.Second}
	for i := range 1000 {
		l.Peek("k"+strconv.Itoa(i), lim)
	}
	if n := l.Len(); n != 0 {
		t.Errorf("Len = %d after Peek only, want 0", n)
	}
}

func TestInvalidLimitPanics(t *testing.T) {
	l, _ := newTestLimiter()
	for _, lim := range []Limit{{}, {Count: 0, Window: time.Second}, {Count: -1, Window: time.Second}, {Count: 1}, {Count: 1, Window: -time.Second}} {
		for _, op := range []struct {
			name string
			f    func(string, Limit) Result
		}{{"Allow", l.Allow}, {"Peek", l.Peek}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%+v) did not panic", op.name, lim)
					}
				}()
				op.f("k", lim)
			}()
		}
	}
}

func TestNewNilUsesTimeNow(t *testing.T) {
	l := New(nil)
	before := time.Now()
	r := l.Allow("k", Limit{Count: 1, Window: time.Minute})
	after := time.Now()
	if !r.Allowed || r.Remaining != 0 {
		t.Fatalf("unexpected result %+v", r)
	}
	if r.ResetAt.Before(before.Add(time.Minute-time.Second)) || r.ResetAt.After(after.Add(time.Minute)) {
		t.Errorf("ResetAt %v not about a minute after %v", r.ResetAt, before)
	}
}

func TestShardsAreUsed(t *testing.T) {
	l, _ := newTestLimiter()
	lim := Limit{Count: 1, Window: time.Second}
	for i := range 100 * numShards {
		l.Allow("k"+strconv.Itoa(i), lim)
	}
	for i := range l.shards {
		if n := len(l.shards[i].m); n == 0 {
			t.Errorf("shard %d holds no key out of %d", i, 100*numShards)
		}
	}
}

func TestBucketHash(t *testing.T) {
	tests := []struct {
		template string
		want     string
	}{
		// First 8 bytes of well-known SHA-256 digests.
		{"", "e3b0c44298fc1c14"},
		{"abc", "ba7816bf8f01cfea"},
	}
	for _, tt := range tests {
		if got := BucketHash(tt.template); got != tt.want {
			t.Errorf("BucketHash(%q) = %q, want %q", tt.template, got, tt.want)
		}
	}

	routes := []string{
		"POST /channels/{channel.id}/messages",
		"GET /channels/{channel.id}/messages",
		"PATCH /channels/{channel.id}/messages/{message.id}",
		"POST /interactions/{interaction.id}/{interaction.token}/callback",
		"GET /guilds/{guild.id}",
	}
	seen := map[string]string{}
	for _, route := range routes {
		h := BucketHash(route)
		if len(h) != 16 {
			t.Errorf("BucketHash(%q) = %q, want 16 hex chars", route, h)
		}
		if _, err := hex.DecodeString(h); err != nil {
			t.Errorf("BucketHash(%q) = %q is not hex: %v", route, h, err)
		}
		for range 3 {
			if again := BucketHash(route); again != h {
				t.Errorf("BucketHash(%q) not stable: %q then %q", route, h, again)
			}
		}
		if other, dup := seen[h]; dup {
			t.Errorf("BucketHash collision between %q and %q", route, other)
		}
		seen[h] = route
	}
}

func BenchmarkAllow(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = BucketHash("GET /channels/{channel.id}/messages") + ":" + strconv.Itoa(100000000000000000+i)
	}
	lim := Limit{Count: 1 << 30, Window: time.Second}
	l := New(nil)
	var seed atomic.Uint32
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seed.Add(7919))
		for pb.Next() {
			l.Allow(keys[i&(len(keys)-1)], lim)
			i++
		}
	})
}
