package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/gateway"
)

// BenchmarkMetricsLayer measures what the metrics add to a request: the
// same route through a bare mux, and through the mux with the two calls
// ServeHTTP adds around it (the clock read, and counting and timing the
// request under its pattern). BenchmarkRequestMetrics (api_test) runs
// the whole API for comparison.
func BenchmarkMetricsLayer(b *testing.B) {
	m := newServerMetrics(time.Now(), func() gateway.Stats { return gateway.Stats{} })
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v10/applications/{application_id}/commands", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})
	req := httptest.NewRequest("GET", "/api/v10/applications/123456789012345678/commands", nil)
	w := httptest.NewRecorder()
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			mux.ServeHTTP(rec, req)
		}
	})
	b.Run("with metrics", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			mux.ServeHTTP(rec, req)
			m.observeRequest(req.Pattern, req.Method, rec.status, time.Since(start))
		}
	})
	if n := m.requests.With("/api/v10/applications/{application_id}/commands", "GET", "200").Value(); n == 0 {
		b.Fatal("nothing counted")
	}
}
