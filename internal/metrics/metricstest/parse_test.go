package metricstest

import (
	"strings"
	"testing"
)

const good = `# HELP req_total Requests.\nMore.
# TYPE req_total counter
req_total{path="/a\"b\\c\nd",code="200"} 3
req_total{code="404",path="/x",} 1 1700000000000
# comment
# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1"} 1
lat_seconds_bucket{le="1"} 2
lat_seconds_bucket{le="+Inf"} 2
lat_seconds_sum 0.6
lat_seconds_count 2
plain 1e3
`

func TestParseGood(t *testing.T) {
	exp, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := exp.Value("req_total", map[string]string{"path": "/a\"b\\c\nd", "code": "200"}); !ok || v != 3 {
		t.Fatalf("escaped series: %v %v", v, ok)
	}
	if f := exp.Families["req_total"]; f.Help != "Requests.\nMore." || f.Type != "counter" || len(f.Samples) != 2 {
		t.Fatalf("req_total: %+v", f)
	}
	if f := exp.Families["plain"]; f.Type != "untyped" || f.Samples[0].Value != 1000 {
		t.Fatalf("plain: %+v", f)
	}
	if got := exp.Sum("lat_seconds_bucket", map[string]string{"le": "+Inf"}); got != 2 {
		t.Fatalf("+Inf bucket: %v", got)
	}
}

// Each malformed exposition is refused.
func TestParseRefuses(t *testing.T) {
	hist := func(body string) string { return "# TYPE h histogram\n" + body }
	for _, c := range []struct{ name, text, why string }{
		{"no final newline", "a 1", "newline"},
		{"bad name", "1a 1\n", "invalid metric name"},
		{"no value", "a\n", "no value"},
		{"two spaces", "a  1\n", "one space"},
		{"bad value", "a one\n", "value"},
		{"bad timestamp", "a 1 x\n", "timestamp"},
		{"unquoted label", "a{x=1} 1\n", "invalid label"},
		{"bad label name", `a{1x="1"} 1` + "\n", "invalid label"},
		{"reserved label", `a{__x="1"} 1` + "\n", "invalid label"},
		{"label twice", `a{x="1",x="2"} 1` + "\n", "twice"},
		{"bad escape", `a{x="\t"} 1` + "\n", "unknown escape"},
		{"unterminated", `a{x="1} 1` + "\n", "unterminated"},
		{"no separator", `a{x="1"y="2"} 1` + "\n", "want , or }"},
		{"bad help escape", "# HELP a x\\ty\n", "unknown escape"},
		{"unknown type", "# TYPE a foo\n", "unknown type"},
		{"type twice", "# TYPE a gauge\n# TYPE a gauge\n", "second TYPE"},
		{"type after samples", "a 1\n# TYPE a gauge\n", "after the family's samples"},
		{"family apart", "a 1\nb 1\na{x=\"1\"} 2\n", "apart"},
		{"series twice", "a 1\na 2\n", "twice"},
		{"negative counter", "# TYPE a counter\na -1\n", "counter at"},
		{"bare histogram sample", hist("h 1\n"), "end in _bucket"},
		{"no +Inf", hist("h_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n"), "+Inf"},
		{"count differs", hist("h_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n"), "_count says"},
		{"not cumulative", hist("h_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"), "cumulative"},
		{"le out of order", hist("h_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"), "after"},
		{"no sum", hist("h_bucket{le=\"+Inf\"} 1\nh_count 1\n"), "_sum"},
		{"bucket without le", hist("h_bucket 1\nh_sum 1\nh_count 1\n"), "without le"},
		{"bad le", hist("h_bucket{le=\"x\"} 1\nh_sum 1\nh_count 1\n"), "le"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.text)
			if err == nil || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("error %v, want one saying %q", err, c.why)
			}
		})
	}
}
