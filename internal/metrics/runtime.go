package metrics

import (
	"runtime"
	rtmetrics "runtime/metrics"
	"sync"
	"time"
)

// runtimeSeries maps the exposed names (those of the Prometheus Go
// client, which dashboards expect) to the runtime's own metrics. The
// runtime/metrics package reads them without stopping the world, unlike
// runtime.ReadMemStats.
var runtimeSeries = []struct {
	name, help, kind, source string
}{
	{"go_goroutines", "Number of goroutines that currently exist.", "gauge", "/sched/goroutines:goroutines"},
	{"go_threads", "Number of OS threads the Go runtime holds.", "gauge", "/sched/threads/total:threads"},
	{"go_sched_gomaxprocs_threads", "The GOMAXPROCS setting.", "gauge", "/sched/gomaxprocs:threads"},
	{"go_memstats_heap_alloc_bytes", "Bytes of allocated heap objects.", "gauge", "/memory/classes/heap/objects:bytes"},
	{"go_memstats_heap_objects", "Number of allocated heap objects.", "gauge", "/gc/heap/objects:objects"},
	{"go_memstats_sys_bytes", "Bytes of memory obtained from the OS.", "gauge", "/memory/classes/total:bytes"},
	{"go_memstats_next_gc_bytes", "Heap size target of the next garbage collection.", "gauge", "/gc/heap/goal:bytes"},
	{"go_gc_cycles_total", "Completed garbage collection cycles.", "counter", "/gc/cycles/total:gc-cycles"},
}

// runtimeStats holds the last read of the runtime's metrics; a
// collection reads them once for all the series.
type runtimeStats struct {
	mu      sync.Mutex
	samples []rtmetrics.Sample
}

func (s *runtimeStats) read() {
	s.mu.Lock()
	defer s.mu.Unlock()
	rtmetrics.Read(s.samples)
}

func (s *runtimeStats) value(i int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.samples[i].Value
	switch v.Kind() {
	case rtmetrics.KindUint64:
		return float64(v.Uint64())
	case rtmetrics.KindFloat64:
		return v.Float64()
	}
	return 0 // not supported by this Go version
}

// RegisterRuntime adds the Go runtime's basics (goroutines, threads,
// heap, garbage collections), go_info and process_start_time_seconds
// (start: when the process started serving).
func (r *Registry) RegisterRuntime(start time.Time) {
	stats := &runtimeStats{samples: make([]rtmetrics.Sample, len(runtimeSeries))}
	for i, m := range runtimeSeries {
		stats.samples[i].Name = m.source
	}
	r.OnCollect(stats.read)
	for i, m := range runtimeSeries {
		read := func() float64 { return stats.value(i) }
		if m.kind == "counter" {
			r.CounterFunc(m.name, m.help, read)
		} else {
			r.GaugeFunc(m.name, m.help, read)
		}
	}
	r.Gauge("go_info", "Information about the Go environment.", "version").With(runtime.Version()).Set(1)
	startSeconds := float64(start.UnixNano()) / 1e9
	r.GaugeFunc("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.",
		func() float64 { return startSeconds })
}
