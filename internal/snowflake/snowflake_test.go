package snowflake

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want ID
		ok   bool
	}{
		{"0", 0, true},
		{"175928847299117063", 175928847299117063, true},
		{"18446744073709551615", 18446744073709551615, true},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"01", 0, false},
		{"12a", 0, false},
		{" 1", 0, false},
		{"1.0", 0, false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestTimeRoundTrip(t *testing.T) {
	// The documented example: 175928847299117063 was minted 2016-04-30 11:18:25.796 UTC.
	id := ID(175928847299117063)
	want := time.Date(2016, 4, 30, 11, 18, 25, 796e6, time.UTC)
	if !id.Time().Equal(want) {
		t.Fatalf("Time() = %v, want %v", id.Time(), want)
	}
	if FromTime(want).Time() != want {
		t.Fatalf("FromTime round trip failed")
	}
}

func TestGeneratorMonotonic(t *testing.T) {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGenerator(3, func() time.Time { return frozen })
	prev := ID(0)
	for i := 0; i < 10000; i++ { // crosses the 4096-per-ms boundary twice
		id := g.Next()
		if id <= prev {
			t.Fatalf("id %d not greater than %d at %d", id, prev, i)
		}
		prev = id
	}
	back := frozen.Add(-time.Hour)
	g.now = func() time.Time { return back }
	if id := g.Next(); id <= prev {
		t.Fatalf("clock step back produced a smaller id")
	}
}

func TestJSON(t *testing.T) {
	b, _ := json.Marshal(struct{ ID ID }{42})
	if string(b) != `{"ID":"42"}` {
		t.Fatalf("got %s", b)
	}
	var v struct{ A, B ID }
	if err := json.Unmarshal([]byte(`{"A":"7","B":8}`), &v); err != nil || v.A != 7 || v.B != 8 {
		t.Fatalf("unmarshal: %v %+v", err, v)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1", "18446744073709551615", "abc", "-5", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err == nil && id.String() != s {
			t.Fatalf("Parse(%q) round-trips to %q", s, id.String())
		}
	})
}

func TestAfter(t *testing.T) {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGenerator(5, func() time.Time { return frozen })
	first := g.Next()
	h := NewGenerator(5, func() time.Time { return frozen }) // same node, same millisecond
	h.After(first)
	if next := h.Next(); next <= first {
		t.Fatalf("After(%d) then Next() = %d", first, next)
	}
}
