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
	b, _ := json.Marshal(struct {
		ID   ID
		Zero ID
		Max  ID
		Ptr  *ID
		Keys map[ID]int
	}{ID: 42, Max: 1<<64 - 1, Ptr: new(ID(7)), Keys: map[ID]int{9: 1}})
	if want := `{"ID":"42","Zero":"0","Max":"18446744073709551615","Ptr":"7","Keys":{"9":1}}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	for _, c := range []struct {
		in   string
		want ID
		ok   bool
	}{
		{`"7"`, 7, true},
		{`8`, 8, true},
		{`"\u0034\u0032"`, 42, true}, // escaped digits: the general decoder
		{`"18446744073709551615"`, 1<<64 - 1, true},
		{`"18446744073709551616"`, 0, false},
		{`""`, 0, false},
		{`"07"`, 0, false},
		{`"1\"`, 0, false},
		{`"a"`, 0, false},
		{`-1`, 0, false},
		{`1.5`, 0, false},
	} {
		var v struct{ A ID }
		err := json.Unmarshal([]byte(`{"A":`+c.in+`}`), &v)
		if (err == nil) != c.ok || v.A != c.want {
			t.Errorf("unmarshal %s: %v %d, want %d (ok %v)", c.in, err, v.A, c.want, c.ok)
		}
	}
}

// FuzzUnmarshalJSON: the fast path for plain strings agrees with decoding
// the string first and parsing it.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`"1"`, `"\u0031"`, `12`, `"`, `""`, `"1"2"`, `"18446744073709551615"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var got ID
		err := got.UnmarshalJSON([]byte(in))
		var want ID
		var werr error
		var str string
		if len(in) > 0 && in[0] == '"' {
			if werr = json.Unmarshal([]byte(in), &str); werr == nil {
				want, werr = Parse(str)
			}
		} else {
			want, werr = Parse(in)
		}
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("UnmarshalJSON(%q) = %d, %v; want %d, %v", in, got, err, want, werr)
		}
	})
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
