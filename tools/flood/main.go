// Command flood measures what a flood of requests with garbage tokens
// costs slashd, before and after the client address's authentication
// failure budget is used up, and what the rate limiter's memory comes to
// under a flood of distinct keys.
//
// It runs the real server (api.Server on a SQLite store in a temporary
// data directory, the configuration of `slashd serve`) with a budget of
// -n failures, and sends it 2×-n requests with a fresh random bot token
// each: the first -n are answered 401 (each costs a hash and a store
// lookup), the rest 429 (a hash, and no lookup but the one a second an
// address may still make, so a new valid token gets through; credentials
// the server accepted before are served as usual). It reports requests/s
// for both halves
// over HTTP on loopback (-c clients, keep-alive), and the server's own
// time per request (the handler called in process, no network). Then it
// floods a limiter with -keys distinct keys and reports the heap it
// holds, with the default bound and with room for every key.
//
// With -store postgres://… it runs on a fresh schema of that PostgreSQL
// server instead (dropped at the end), counting the other rate limits in
// the store as `slashd serve --store` does; there a lookup is a round
// trip.
//
//	go run ./tools/flood
//	go run ./tools/flood -n 50000 -c 16 -keys 1000000
//	go run ./tools/flood -store 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

func main() {
	n := flag.Int("n", 20000, "authentication failure budget, and the requests sent after it is used up")
	c := flag.Int("c", 8, "concurrent clients")
	keys := flag.Int("keys", 1_000_000, "distinct keys the limiter is flooded with")
	storeURL := flag.String("store", "", "a PostgreSQL server's URL (a schema is made there); unset: SQLite")
	flag.Parse()
	if *n < 1 || *c < 1 || *keys < 1 {
		log.Fatal("flood: -n, -c and -keys must be at least 1")
	}
	if err := run(*storeURL, *n, *c, *keys); err != nil {
		log.Fatal("flood: ", err)
	}
}

func run(storeURL string, n, c, keys int) error {
	ctx := context.Background()
	st, closeStore, err := openStore(ctx, storeURL)
	if err != nil {
		return err
	}
	defer closeStore()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	ids := snowflake.NewGenerator(0, nil)
	creds, err := bootstrap.CreateApp(ctx, bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now},
		bootstrap.AppOptions{Name: "flood", BaseURL: base})
	if err != nil {
		return err
	}
	path := "/api/v10/applications/" + creds.ApplicationID + "/commands"

	kind := "SQLite"
	if storeURL != "" {
		kind = "PostgreSQL"
	}
	fmt.Printf("flood: GOMAXPROCS %d, %d clients, %s store, GET %s with a random bot token each\n\n",
		runtime.GOMAXPROCS(0), c, kind, "/api/v10/applications/{id}/commands")

	// Over HTTP: one server whose budget is n, so that the first n
	// requests are the 401 path and the next n the 429 path.
	cfg := config(storeURL, n)
	handler := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	before, err := overHTTP(client, base+path, n, c)
	if err != nil {
		return err
	}
	after, err := overHTTP(client, base+path, n, c)
	if err != nil {
		return err
	}
	fmt.Println("over HTTP (loopback; client and server share the machine):")
	before.print("  before the budget")
	after.print("  after the budget ")
	fmt.Printf("  ratio: %.1f× the requests/s\n\n", after.perSecond()/before.perSecond())

	// In process: the server's own cost per request.
	inBefore, inAfter := inProcess(config(storeURL, n), st, ids, path, n)
	fmt.Println("in process (handler only, one goroutine):")
	fmt.Printf("  before the budget: %8.1f µs/request (401)\n", inBefore.Seconds()*1e6)
	fmt.Printf("  after the budget:  %8.1f µs/request (429)\n\n", inAfter.Seconds()*1e6)

	fmt.Printf("rate limiter after %d distinct keys (client addresses):\n", keys)
	for _, maxKeys := range []int{ratelimit.DefaultMaxKeys, keys} {
		heap, held, elapsed := limiterMemory(keys, maxKeys)
		fmt.Printf("  MaxKeys %9d: %7.1f MiB heap, %8d keys held, %6.0f ns per check\n",
			maxKeys, float64(heap)/(1<<20), held, float64(elapsed.Nanoseconds())/float64(keys))
	}
	return nil
}

// config is serve's configuration with a budget of n failures.
func config(storeURL string, n int) api.Config {
	cfg := api.DefaultConfig()
	cfg.SharedRateLimits = storeURL != ""
	cfg.AuthFailureLimit = ratelimit.Limit{Count: n, Window: time.Hour}
	return cfg
}

// openStore opens SQLite in a temporary directory, or a fresh schema on
// the PostgreSQL server at storeURL; the function it returns removes it.
func openStore(ctx context.Context, storeURL string) (*sqlstore.Store, func(), error) {
	if storeURL == "" {
		dir, err := os.MkdirTemp("", "flood")
		if err != nil {
			return nil, nil, err
		}
		st, err := sqlite.Open(ctx, filepath.Join(dir, "slashd.db"))
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		return st, func() { st.Close(); os.RemoveAll(dir) }, nil
	}
	dsn, drop, err := clustertest.NewSchema(ctx, storeURL)
	if err != nil {
		return nil, nil, err
	}
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		_ = drop(ctx)
		return nil, nil, err
	}
	return st, func() {
		st.Close()
		if err := drop(context.Background()); err != nil {
			log.Print("flood: ", err)
		}
	}, nil
}

// result is one half of the flood.
type result struct {
	sent     int
	statuses map[int]int
	elapsed  time.Duration
}

func (r result) perSecond() float64 { return float64(r.sent) / r.elapsed.Seconds() }

func (r result) print(label string) {
	fmt.Printf("%s: %8.0f requests/s  (%d in %v; statuses %v)\n", label, r.perSecond(), r.sent,
		r.elapsed.Round(time.Millisecond), r.statuses)
}

// overHTTP sends n requests with garbage tokens from c clients.
func overHTTP(client *http.Client, url string, n, c int) (result, error) {
	var next atomic.Int64
	var mu sync.Mutex
	statuses := map[int]int{}
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			local := map[int]int{}
			var err error
			for next.Add(1) <= int64(n) && err == nil {
				var status int
				if status, err = get(client, url, "Bot "+garbage()); err == nil {
					local[status]++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for s, k := range local {
				statuses[s] += k
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	return result{sent: n, statuses: statuses, elapsed: time.Since(start)}, firstErr
}

func get(client *http.Client, url, auth string) (int, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", auth)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

func garbage() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// inProcess times the handler itself on both paths: a server whose
// budget is n answers n garbage requests 401, then n more 429.
func inProcess(cfg api.Config, st store.Store, ids *snowflake.Generator, path string, n int) (before, after time.Duration) {
	h := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	defer h.Shutdown(context.Background())
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = "Bot " + garbage()
	}
	timeRequests := func() time.Duration {
		start := time.Now()
		for _, tok := range tokens {
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = "192.0.2.1:40000"
			req.Header.Set("Authorization", tok)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
		return time.Since(start) / time.Duration(n)
	}
	return timeRequests(), timeRequests()
}

// limiterMemory floods a limiter holding at most maxKeys keys with
// `keys` distinct keys, and returns the heap it holds, how many keys it
// kept and how long the flood took.
func limiterMemory(keys, maxKeys int) (heap int64, held int, elapsed time.Duration) {
	base := heapInUse()
	l := ratelimit.NewWithMaxKeys(nil, maxKeys)
	lim := ratelimit.Limit{Count: 300, Window: time.Minute}
	start := time.Now()
	for i := range keys {
		// the /64s of 2001:db8::/32, as ratelimit.AddressKey writes them
		l.Allow("2001:db8:"+strconv.FormatInt(int64(i>>16), 16)+":"+strconv.FormatInt(int64(i&0xffff), 16)+"::/64", lim)
	}
	elapsed = time.Since(start)
	heap = heapInUse() - base
	held = l.Len()
	runtime.KeepAlive(l)
	return heap, held, elapsed
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
