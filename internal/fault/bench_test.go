package fault_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkRESTRequest is one authenticated read (GET …/commands with a
// bot token) served in process: with no fault anywhere (the fault
// middleware is one pointer load), with a fault in another world (the
// app's world is looked up, through the cache), and with a fault of the
// app's own world that never matches (a route it does not take).
func BenchmarkRESTRequest(b *testing.B) {
	for _, c := range []struct {
		name   string
		faults func(e *testenv.Env, w, other testWorld)
	}{
		{"no faults", func(*testenv.Env, testWorld, testWorld) {}},
		{"a fault in another world", func(e *testenv.Env, _, other testWorld) {
			addFault(b, e, other, map[string]any{"kind": "rest.500"})
		}},
		{"a fault of its world on another route", func(e *testenv.Env, w, _ testWorld) {
			addFault(b, e, w, map[string]any{"kind": "rest.500", "route": "GET /api/v10/gateway/bot"})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := testenv.New(b)
			w, other := newWorld(b, e, "bench"), newWorld(b, e, "bench-other")
			c.faults(e, w, other)
			req := httptest.NewRequest("GET", "/api/v10/applications/"+w.AppID()+"/commands", nil)
			req.Header.Set("Authorization", w.Bot())
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				e.API.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// countingStore counts the store calls the fault edges could make.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingStore) count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[name]++
}

func (c *countingStore) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}

func (c *countingStore) Application(ctx context.Context, id snowflake.ID) (store.Application, error) {
	c.count("Application")
	return c.Store.Application(ctx, id)
}

func (c *countingStore) Interaction(ctx context.Context, id snowflake.ID) (store.Interaction, error) {
	c.count("Interaction")
	return c.Store.Interaction(ctx, id)
}

func (c *countingStore) MatchFault(ctx context.Context, id snowflake.ID, fires func(int64) bool) (store.Fault, bool, error) {
	c.count("MatchFault")
	return c.Store.MatchFault(ctx, id, fires)
}

func (c *countingStore) LiveFaults(ctx context.Context) ([]store.Fault, error) {
	c.count("LiveFaults")
	return c.Store.LiveFaults(ctx)
}

// TestNoStoreReadWithoutFaults: a world without faults costs its
// requests no store read, whether other worlds have faults or not; a
// fault of its world that does not match costs none either.
func TestNoStoreReadWithoutFaults(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	counted := &countingStore{Store: e.Store, calls: map[string]int{}}
	n := e.NodeOn(counted)
	w, other := newWorld(t, n, "quiet"), newWorld(t, n, "noisy")
	path := "/api/v10/applications/" + w.AppID() + "/commands"
	requests := func(what string) {
		t.Helper()
		n.Do("GET", path, w.Bot(), nil) // warms the cache
		before := counted.snapshot()
		for range 20 {
			if r := n.Do("GET", path, w.Bot(), nil); r.Status != 200 {
				t.Fatalf("%s: %d %s", what, r.Status, r.Body)
			}
		}
		if after := counted.snapshot(); !maps.Equal(before, after) {
			t.Errorf("%s: store calls went from %v to %v", what, before, after)
		}
	}
	// add adds a fault and waits for the node's two reloads of it: the
	// POST's own, and its watcher's on the bus's word (which would
	// otherwise land among the requests counted).
	add := func(tw testWorld, body map[string]any) {
		t.Helper()
		before := counted.snapshot()["LiveFaults"]
		addFault(t, n, tw, body)
		testenv.WaitFor(t, "the node's reloads of the fault", func() bool { return counted.snapshot()["LiveFaults"] >= before+2 })
	}
	requests("no faults anywhere")
	add(other, map[string]any{"kind": "rest.500"})
	requests("a fault in another world")
	add(w, map[string]any{"kind": "rest.500", "route": "GET /api/v10/gateway/bot"})
	requests("a fault of its world on another route")
}
