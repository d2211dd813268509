package main

import "testing"

func TestByteSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1GiB", 1 << 30, true},
		{"1gib", 1 << 30, true},
		{"500MB", 500e6, true},
		{"1.5MiB", 3 << 19, true},
		{"1048576", 1 << 20, true},
		{" 2 KiB ", 2048, true},
		{"10B", 10, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"-1GiB", 0, false},
		{"1XB", 0, false},
		{"9999999TiB", 0, false},
	} {
		var s byteSize
		err := s.UnmarshalText([]byte(c.in))
		if (err == nil) != c.ok || (c.ok && int64(s) != c.want) {
			t.Errorf("%q: %d, %v; want %d (ok %v)", c.in, s, err, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		size byteSize
		want string
	}{{1 << 30, "1GiB"}, {250 << 20, "250MiB"}, {1000, "1000"}} {
		if b, _ := c.size.MarshalText(); string(b) != c.want {
			t.Errorf("%d: %s, want %s", c.size, b, c.want)
		}
	}
}

// FuzzByteSize: any text is read without panicking, and what is read
// is not negative and reads back the same.
func FuzzByteSize(f *testing.F) {
	for _, s := range []string{"1GiB", "500MB", "1.5mib", "12", "-3", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s byteSize
		if s.UnmarshalText([]byte(in)) != nil {
			return
		}
		if s < 0 {
			t.Fatalf("%q: %d", in, s)
		}
		b, _ := s.MarshalText()
		var again byteSize
		if err := again.UnmarshalText(b); err != nil || again != s {
			t.Fatalf("%q → %d → %s → %d, %v", in, s, b, again, err)
		}
	})
}

func TestCheckPublicURL(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{"": true, "https://slashd.example.com": true, "http://10.0.0.1:8080/": true,
		"slashd.example.com": false, "ftp://x": false, "https://x/?a=1": false, "https://": false} {
		if err := checkPublicURL(in); (err == nil) != ok {
			t.Errorf("%q: %v", in, err)
		}
	}
}
