package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// byteSize is a flag's size in bytes, written as a number with an
// optional unit: B, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB
// (powers of 1024), case-insensitive ("1GiB", "500MB", "1048576").
type byteSize int64

// sizeUnits are the units byteSize reads, longest first.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

func (s *byteSize) UnmarshalText(text []byte) error {
	in := strings.ToLower(strings.TrimSpace(string(text)))
	num, factor := in, int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(in, u.suffix); ok {
			num, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || n*float64(factor) > float64(1<<62) {
		return fmt.Errorf("%q: want a size such as 1GiB, 500MB or 1048576", text)
	}
	*s = byteSize(n * float64(factor))
	return nil
}

func (s byteSize) MarshalText() ([]byte, error) {
	for _, u := range []struct {
		suffix string
		factor int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s > 0 && int64(s)%u.factor == 0 {
			return []byte(strconv.FormatInt(int64(s)/u.factor, 10) + u.suffix), nil
		}
	}
	return []byte(strconv.FormatInt(int64(s), 10)), nil
}

// checkPublicURL checks --public-url: an absolute http(s) URL without a
// query ("" is left to each request's own host).
func checkPublicURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--public-url %q: want an http(s) URL such as https://slashd.example.com", raw)
	}
	return nil
}
