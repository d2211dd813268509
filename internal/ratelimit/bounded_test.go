package ratelimit

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A flood of distinct keys whose windows all stay open never takes a
// limiter past MaxKeys, and keys with longer windows outlive it.
func TestMaxKeysBoundsAFloodOfDistinctKeys(t *testing.T) {
	for _, maxKeys := range []int{2 * numShards, 1000, 20_000} {
		t.Run(strconv.Itoa(maxKeys), func(t *testing.T) {
			c := newFakeClock()
			l := NewWithMaxKeys(c.Now, maxKeys)
			if l.MaxKeys() > maxKeys {
				t.Fatalf("MaxKeys %d, asked for %d", l.MaxKeys(), maxKeys)
			}
			hot := Limit{Count: 2, Window: 24 * time.Hour}
			l.Allow("hot", hot)
			flood := Limit{Count: 1, Window: time.Hour}
			for i := range 10 * maxKeys {
				if !l.Allow("flood-"+strconv.Itoa(i), flood).Allowed {
					t.Fatalf("fresh key %d refused", i)
				}
				if i%97 == 0 {
					if n := l.Len(); n > l.MaxKeys() {
						t.Fatalf("after %d keys Len %d > MaxKeys %d", i+1, n, l.MaxKeys())
					}
				}
				if i%1000 == 0 {
					c.Advance(time.Second) // later keys end later
				}
			}
			if n := l.Len(); n > l.MaxKeys() || n < l.MaxKeys()/2 {
				t.Errorf("Len %d, want at most %d and not far below", n, l.MaxKeys())
			}
			if got := l.Peek("hot", hot); got.Remaining != 1 {
				t.Errorf("the long-lived key was dropped: %+v", got)
			}
		})
	}
}

// keysInShard returns n keys that land in shard idx.
func keysInShard(l *Limiter, idx uint64, n int) []string {
	var keys []string
	for i := 0; len(keys) < n; i++ {
		if k := "k" + strconv.Itoa(i); l.shardIndex(k) == idx {
			keys = append(keys, k)
		}
	}
	return keys
}

// A full shard drops expired entries first, then those whose windows
// end soonest, an eighth of the shard at a time.
func TestFullShardDropsExpiredThenSoonestEnding(t *testing.T) {
	c := newFakeClock()
	const perShard = 16
	l := NewWithMaxKeys(c.Now, perShard*numShards)
	keys := keysInShard(l, 3, 4*perShard)
	lim := func(i int) Limit { return Limit{Count: 2, Window: time.Duration(i+1) * time.Minute} }
	for i, k := range keys[:perShard] {
		l.Allow(k, lim(i)) // key i's window ends after i+1 minutes
	}
	kept := func(i int) bool { return l.Peek(keys[i], lim(i)).Remaining == 1 }

	// Full: the next key drops the two ending soonest (16/8).
	l.Allow(keys[perShard], lim(perShard))
	for i := range perShard + 1 {
		if want := i >= 2; kept(i) != want {
			t.Errorf("after the first overflow key %d kept = %v, want %v", i, kept(i), want)
		}
	}
	// Keys 2 to 4 expire; the shard fills up again with hour-long
	// windows, and when it overflows, sweeping is enough: every open
	// window stays.
	c.Advance(5*time.Minute + time.Second)
	next := perShard + 1
	for ; len(l.shards[3].m) < perShard; next++ {
		l.Allow(keys[next], Limit{Count: 2, Window: time.Hour})
	}
	l.Allow(keys[next], Limit{Count: 2, Window: time.Hour})
	for i := 5; i <= perShard; i++ {
		if !kept(i) {
			t.Errorf("key %d, whose window is open, was dropped while expired ones were there", i)
		}
	}
	if n := len(l.shards[3].m); n > perShard {
		t.Errorf("shard holds %d > %d", n, perShard)
	}
}

func TestNthSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func(i int) time.Duration
	}{
		{"distinct", func(int) time.Duration { return time.Duration(r.Int64()) }},
		{"few values", func(int) time.Duration { return time.Duration(r.IntN(4)) }},
		{"all equal", func(int) time.Duration { return 7 }},
		{"ascending", func(i int) time.Duration { return time.Duration(i) }},
		{"descending", func(i int) time.Duration { return time.Duration(-i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 10, 257, 3000} {
				xs := make([]time.Duration, n)
				for i := range xs {
					xs[i] = tc.gen(i)
				}
				sorted := slices.Sorted(slices.Values(xs))
				for _, k := range []int{0, n / 8, n / 2, n - 1} {
					work := slices.Clone(xs)
					got, smaller := nthSmallest(work, k)
					wantSmaller, _ := slices.BinarySearch(sorted, sorted[k])
					if got != sorted[k] || smaller != wantSmaller {
						t.Fatalf("n=%d k=%d: %d with %d smaller, want %d with %d", n, k, got, smaller, sorted[k], wantSmaller)
					}
				}
			}
		})
	}
}

func TestLimitText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limit
		out  string
	}{
		{"300/1m", Limit{300, time.Minute}, "300/1m"},
		{"10/15m", Limit{10, 15 * time.Minute}, "10/15m"},
		{" 5/90s ", Limit{5, 90 * time.Second}, "5/1m30s"},
		{"1/1h", Limit{1, time.Hour}, "1/1h"},
		{"2/10s", Limit{2, 10 * time.Second}, "2/10s"},
		{"3/250ms", Limit{3, 250 * time.Millisecond}, "3/250ms"},
		{"0", Limit{}, "0"},
		{"off", Limit{}, "0"},
	} {
		var l Limit
		if err := l.UnmarshalText([]byte(tc.in)); err != nil || l != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, l, err, tc.want)
		}
		if got := l.String(); got != tc.out {
			t.Errorf("%+v.String() = %q, want %q", l, got, tc.out)
		}
		if l.On() != (tc.want.Count > 0) {
			t.Errorf("%+v.On() = %v", l, l.On())
		}
	}
	for _, bad := range []string{"", "300", "x/1m", "0/1m", "-1/1m", "5/", "5/0s", "5/-1m", "5/soon", "1m/5"} {
		var l Limit
		if err := l.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q accepted as %+v", bad, l)
		}
	}
}

func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"203.0.113.7:51234", "203.0.113.7"},
		{"203.0.113.7", "203.0.113.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"}, // same /64
		{"[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"},
		{"2001:db8:1:2::9", "2001:db8:1:2::/64"},
		{"[::ffff:198.51.100.2]:80", "198.51.100.2"},
		{"[fe80::1%eth0]:80", "fe80::/64"},
		{"[::1]:8080", "::/64"},
		{"@", "@"},
		{"", ""},
	} {
		if got := AddressKey(tc.in); got != tc.want {
			t.Errorf("AddressKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Each operation is a key never seen before: once the limiter is full,
// every insertion pays its share of the passes that make room.
func BenchmarkAllowDistinctKeys(b *testing.B) {
	for _, maxKeys := range []int{DefaultMaxKeys, 1_000_000} {
		b.Run(fmt.Sprintf("max=%d", maxKeys), func(b *testing.B) {
			keys := make([]string, 1<<20)
			for i := range keys {
				keys[i] = "ip:198.51." + strconv.Itoa(i>>8&0xfff) + "." + strconv.Itoa(i&0xff) + "/" + strconv.Itoa(i)
			}
			l := NewWithMaxKeys(nil, maxKeys)
			lim := Limit{Count: 10, Window: time.Hour}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				l.Allow(keys[i&(len(keys)-1)], lim)
			}
			b.StopTimer()
			if l.Len() > l.MaxKeys() {
				b.Fatalf("Len %d > MaxKeys %d", l.Len(), l.MaxKeys())
			}
		})
	}
}

// The heap a limiter holds after a flood of a million distinct keys
// (reported as MB-heap), with the default bound and with room for them
// all.
func BenchmarkMemoryAfterAMillionKeys(b *testing.B) {
	const flood = 1_000_000
	for _, maxKeys := range []int{DefaultMaxKeys, flood} {
		b.Run(fmt.Sprintf("max=%d", maxKeys), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				before := heapInUse()
				b.StartTimer()
				l := NewWithMaxKeys(nil, maxKeys)
				lim := Limit{Count: 10, Window: time.Hour}
				for i := range flood {
					l.Allow("fail:2001:db8:"+strconv.Itoa(i)+"::/64", lim)
				}
				b.StopTimer()
				b.ReportMetric(float64(heapInUse()-before)/(1<<20), "MB-heap")
				b.ReportMetric(float64(l.Len()), "keys")
				runtime.KeepAlive(l)
				b.StartTimer()
			}
		})
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// A long key is held as a fixed-size hash of itself, and counts as
// itself.
func TestLongKeysAreHeldHashed(t *testing.T) {
	l, _ := newTestLimiter()
	lim := Limit{Count: 2, Window: time.Minute}
	long := func(c byte) string { return "route:abc:" + strings.Repeat(string(c), 100_000) }
	if got := l.Allow(long('1'), lim).Remaining; got != 1 {
		t.Fatalf("first request: remaining %d", got)
	}
	if got := l.Allow(long('1'), lim).Remaining; got != 0 {
		t.Errorf("the same long key again: remaining %d, want 0", got)
	}
	if got := l.Allow(long('2'), lim).Remaining; got != 1 {
		t.Errorf("another long key: remaining %d, want 1", got)
	}
	short := strings.Repeat("s", maxKeyLen)
	l.Allow(short, lim)
	held := 0
	for i := range l.shards {
		for k := range l.shards[i].m {
			held++
			if len(k) > maxKeyLen {
				t.Errorf("a key of %d bytes is held", len(k))
			}
		}
	}
	if held != 3 || l.Peek(short, lim).Remaining != 1 {
		t.Errorf("%d keys held, the %d-byte key counted %+v", held, maxKeyLen, l.Peek(short, lim))
	}
}
