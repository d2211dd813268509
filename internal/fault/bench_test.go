package fault_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
			req := httptest.NewRequest("GET", "/api/v10/applications/"+w.appID()+"/commands", nil)
			req.Header.Set("Authorization", w.bot())
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
