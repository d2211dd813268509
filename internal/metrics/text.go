package metrics

import (
	"bufio"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteTo writes every family in the text exposition format, families
// sorted by name, after running the OnCollect functions.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	hooks := append([]func(){}, r.onCollect...)
	fams := make([]family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	sort.Slice(fams, func(i, j int) bool { return fams[i].header().name < fams[j].header().name })
	cw := &countingWriter{w: w}
	bw := bufio.NewWriter(cw)
	var buf []sample
	for _, f := range fams {
		h := f.header()
		buf = f.samples(buf[:0])
		if len(buf) == 0 {
			continue // a family whose series have not been made yet
		}
		bw.WriteString("# HELP ")
		bw.WriteString(h.name)
		bw.WriteByte(' ')
		bw.WriteString(escapeHelp(h.help))
		bw.WriteString("\n# TYPE ")
		bw.WriteString(h.name)
		bw.WriteByte(' ')
		bw.WriteString(h.kind)
		bw.WriteByte('\n')
		for _, s := range buf {
			writeSample(bw, h.name, s)
		}
	}
	err := bw.Flush()
	return cw.n, err
}

func writeSample(w *bufio.Writer, name string, s sample) {
	w.WriteString(name)
	w.WriteString(s.suffix)
	if len(s.labels) > 0 {
		w.WriteByte('{')
		for i, l := range s.labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l)
			w.WriteString(`="`)
			w.WriteString(escapeLabelValue(s.values[i]))
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(s.value))
	w.WriteByte('\n')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// escapeHelp escapes a HELP text: backslash and newline.
func escapeHelp(s string) string { return helpEscaper.Replace(s) }

// escapeLabelValue escapes a label value: backslash, newline and double
// quote.
func escapeLabelValue(s string) string { return valueEscaper.Replace(s) }

// formatFloat writes a value as the format wants it: Go's shortest
// representation, and +Inf, -Inf, NaN.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Handler serves the registry at GET (and HEAD).
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Cache-Control", "no-store")
		if req.Method == http.MethodHead {
			return
		}
		_, _ = r.WriteTo(w) // a write error means the scraper went away
	})
}
