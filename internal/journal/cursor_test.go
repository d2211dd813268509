package journal

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseCursor(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"42", 42, true}, {"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1a", 0, false}, {" 1", 0, false},
		{"00000000000000000001", 0, false},
	} {
		got, err := ParseCursor(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCursor(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseTypes(t *testing.T) {
	for _, c := range []struct {
		in       string
		want     string
		failures bool
		bad      bool
	}{
		{"", "[]", false, false},
		{"rest.request", "[rest.request]", false, false},
		{" rest.request , interaction.answered,rest.request,", "[rest.request interaction.answered]", false, false},
		{"failures", "[rest.request interaction.failed rate_limit.hit journal.dropped]", true, false},
		{"failures,rest.request", "[rest.request]", true, false},
		{"failures,message.created", "", false, true},
		{"rest", "", false, true},
		{"REST.REQUEST", "", false, true},
	} {
		got, failures, err := ParseTypes(c.in)
		if c.bad {
			var unknown ErrUnknownType
			if !errors.As(err, &unknown) {
				t.Errorf("ParseTypes(%q) error = %v; want ErrUnknownType", c.in, err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != c.want || failures != c.failures {
			t.Errorf("ParseTypes(%q) = %v, %v, %v; want %s, %v", c.in, got, failures, err, c.want, c.failures)
		}
	}
}

func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"", "0", "17", "-3", "99999999999999999999", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseCursor(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseCursor(%q) = %d: negative", s, n)
		}
		if back, err := ParseCursor(FormatCursor(n)); err != nil || back != n {
			t.Fatalf("round trip of %d = %d, %v", n, back, err)
		}
	})
}

func FuzzParseTypes(f *testing.F) {
	for _, s := range []string{"", "failures", "rest.request,interaction.failed", ",,", "a,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		types, _, err := ParseTypes(s)
		if err != nil {
			return
		}
		for _, typ := range types {
			found := false
			for _, known := range Types {
				found = found || typ == known
			}
			if !found {
				t.Fatalf("ParseTypes(%q) selects unknown type %q", s, typ)
			}
		}
	})
}
