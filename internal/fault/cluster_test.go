package fault_test

import (
	"crypto/rand"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/testenv"
)

// TestCountsAcrossNodes: two nodes on one PostgreSQL store fire a
// counted fault exactly its count between them, however the requests
// race, and both list it spent.
func TestCountsAcrossNodes(t *testing.T) {
	t.Parallel()
	pg, err := postgres.Open(t.Context(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	e := testenv.New(t, func(c *api.Config) { c.Cache = api.CacheShared })
	n1, n2 := e.NodeOn(pg), e.NodeOn(pg)
	admin, err := bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: pg, IDs: e.IDs, Rand: rand.Reader, Now: e.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	n1.Admin, n2.Admin = admin, admin
	w := newWorld(t, n1, "two-nodes")
	const count, requests = 5, 24
	addFault(t, n1, w, map[string]any{"kind": "rest.500", "app": "modbot", "count": count})
	worldID := mustID(t, w.ID)
	// n2 learns of it through the bus.
	testenv.WaitFor(t, "the second node knows the fault", func() bool { return n2.API.Faults().InWorld(worldID) })

	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	for i := range requests {
		node := []*testenv.Env{n1, n2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := node.Do("GET", "/api/v10/applications/"+w.AppID()+"/commands", w.Bot(), nil)
			mu.Lock()
			defer mu.Unlock()
			switch res.Status {
			case 500:
				failed++
			case 200:
			default:
				t.Errorf("status %d %s", res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	if failed != count {
		t.Errorf("%d of %d requests got the fault, want exactly %d", failed, requests, count)
	}
	for _, n := range []*testenv.Env{n1, n2} {
		fs := listFaults(t, n, w)
		if len(fs) != 1 || fs[0].Fired != count || fs[0].Remaining == nil || *fs[0].Remaining != 0 {
			t.Errorf("listed %+v, want fired %d, none left", fs, count)
		}
	}
}

// TestGatewayCountAcrossNodes: a gateway.close with count 1 closes one
// session of the two the app holds on two nodes; the other stays.
func TestGatewayCountAcrossNodes(t *testing.T) {
	t.Parallel()
	pg, err := postgres.Open(t.Context(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	e := testenv.New(t, func(c *api.Config) { c.Cache = api.CacheShared })
	n1, n2 := e.NodeOn(pg), e.NodeOn(pg)
	admin, err := bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: pg, IDs: e.IDs, Rand: rand.Reader, Now: e.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	n1.Admin, n2.Admin = admin, admin
	w := newWorld(t, n1, "two-node-gateway")
	b1, b2 := dialRaw(t, n1, w.Bot()), dialRaw(t, n2, w.Bot())
	addFault(t, n1, w, map[string]any{"kind": "gateway.close", "app": "modbot", "code": 4000})
	// The node that added it applies it first, to its own session.
	for {
		if _, err := b1.readErr(); err != nil {
			if st := websocket.CloseStatus(err); st != 4000 {
				t.Fatalf("the first node's session closed with %d (%v), want 4000", st, err)
			}
			break
		}
	}
	// The second node has applied it too (and found it spent) once it
	// holds it no more: its session is still there.
	worldID := mustID(t, w.ID)
	testenv.WaitFor(t, "the second node let go of the spent fault", func() bool { return !n2.API.Faults().InWorld(worldID) })
	b2.send(1, nil)
	if f := b2.read(); f.Op != 11 {
		t.Errorf("the second node's session got %+v, want a heartbeat ACK", f)
	}
}
