package metrics_test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/metrics/metricstest"
)

func scrape(t *testing.T, r *metrics.Registry) string {
	t.Helper()
	var b strings.Builder
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The exposition is exactly the format's: HELP and TYPE, escaped label
// values and help, families by name, series by label values, cumulative
// buckets with an inclusive le.
func TestExpositionText(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.Counter("test_requests_total", "Requests by path.\nSecond line with a \\ backslash.", "path", "code")
	c.With(`/a"b`, "200").Inc()
	c.With("/a\\b\nc", "404").Add(2)
	c.With(`/a"b`, "200").Add(0.5)
	g := r.Gauge("test_temperature", "A gauge.")
	g.With().Set(-3.25)
	h := r.Histogram("test_latency_seconds", "A histogram.", []float64{0.1, 1}, "route")
	for _, v := range []float64{0.05, 0.1, 0.5, 3} {
		h.With("/x").Observe(v)
	}
	r.Counter("test_unused_total", "Never touched: not written.", "x")
	r.GaugeFunc("test_func", "Read when scraped.", func() float64 { return math.Inf(1) })

	want := `# HELP test_func Read when scraped.
# TYPE test_func gauge
test_func +Inf
# HELP test_latency_seconds A histogram.
# TYPE test_latency_seconds histogram
test_latency_seconds_bucket{route="/x",le="0.1"} 2
test_latency_seconds_bucket{route="/x",le="1"} 3
test_latency_seconds_bucket{route="/x",le="+Inf"} 4
test_latency_seconds_sum{route="/x"} 3.65
test_latency_seconds_count{route="/x"} 4
# HELP test_requests_total Requests by path.\nSecond line with a \\ backslash.
# TYPE test_requests_total counter
test_requests_total{path="/a\"b",code="200"} 1.5
test_requests_total{path="/a\\b\nc",code="404"} 2
# HELP test_temperature A gauge.
# TYPE test_temperature gauge
test_temperature -3.25
`
	got := scrape(t, r)
	if got != want {
		t.Fatalf("exposition:\n%s\nwant:\n%s", got, want)
	}
	exp, err := metricstest.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := exp.Value("test_requests_total", map[string]string{"path": "/a\\b\nc", "code": "404"}); !ok || v != 2 {
		t.Fatalf("parsed escaped series: %v %v", v, ok)
	}
	if f := exp.Families["test_requests_total"]; f.Help != "Requests by path.\nSecond line with a \\ backslash." {
		t.Fatalf("help: %q", f.Help)
	}
}

// Counters and histograms updated from many goroutines while scrapes
// run: every scrape parses and every histogram is whole; the totals
// come out exact.
func TestConcurrentUpdatesAndScrapes(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.Counter("test_total", "", "worker")
	h := r.Histogram("test_seconds", "", metrics.DefaultDurationBuckets, "worker")
	const workers, each = 4, 2000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			label := fmt.Sprint(w % 2)
			for i := range each {
				c.With(label).Inc()
				h.With(label).Observe(float64(i%20) / 1000)
			}
		}()
	}
	stop := make(chan struct{})
	scrapes := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				scrapes <- nil
				return
			default:
			}
			var b strings.Builder
			if _, err := r.WriteTo(&b); err != nil {
				scrapes <- err
				return
			}
			if _, err := metricstest.Parse(b.String()); err != nil {
				scrapes <- fmt.Errorf("%w\n%s", err, b.String())
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	if err := <-scrapes; err != nil {
		t.Fatal(err)
	}
	exp, err := metricstest.Parse(scrape(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if got := exp.Sum("test_total", nil); got != workers*each {
		t.Fatalf("counted %v, want %d", got, workers*each)
	}
	if got := exp.Sum("test_seconds_count", nil); got != workers*each {
		t.Fatalf("observed %v, want %d", got, workers*each)
	}
}

func TestRegistrationMistakesPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		reg  func(r *metrics.Registry)
	}{
		{"bad metric name", func(r *metrics.Registry) { r.Counter("1abc", "") }},
		{"bad label name", func(r *metrics.Registry) { r.Counter("a_total", "", "a-b") }},
		{"reserved label name", func(r *metrics.Registry) { r.Gauge("a", "", "__x") }},
		{"label twice", func(r *metrics.Registry) { r.Gauge("a", "", "x", "x") }},
		{"le on a histogram", func(r *metrics.Registry) { r.Histogram("a", "", []float64{1}, "le") }},
		{"unsorted buckets", func(r *metrics.Registry) { r.Histogram("a", "", []float64{2, 1}) }},
		{"repeated bucket", func(r *metrics.Registry) { r.Histogram("a", "", []float64{1, 1}) }},
		{"infinite bucket", func(r *metrics.Registry) { r.Histogram("a", "", []float64{1, math.Inf(1)}) }},
		{"no buckets", func(r *metrics.Registry) { r.Histogram("a", "", nil) }},
		{"registered twice", func(r *metrics.Registry) { r.Gauge("a", ""); r.Counter("a", "") }},
		{"wrong number of values", func(r *metrics.Registry) { r.Counter("a_total", "", "x").With("1", "2") }},
		{"counter going down", func(r *metrics.Registry) { r.Counter("a_total", "").With().Add(-1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			c.reg(metrics.NewRegistry())
		})
	}
}

// Updating an existing series allocates nothing: the request path pays
// for a map lookup and an atomic add.
func TestUpdatesDoNotAllocate(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.Counter("a_total", "", "route", "method", "code")
	h := r.Histogram("b_seconds", "", metrics.DefaultDurationBuckets, "route")
	route := "/api/v10/applications/{application_id}/commands"
	c.With(route, "GET", "200").Inc()
	h.With(route).Observe(0.01)
	code := 200
	if n := testing.AllocsPerRun(100, func() {
		var buf [8]byte // a label value made on the stack stays there
		c.With(route, "GET", string(strconv.AppendInt(buf[:0], int64(code), 10))).Inc()
		h.With(route).Observe(0.01)
	}); n != 0 {
		t.Fatalf("%v allocations per update", n)
	}
}

func TestInvalidUTF8LabelValue(t *testing.T) {
	r := metrics.NewRegistry()
	r.Counter("a_total", "", "x").With("bad\xffvalue").Inc()
	exp, err := metricstest.Parse(scrape(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if got := exp.LabelValues("a_total", "x"); len(got) != 1 || got[0] != "bad\uFFFDvalue" {
		t.Fatalf("label values: %q", got)
	}
}

func TestRuntimeMetrics(t *testing.T) {
	r := metrics.NewRegistry()
	start := time.Unix(1700000000, 500_000_000)
	r.RegisterRuntime(start)
	exp, err := metricstest.Parse(scrape(t, r))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go_goroutines", "go_threads", "go_memstats_heap_alloc_bytes", "go_memstats_sys_bytes",
		"go_memstats_next_gc_bytes", "go_memstats_heap_objects", "go_sched_gomaxprocs_threads"} {
		if v, ok := exp.Value(name, map[string]string{}); !ok || v <= 0 {
			t.Errorf("%s = %v (%v)", name, v, ok)
		}
	}
	if f := exp.Families["go_gc_cycles_total"]; f == nil || f.Type != "counter" {
		t.Errorf("go_gc_cycles_total: %+v", f)
	}
	if v, _ := exp.Value("process_start_time_seconds", map[string]string{}); v != 1700000000.5 {
		t.Errorf("process_start_time_seconds = %v", v)
	}
	if got := exp.LabelValues("go_info", "version"); len(got) != 1 || !strings.HasPrefix(got[0], "go") {
		t.Errorf("go_info versions: %v", got)
	}
}

func TestHandler(t *testing.T) {
	r := metrics.NewRegistry()
	r.Counter("a_total", "").With().Inc()
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	if string(body) != "# HELP a_total \n# TYPE a_total counter\na_total 1\n" {
		t.Fatalf("body %q", body)
	}
}

func BenchmarkCounterInc(b *testing.B) {
	c := metrics.NewRegistry().Counter("a_total", "", "route", "method", "code")
	b.ReportAllocs()
	for b.Loop() {
		c.With("/api/v10/applications/{application_id}/commands", "GET", "200").Inc()
	}
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := metrics.NewRegistry().Histogram("a_seconds", "", metrics.DefaultDurationBuckets, "route")
	b.ReportAllocs()
	for b.Loop() {
		h.With("/api/v10/applications/{application_id}/commands").Observe(0.003)
	}
}
