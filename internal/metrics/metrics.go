// Package metrics is a small registry of counters, gauges and histograms
// with labels, written in the Prometheus text exposition format (version
// 0.0.4) with the standard library alone.
//
// Series are made on first use of a label combination and live as long
// as the registry: callers keep label values to a bounded set (route
// patterns, never raw paths or ids). Looking a series up allocates
// nothing once it exists, and updating one is an atomic operation (a
// short mutex for histograms, so that a scrape never sees a bucket
// without its count), cheap enough for every request.
package metrics

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Registry holds metric families. The zero value is not usable: call
// NewRegistry.
type Registry struct {
	mu        sync.Mutex
	families  map[string]family
	onCollect []func()
}

// family is one metric family: its name, help and type, and its series.
type family interface {
	header() familyHeader
	// samples appends the family's samples, sorted by label values.
	samples(out []sample) []sample
}

type familyHeader struct {
	name, help, kind string
	labels           []string
}

// sample is one line of the exposition: name{labels} value.
type sample struct {
	suffix string   // "", "_bucket", "_sum", "_count"
	labels []string // label names
	values []string // label values, matching labels
	value  float64
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry {
	return &Registry{families: map[string]family{}}
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// register adds a family. Names are fixed in the code, so a bad or
// duplicate one is a programming error: it panics.
func (r *Registry) register(f family) {
	h := f.header()
	if !metricName.MatchString(h.name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", h.name))
	}
	seen := map[string]bool{}
	for _, l := range h.labels {
		if !labelName.MatchString(l) || strings.HasPrefix(l, "__") || seen[l] || (h.kind == "histogram" && l == "le") {
			panic(fmt.Sprintf("metrics: invalid label name %q on %s", l, h.name))
		}
		seen[l] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.families[h.name]; dup {
		panic(fmt.Sprintf("metrics: %s registered twice", h.name))
	}
	r.families[h.name] = f
}

// OnCollect adds a function run before every collection (a scrape): it
// sets gauges whose value is read rather than tracked, such as the
// number of goroutines or of gateway sessions.
func (r *Registry) OnCollect(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onCollect = append(r.onCollect, f)
}

// vec is the series of one family, by label values.
type vec[T any] struct {
	hdr    familyHeader
	make   func() *T
	mu     sync.RWMutex
	series map[string]*entry[T]
}

type entry[T any] struct {
	values []string
	s      *T
}

func newVec[T any](name, help, kind string, labels []string, mk func() *T) *vec[T] {
	return &vec[T]{hdr: familyHeader{name: name, help: help, kind: kind, labels: slices.Clone(labels)},
		make: mk, series: map[string]*entry[T]{}}
}

func (v *vec[T]) header() familyHeader { return v.hdr }

// with returns the series of the label values, making it on first use.
func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.hdr.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", v.hdr.name, len(v.hdr.labels), len(values)))
	}
	var buf [256]byte
	key := appendKey(buf[:0], values)
	v.mu.RLock()
	e, ok := v.series[string(key)] // no allocation: the compiler looks up without converting
	v.mu.RUnlock()
	if ok {
		return e.s
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.series[string(key)]; ok {
		return e.s
	}
	// Copies, so that the caller's values never outlive the call: a value
	// built in a stack buffer ([]byte → string) then costs no allocation.
	clean := make([]string, len(values))
	for i, val := range values {
		clean[i] = strings.Clone(strings.ToValidUTF8(val, string(utf8.RuneError)))
	}
	e = &entry[T]{values: clean, s: v.make()}
	v.series[string(key)] = e
	return e.s
}

// appendKey joins label values with a byte that valid UTF-8 never holds.
func appendKey(b []byte, values []string) []byte {
	for i, val := range values {
		if i > 0 {
			b = append(b, 0xff)
		}
		b = append(b, val...)
	}
	return b
}

// sorted returns the series ordered by their label values.
func (v *vec[T]) sorted() []*entry[T] {
	v.mu.RLock()
	out := make([]*entry[T], 0, len(v.series))
	for _, e := range v.series {
		out = append(out, e)
	}
	v.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].values, out[j].values) < 0 })
	return out
}

// atomicFloat is a float64 updated atomically.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) load() float64   { return math.Float64frombits(f.bits.Load()) }
func (f *atomicFloat) store(v float64) { f.bits.Store(math.Float64bits(v)) }

func (f *atomicFloat) add(d float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Counter is a value that only goes up.
type Counter struct {
	whole atomic.Uint64 // integer increments: one atomic add
	frac  atomicFloat   // the rest
}

// Inc adds one.
func (c *Counter) Inc() { c.whole.Add(1) }

// Add adds d, which must not be negative (a counter never goes down).
func (c *Counter) Add(d float64) {
	switch {
	case d < 0 || math.IsNaN(d):
		panic(fmt.Sprintf("metrics: counter decreased by %v", d))
	case d == math.Trunc(d) && d < 1<<53:
		c.whole.Add(uint64(d))
	default:
		c.frac.add(d)
	}
}

// Value is the counter's current value.
func (c *Counter) Value() float64 { return float64(c.whole.Load()) + c.frac.load() }

// CounterVec is a counter family with labels.
type CounterVec struct{ v *vec[Counter] }

// Counter registers a counter family; its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{newVec(name, help, "counter", labels, func() *Counter { return new(Counter) })}
	r.register(c)
	return c
}

// With returns the counter of the label values, in the order the labels
// were registered.
func (c *CounterVec) With(values ...string) *Counter { return c.v.with(values) }

func (c *CounterVec) header() familyHeader { return c.v.hdr }

func (c *CounterVec) samples(out []sample) []sample {
	for _, e := range c.v.sorted() {
		out = append(out, sample{labels: c.v.hdr.labels, values: e.values, value: e.s.Value()})
	}
	return out
}

// Gauge is a value that goes up and down.
type Gauge struct{ v atomicFloat }

// Set sets the gauge.
func (g *Gauge) Set(v float64) { g.v.store(v) }

// Add adds d (negative: subtracts).
func (g *Gauge) Add(d float64) { g.v.add(d) }

// Value is the gauge's current value.
func (g *Gauge) Value() float64 { return g.v.load() }

// GaugeVec is a gauge family with labels.
type GaugeVec struct{ v *vec[Gauge] }

// Gauge registers a gauge family.
func (r *Registry) Gauge(name, help string, labels ...string) *GaugeVec {
	g := &GaugeVec{newVec(name, help, "gauge", labels, func() *Gauge { return new(Gauge) })}
	r.register(g)
	return g
}

// With returns the gauge of the label values.
func (g *GaugeVec) With(values ...string) *Gauge { return g.v.with(values) }

func (g *GaugeVec) header() familyHeader { return g.v.hdr }

func (g *GaugeVec) samples(out []sample) []sample {
	for _, e := range g.v.sorted() {
		out = append(out, sample{labels: g.v.hdr.labels, values: e.values, value: e.s.Value()})
	}
	return out
}

// funcFamily is a family of one series whose value is read at
// collection.
type funcFamily struct {
	hdr familyHeader
	f   func() float64
}

func (f *funcFamily) header() familyHeader { return f.hdr }

func (f *funcFamily) samples(out []sample) []sample {
	return append(out, sample{value: f.f()})
}

// GaugeFunc registers a gauge without labels whose value f reads at each
// collection.
func (r *Registry) GaugeFunc(name, help string, f func() float64) {
	r.register(&funcFamily{hdr: familyHeader{name: name, help: help, kind: "gauge"}, f: f})
}

// CounterFunc registers a counter without labels whose value f reads at
// each collection (f must never decrease).
func (r *Registry) CounterFunc(name, help string, f func() float64) {
	r.register(&funcFamily{hdr: familyHeader{name: name, help: help, kind: "counter"}, f: f})
}

// DefaultDurationBuckets are upper bounds in seconds for request and
// store latencies: 0.5 ms to 10 s.
var DefaultDurationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Histogram counts observations into buckets by upper bound.
type Histogram struct {
	bounds []float64 // shared by the family, ascending
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// Observe records one value.
func (h *Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // the first bound >= v: "le" is inclusive
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.count++
	h.mu.Unlock()
}

// Snapshot returns cumulative bucket counts (the last is +Inf), the sum
// and the count, read together.
func (h *Histogram) Snapshot() (cumulative []uint64, sum float64, count uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cumulative = make([]uint64, len(h.counts))
	var n uint64
	for i, c := range h.counts {
		n += c
		cumulative[i] = n
	}
	return cumulative, h.sum, h.count
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct {
	v      *vec[Histogram]
	bounds []float64
	les    []string // the bounds as "le" values, +Inf last
}

// Histogram registers a histogram family with the given bucket upper
// bounds (ascending; +Inf is implied).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if len(buckets) == 0 || !slices.IsSorted(buckets) || slices.Contains(buckets, math.Inf(1)) ||
		len(slices.Compact(slices.Clone(buckets))) != len(buckets) {
		panic(fmt.Sprintf("metrics: %s: buckets must be ascending, distinct and finite", name))
	}
	bounds := slices.Clone(buckets)
	les := make([]string, 0, len(bounds)+1)
	for _, b := range bounds {
		les = append(les, formatFloat(b))
	}
	les = append(les, "+Inf")
	h := &HistogramVec{bounds: bounds, les: les}
	h.v = newVec(name, help, "histogram", labels, func() *Histogram {
		return &Histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
	})
	r.register(h)
	return h
}

// With returns the histogram of the label values.
func (h *HistogramVec) With(values ...string) *Histogram { return h.v.with(values) }

func (h *HistogramVec) header() familyHeader { return h.v.hdr }

func (h *HistogramVec) samples(out []sample) []sample {
	labels := h.v.hdr.labels
	withLe := append(slices.Clone(labels), "le")
	for _, e := range h.v.sorted() {
		cum, sum, count := e.s.Snapshot()
		for i, n := range cum {
			values := append(slices.Clone(e.values), h.les[i])
			out = append(out, sample{suffix: "_bucket", labels: withLe, values: values, value: float64(n)})
		}
		out = append(out,
			sample{suffix: "_sum", labels: labels, values: e.values, value: sum},
			sample{suffix: "_count", labels: labels, values: e.values, value: float64(count)})
	}
	return out
}
