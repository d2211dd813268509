// Package ratelimit is an in-memory, per-key rate limiter that mirrors the
// rate limits of the Discord HTTP API.
//
// # Why fixed windows
//
// Discord describes a bucket with X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset (epoch seconds) and X-RateLimit-Reset-After (seconds).
// Those headers describe a fixed window: a counter that counts down from Limit
// and is refilled all at once when the window resets. Clients are written
// against that model; discordgo, for instance, sleeps for Reset-After as soon
// as Remaining reaches 0. A smoothing algorithm such as GCRA or a token
// bucket has no single "reset" instant and trickles capacity back, so its
// Remaining/Reset headers would be approximations that such clients
// misinterpret. A fixed window per key makes every header exact.
//
// A window starts with the first request for a key and lasts Limit.Window.
// Each allowed request decrements Remaining; once it reaches 0, requests are
// rejected with RetryAfter set to the time left in the window. When the window
// ends the counter is reset and the next request opens a new window.
//
// # Implementation
//
// Keys are spread over 32 shards, each guarded by its own mutex, so unrelated
// keys rarely contend. The shard is chosen by hash/maphash with a random seed
// per Limiter, so clients cannot pick ids that all land in one shard.
// Expired windows are evicted lazily: a shard is swept after a number of
// operations proportional to its size, which keeps the amortised cost per
// operation constant and a shard's memory bounded by roughly twice the number
// of keys it held at its last sweep. A shard that sees no traffic at all
// keeps its expired entries until it does.
//
// # Bounded memory
//
// Sweeping alone bounds memory by the keys whose windows are open, and a
// flood of distinct keys (client addresses, login names) keeps them all
// open. So a Limiter also holds at most MaxKeys keys: a shard that is full
// when a new key arrives sweeps, and if that frees less than an eighth of
// it, drops the entries whose windows end soonest (the oldest windows)
// until an eighth is free. Such a pass costs O(n) for n/8 insertions, so
// the cost per operation stays constant. A dropped key starts a fresh
// window when it comes back, which errs on the lenient side; it takes a
// flood of more than MaxKeys distinct keys within one window to drop a
// live one. A key longer than 128 bytes is held as a hash of itself.
package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limit allows Count requests per Window. Count must be at least 1 and Window
// must be positive.
type Limit struct {
	Count  int
	Window time.Duration
}

// On reports whether l limits anything: configurations use the zero
// Limit for "no limit".
func (l Limit) On() bool { return l.Count > 0 }

// String is "COUNT/WINDOW" ("300/1m", "10/15m"), or "0" for no limit.
func (l Limit) String() string {
	if !l.On() {
		return "0"
	}
	w := l.Window.String()
	// "1m0s" reads better as "1m", "1h0m" as "1h".
	for _, zero := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(w, zero) {
			w = w[:len(w)-2]
		}
	}
	return strconv.Itoa(l.Count) + "/" + w
}

// MarshalText is String, so that a Limit is a flag (flag.TextVar).
func (l Limit) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses String's form: "COUNT/WINDOW", WINDOW a
// time.Duration ("300/1m"), or "0" or "off" for no limit.
func (l *Limit) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "0" || strings.EqualFold(s, "off") {
		*l = Limit{}
		return nil
	}
	count, window, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n < 1 {
		return fmt.Errorf("limit %q: want COUNT/WINDOW (as 300/1m), COUNT at least 1, or 0 for none", s)
	}
	d, err := time.ParseDuration(window)
	if err != nil || d <= 0 {
		return fmt.Errorf("limit %q: the window must be a positive duration (as 1m, 15m, 10s)", s)
	}
	*l = Limit{Count: n, Window: d}
	return nil
}

// Result describes the state of a bucket after (Allow) or without (Peek) a
// request. It maps 1:1 onto Discord's rate limit headers:
//
//	X-RateLimit-Limit        Limit
//	X-RateLimit-Remaining    Remaining
//	X-RateLimit-Reset        ResetAt   (Unix seconds with fractional part)
//	X-RateLimit-Reset-After  ResetAfter (seconds with fractional part)
//	Retry-After / retry_after RetryAfter (only on 429)
type Result struct {
	// Allowed reports whether the request was (Allow) or would be (Peek)
	// permitted.
	Allowed bool
	// Limit is the number of requests permitted per window.
	Limit int
	// Remaining is the number of requests still permitted in the current
	// window.
	Remaining int
	// ResetAfter is the time until the current window ends and the bucket is
	// fully replenished. It is 0 if no window is open.
	ResetAfter time.Duration
	// RetryAfter is the time until one request will be allowed again. It is
	// positive only when Allowed is false.
	RetryAfter time.Duration
	// ResetAt is the instant the current window ends: now + ResetAfter.
	ResetAt time.Time
}

const (
	// DefaultMaxKeys is how many keys New's limiters hold at most: at
	// about 100 bytes a key, some 10 MB.
	DefaultMaxKeys = 100_000
	numShards      = 32 // must be a power of two
	// minSweepOps is the minimum number of operations on a shard between two
	// sweeps for expired entries. A shard is swept once the number of
	// operations since the last sweep reaches max(minSweepOps, n), n being
	// the number of entries the last sweep left. A sweep thus costs O(1)
	// amortised per operation, and as each operation adds at most one entry,
	// a shard never holds more than 2n + minSweepOps entries.
	minSweepOps = 64
)

// entry is the state of one key. It holds no pointers (time.Time would), so
// the garbage collector only has to scan the keys.
type entry struct {
	count   int           // requests allowed in the current window
	resetAt time.Duration // end of the window, as an offset from Limiter.epoch
}

type shard struct {
	mu   sync.Mutex
	m    map[string]entry
	ops  int // operations since the last sweep
	next int // value of ops that triggers the next sweep
	max  int // entries the shard may hold
	_    [32]byte
}

// Limiter is a set of fixed-window rate limit buckets keyed by string.
// It is safe for concurrent use. The zero value is not usable; call New.
type Limiter struct {
	now    func() time.Time
	epoch  time.Time
	seed   maphash.Seed
	seed2  maphash.Seed // with seed, the 128-bit hash of a long key
	shards [numShards]shard
}

// New returns an empty Limiter holding at most DefaultMaxKeys keys, that
// reads the current time from now, which may be replaced in tests. A nil
// now means time.Now.
//
// Times are stored as offsets from the instant New is called, so with
// time.Now the limiter uses the monotonic clock and is unaffected by
// wall-clock jumps.
func New(now func() time.Time) *Limiter {
	return NewWithMaxKeys(now, DefaultMaxKeys)
}

// NewWithMaxKeys is New holding at most maxKeys keys (see "Bounded
// memory"; DefaultMaxKeys when maxKeys < 1). The keys are spread over
// shards that each hold an equal share, at least one.
func NewWithMaxKeys(now func() time.Time, maxKeys int) *Limiter {
	if now == nil {
		now = time.Now
	}
	if maxKeys < 1 {
		maxKeys = DefaultMaxKeys
	}
	l := &Limiter{now: now, epoch: now(), seed: maphash.MakeSeed(), seed2: maphash.MakeSeed()}
	perShard := max(maxKeys/numShards, 1)
	for i := range l.shards {
		l.shards[i].m = make(map[string]entry)
		l.shards[i].next = minSweepOps
		l.shards[i].max = perShard
	}
	return l
}

// MaxKeys is the most keys l holds at once.
func (l *Limiter) MaxKeys() int { return l.shards[0].max * numShards }

// Allow consumes one request from the bucket identified by key under lim and
// reports the resulting state. If the bucket is exhausted nothing is consumed
// and Result.Allowed is false.
//
// Callers normally pass the same lim for a key. If it changes, a new Count
// applies at once; a longer Window applies from the next window, and a
// shorter one pulls the end of the current window in to now + Window.
//
// Allow panics if lim.Count < 1 or lim.Window <= 0.
func (l *Limiter) Allow(key string, lim Limit) Result {
	return l.do(key, lim, true, 0)
}

// AllowAhead is Allow for a key whose clock runs ahead of the
// limiter's by ahead (a test world's clock, internal/worldclock): its
// windows open and end on that clock, while the upkeep of every other
// key stays on the limiter's.
func (l *Limiter) AllowAhead(key string, lim Limit, ahead time.Duration) Result {
	return l.do(key, lim, true, ahead)
}

// Peek reports the state of the bucket identified by key under lim without
// consuming a request. Result.Allowed tells whether a call to Allow would
// currently succeed. For a key with no open window Peek reports a full
// bucket: Remaining == lim.Count and ResetAfter == 0.
//
// Peek panics if lim.Count < 1 or lim.Window <= 0.
func (l *Limiter) Peek(key string, lim Limit) Result {
	return l.do(key, lim, false, 0)
}

// Len returns the number of keys currently tracked, including keys whose
// window has ended but which have not been evicted yet.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

func (l *Limiter) do(key string, lim Limit, consume bool, ahead time.Duration) Result {
	if lim.Count < 1 || lim.Window <= 0 {
		panic(fmt.Sprintf("ratelimit: invalid Limit{Count: %d, Window: %v}", lim.Count, lim.Window))
	}
	wall := l.now()
	own := wall.Sub(l.epoch)
	now := own + ahead // the key's clock
	key = l.storedKey(key)

	s := l.shard(key)
	s.mu.Lock()
	s.ops++
	if s.ops >= s.next {
		s.sweep(own)
	}
	e, ok := s.m[key]
	dirty := false // e must be written back
	if !ok || now >= e.resetAt {
		// No open window.
		if !consume {
			s.mu.Unlock()
			return Result{Allowed: true, Limit: lim.Count, Remaining: lim.Count, ResetAt: wall}
		}
		if !ok && len(s.m) >= s.max {
			s.makeRoom(own)
		}
		e = entry{resetAt: now + lim.Window}
		dirty = true
	} else if e.resetAt-now > lim.Window {
		// The window ends further away than lim.Window: lim.Window was
		// shortened, or the injected clock went backwards. Never make a
		// client wait longer than the limit says; keep the count.
		e.resetAt = now + lim.Window
		dirty = true
	}
	res := Result{Limit: lim.Count}
	if e.count < lim.Count {
		res.Allowed = true
		if consume {
			e.count++
			dirty = true
		}
	}
	if dirty {
		s.m[key] = e
	}
	s.mu.Unlock()

	res.Remaining = max(lim.Count-e.count, 0)
	res.ResetAfter = e.resetAt - now
	res.ResetAt = wall.Add(res.ResetAfter)
	if !res.Allowed {
		res.RetryAfter = res.ResetAfter
	}
	return res
}

// sweep removes the entries whose window has ended. s.mu must be held.
func (s *shard) sweep(now time.Duration) {
	for k, e := range s.m {
		if now >= e.resetAt {
			delete(s.m, k)
		}
	}
	s.ops = 0
	s.next = max(minSweepOps, len(s.m))
}

// makeRoom frees an eighth of a full shard (at least one entry): the
// entries whose window has ended, then, if that is not enough, those
// whose windows end soonest. It makes two passes over the shard. s.mu
// must be held.
func (s *shard) makeRoom(now time.Duration) {
	ends := make([]time.Duration, 0, len(s.m))
	for k, e := range s.m {
		if now >= e.resetAt {
			delete(s.m, k)
		} else {
			ends = append(ends, e.resetAt)
		}
	}
	s.ops = 0
	s.next = max(minSweepOps, len(s.m))
	excess := len(s.m) - (s.max - max(s.max/8, 1))
	if excess <= 0 {
		return
	}
	// The entries ending before cut go, and as many of those ending at
	// cut as it takes.
	cut, before := nthSmallest(ends, excess-1)
	ties := excess - before
	for k, e := range s.m {
		if e.resetAt < cut || e.resetAt == cut && ties > 0 {
			if e.resetAt == cut {
				ties--
			}
			delete(s.m, k)
		}
	}
	s.next = max(minSweepOps, len(s.m))
}

// nthSmallest returns the value at index k of xs sorted, and how many
// values are smaller (quickselect, with three-way partitions so that
// runs of equal values cost nothing), reordering xs.
func nthSmallest(xs []time.Duration, k int) (value time.Duration, smaller int) {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		a, b, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c)) // the median of the three
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case xs[i] < pivot:
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case xs[i] > pivot:
				xs[i], xs[gt] = xs[gt], xs[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return pivot, lt
		}
	}
	// xs[lo:hi+1] is one value at index k; those before lo are smaller.
	return xs[k], lo
}

// maxKeyLen is the longest key stored as it is. A longer one (made of a
// path segment a client chose, say) is stored as a 128-bit hash of
// itself, so that the bytes a key holds are bounded too.
const maxKeyLen = 128

func (l *Limiter) storedKey(key string) string {
	if len(key) <= maxKeyLen {
		return key
	}
	return fmt.Sprintf("#%016x%016x", maphash.String(l.seed, key), maphash.String(l.seed2, key))
}

// shard returns the shard holding key.
func (l *Limiter) shard(key string) *shard {
	return &l.shards[l.shardIndex(key)]
}

func (l *Limiter) shardIndex(key string) uint64 {
	return maphash.String(l.seed, key) & (numShards - 1)
}

// BucketHash returns a stable, opaque identifier for the rate limit bucket of
// a route, suitable for the X-RateLimit-Bucket header: the first 16 hex
// characters of the SHA-256 of routeTemplate.
//
// Pass the route template, not the concrete path (for example
// "POST /channels/{channel.id}/messages"), so that every request of the route
// shares one bucket id, as on Discord where the top-level resource id is not
// part of the hash. The per-resource counters are then obtained by using
// bucket + ":" + majorID as the key passed to Allow. The result depends only
// on routeTemplate, so callers may compute it once per route.
func BucketHash(routeTemplate string) string {
	sum := sha256.Sum256([]byte(routeTemplate))
	return hex.EncodeToString(sum[:8])
}
