// Package metricstest reads the Prometheus text exposition format
// (version 0.0.4) strictly, for tests of what a /metrics endpoint
// serves: every line's syntax and escaping, HELP and TYPE before their
// family's samples, each family's samples together, no series twice,
// counters never negative, and histograms whole (cumulative buckets in
// ascending "le" order ending with +Inf, whose count is the _count, and
// a _sum).
package metricstest

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Sample is one line of the exposition.
type Sample struct {
	Name   string // as written: a histogram's end in _bucket, _sum or _count
	Labels map[string]string
	Value  float64
}

// Family is the samples under one name, with its HELP and TYPE.
type Family struct {
	Name, Help, Type string
	Samples          []Sample
}

// Exposition is a parsed scrape.
type Exposition struct {
	Families map[string]*Family
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	types      = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}
)

// parser keeps the state of one Parse.
type parser struct {
	exp     *Exposition
	current string          // the family whose samples are being read
	closed  map[string]bool // families whose samples have ended
	seen    map[string]bool // series already read (name and labels)
}

// Parse reads text strictly; the error names the line at fault.
func Parse(text string) (*Exposition, error) {
	p := &parser{exp: &Exposition{Families: map[string]*Family{}}, closed: map[string]bool{}, seen: map[string]bool{}}
	if text != "" && !strings.HasSuffix(text, "\n") {
		return nil, errors.New("the exposition does not end with a newline")
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if text == "" {
			break
		}
		if err := p.line(line); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
	}
	for _, f := range p.exp.Families {
		if err := checkFamily(f); err != nil {
			return nil, fmt.Errorf("family %s: %w", f.Name, err)
		}
	}
	return p.exp, nil
}

func (p *parser) line(line string) error {
	switch {
	case line == "":
		return nil // empty lines are allowed and mean nothing
	case strings.HasPrefix(line, "# HELP "), strings.HasPrefix(line, "# TYPE "):
		return p.descriptor(line)
	case strings.HasPrefix(line, "#"):
		return nil // a comment
	}
	return p.sample(line)
}

// descriptor reads a HELP or TYPE line.
func (p *parser) descriptor(line string) error {
	kind, rest := line[2:6], line[7:]
	name, text, _ := strings.Cut(rest, " ")
	if !metricName.MatchString(name) {
		return fmt.Errorf("invalid metric name %q", name)
	}
	f := p.family(name)
	if len(f.Samples) > 0 || p.closed[name] {
		return fmt.Errorf("%s after the family's samples", kind)
	}
	p.switchTo(name)
	if kind == "HELP" {
		if f.Help != "" {
			return errors.New("second HELP")
		}
		help, err := unescape(text)
		if err != nil {
			return err
		}
		f.Help = help
		return nil
	}
	if f.Type != "" {
		return errors.New("second TYPE")
	}
	if !types[text] {
		return fmt.Errorf("unknown type %q", text)
	}
	f.Type = text
	return nil
}

func (p *parser) family(name string) *Family {
	f, ok := p.exp.Families[name]
	if !ok {
		f = &Family{Name: name}
		p.exp.Families[name] = f
	}
	return f
}

// switchTo makes name the current family: the one before it is closed.
func (p *parser) switchTo(name string) {
	if p.current != "" && p.current != name {
		p.closed[p.current] = true
	}
	p.current = name
}

// familyOf names the family a sample belongs to: a histogram's samples
// carry a suffix.
func (p *parser) familyOf(name string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if f := p.exp.Families[base]; ok && f != nil && f.Type == "histogram" {
			return base
		}
	}
	return name
}

func (p *parser) sample(line string) error {
	s, err := parseSample(line)
	if err != nil {
		return err
	}
	name := p.familyOf(s.Name)
	if p.closed[name] {
		return fmt.Errorf("a sample of %s apart from the family's others", name)
	}
	p.switchTo(name)
	f := p.family(name)
	if f.Type == "" {
		f.Type = "untyped"
	}
	if f.Type == "histogram" && s.Name == name {
		return fmt.Errorf("%s: a histogram's samples end in _bucket, _sum or _count", s.Name)
	}
	key := seriesKey(s)
	if p.seen[key] {
		return errors.New("series written twice")
	}
	p.seen[key] = true
	f.Samples = append(f.Samples, s)
	return nil
}

func seriesKey(s Sample) string {
	names := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range names {
		fmt.Fprintf(&b, "\x00%s\x00%s", k, s.Labels[k])
	}
	return b.String()
}

// parseSample reads `name{label="value",…} value [timestamp]`.
func parseSample(line string) (Sample, error) {
	end := strings.IndexAny(line, "{ ")
	if end < 0 {
		return Sample{}, errors.New("no value")
	}
	s := Sample{Name: line[:end], Labels: map[string]string{}}
	if !metricName.MatchString(s.Name) {
		return Sample{}, fmt.Errorf("invalid metric name %q", s.Name)
	}
	rest := line[end:]
	if rest[0] == '{' {
		var err error
		if rest, err = parseLabels(rest[1:], s.Labels); err != nil {
			return Sample{}, err
		}
	}
	fields := strings.Split(strings.TrimPrefix(rest, " "), " ")
	if !strings.HasPrefix(rest, " ") || len(fields) > 2 || fields[0] == "" {
		return Sample{}, errors.New("want one space, the value and at most a timestamp")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return Sample{}, fmt.Errorf("value: %w", err)
	}
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return Sample{}, fmt.Errorf("timestamp: %w", err)
		}
	}
	s.Value = v
	return s, nil
}

// parseLabels reads the labels after "{" and returns what follows "}".
func parseLabels(s string, into map[string]string) (string, error) {
	for {
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return rest, nil
		}
		name, rest, ok := strings.Cut(s, `="`)
		if !ok || !labelName.MatchString(name) || strings.HasPrefix(name, "__") {
			return "", fmt.Errorf("invalid label at %q", s)
		}
		if _, dup := into[name]; dup {
			return "", fmt.Errorf("label %s twice", name)
		}
		value, after, err := quoted(rest)
		if err != nil {
			return "", fmt.Errorf("label %s: %w", name, err)
		}
		into[name] = value
		switch {
		case strings.HasPrefix(after, ","):
			s = after[1:]
		case strings.HasPrefix(after, "}"):
			s = after
		default:
			return "", fmt.Errorf("after label %s: want , or }", name)
		}
	}
}

// quoted reads a label value up to its closing quote.
func quoted(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\n':
			return "", "", errors.New("raw newline")
		case '\\':
			if i+1 == len(s) {
				return "", "", errors.New("dangling backslash")
			}
			i++
			switch s[i] {
			case '\\':
				b.WriteByte('\\')
			case '"':
				b.WriteByte('"')
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf(`unknown escape \%c`, s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated value")
}

// unescape reads a HELP text: \\ and \n are its only escapes.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New("dangling backslash")
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		default:
			return "", fmt.Errorf(`unknown escape \%c`, s[i])
		}
	}
	return b.String(), nil
}

// checkFamily checks what holds across a family's samples.
func checkFamily(f *Family) error {
	switch f.Type {
	case "counter":
		for _, s := range f.Samples {
			if s.Value < 0 || math.IsNaN(s.Value) {
				return fmt.Errorf("counter at %v", s.Value)
			}
		}
	case "histogram":
		return checkHistogram(f)
	}
	return nil
}

// histogramSeries is one label set of a histogram.
type histogramSeries struct {
	les      []float64
	counts   []float64
	sum      *float64
	count    *float64
	labelKey string
}

func checkHistogram(f *Family) error {
	series := map[string]*histogramSeries{}
	var order []string
	for _, s := range f.Samples {
		labels := map[string]string{}
		for k, v := range s.Labels {
			if k != "le" {
				labels[k] = v
			}
		}
		key := seriesKey(Sample{Labels: labels})
		h := series[key]
		if h == nil {
			h = &histogramSeries{labelKey: key}
			series[key] = h
			order = append(order, key)
		}
		switch s.Name {
		case f.Name + "_bucket":
			le, ok := s.Labels["le"]
			if !ok {
				return errors.New("a bucket without le")
			}
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				return fmt.Errorf("le %q: %w", le, err)
			}
			if h.sum != nil || h.count != nil {
				return errors.New("a bucket after _sum or _count")
			}
			h.les, h.counts = append(h.les, bound), append(h.counts, s.Value)
		case f.Name + "_sum":
			if _, ok := s.Labels["le"]; ok {
				return errors.New("_sum with le")
			}
			h.sum = &s.Value
		case f.Name + "_count":
			if _, ok := s.Labels["le"]; ok {
				return errors.New("_count with le")
			}
			h.count = &s.Value
		}
	}
	for _, key := range order {
		if err := series[key].check(); err != nil {
			return fmt.Errorf("series %q: %w", strings.ReplaceAll(key, "\x00", " "), err)
		}
	}
	return nil
}

func (h *histogramSeries) check() error {
	switch {
	case len(h.les) == 0:
		return errors.New("no buckets")
	case !math.IsInf(h.les[len(h.les)-1], 1):
		return errors.New("the last bucket is not +Inf")
	case h.sum == nil || h.count == nil:
		return errors.New("no _sum or no _count")
	case h.counts[len(h.counts)-1] != *h.count:
		return fmt.Errorf("the +Inf bucket holds %v, _count says %v", h.counts[len(h.counts)-1], *h.count)
	}
	for i := 1; i < len(h.les); i++ {
		if h.les[i] <= h.les[i-1] {
			return fmt.Errorf("le %v after %v", h.les[i], h.les[i-1])
		}
		if h.counts[i] < h.counts[i-1] {
			return fmt.Errorf("not cumulative: bucket le=%v holds %v, le=%v %v", h.les[i], h.counts[i], h.les[i-1], h.counts[i-1])
		}
	}
	return nil
}

// Value is the value of the sample with exactly these labels.
func (e *Exposition) Value(name string, labels map[string]string) (float64, bool) {
	for _, f := range e.Families {
		for _, s := range f.Samples {
			if s.Name == name && len(s.Labels) == len(labels) && matches(s, labels) {
				return s.Value, true
			}
		}
	}
	return 0, false
}

// Sum adds the values of the samples named name whose labels include
// match (nil: all of them).
func (e *Exposition) Sum(name string, match map[string]string) float64 {
	var total float64
	for _, f := range e.Families {
		for _, s := range f.Samples {
			if s.Name == name && matches(s, match) {
				total += s.Value
			}
		}
	}
	return total
}

// LabelValues lists the distinct values label takes on the samples
// named name, sorted.
func (e *Exposition) LabelValues(name, label string) []string {
	var out []string
	for _, f := range e.Families {
		for _, s := range f.Samples {
			if v, ok := s.Labels[label]; s.Name == name && ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

func matches(s Sample, labels map[string]string) bool {
	for k, v := range labels {
		if s.Labels[k] != v {
			return false
		}
	}
	return true
}
