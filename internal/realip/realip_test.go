package realip

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{"", "", false},
		{" , ", "", false},
		{"10.0.0.0/8", "10.0.0.0/8", false},
		{"10.1.2.3/8", "10.0.0.0/8", false},
		{"127.0.0.1", "127.0.0.1/32", false},
		{"::1, 192.168.0.0/16", "::1/128,192.168.0.0/16", false},
		{"::ffff:10.0.0.1", "10.0.0.1/32", false},
		{"fe80::1%eth0", "", true},
		{"proxy.example", "", true},
		{"10.0.0.0/33", "", true},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if (err != nil) != c.err {
			t.Errorf("Parse(%q): error %v, want error %v", c.in, err, c.err)
			continue
		}
		if err == nil && got.String() != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClient(t *testing.T) {
	trusted, err := Parse("127.0.0.1, 10.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		peer      string
		forwarded []string
		want      string
	}{
		{"nothing forwarded", "127.0.0.1:5000", nil, "127.0.0.1:5000"},
		{"untrusted peer's header is ignored", "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9:5000"},
		{"one proxy", "127.0.0.1:5000", []string{"198.51.100.1"}, "198.51.100.1:0"},
		{"spoofed entries left of the client are not reached", "127.0.0.1:5000",
			[]string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1:0"},
		{"two trusted proxies", "127.0.0.1:5000", []string{"198.51.100.1, 10.1.1.1"}, "198.51.100.1:0"},
		{"several header lines read as one list", "127.0.0.1:5000", []string{"6.6.6.6, 198.51.100.1", "10.1.1.1"}, "198.51.100.1:0"},
		{"every hop trusted: the leftmost", "127.0.0.1:5000", []string{"10.2.2.2, 10.1.1.1"}, "10.2.2.2:0"},
		{"garbage ends the walk at the proxy that wrote it", "127.0.0.1:5000", []string{"198.51.100.1, nonsense, 10.1.1.1"}, "10.1.1.1:0"},
		{"garbage right behind the peer", "127.0.0.1:5000", []string{"unknown"}, "127.0.0.1:5000"},
		{"empty header", "127.0.0.1:5000", []string{""}, "127.0.0.1:5000"},
		{"IPv6 client", "[::1]:5000", []string{"2001:db8::7"}, "[2001:db8::7]:0"},
		{"entry with a port", "127.0.0.1:5000", []string{"198.51.100.1:4711"}, "198.51.100.1:0"},
		{"bracketed IPv6 with a port", "127.0.0.1:5000", []string{"[2001:db8::7]:4711"}, "[2001:db8::7]:0"},
		{"mapped IPv4 client is IPv4", "127.0.0.1:5000", []string{"::ffff:198.51.100.1"}, "198.51.100.1:0"},
		{"peer that is no address", "@unix", []string{"198.51.100.1"}, "@unix"},
	}
	for _, c := range cases {
		if got := trusted.Client(c.peer, c.forwarded); got != c.want {
			t.Errorf("%s: Client(%q, %q) = %q, want %q", c.name, c.peer, c.forwarded, got, c.want)
		}
	}
	if got := Trusted(nil).Client("127.0.0.1:5000", []string{"198.51.100.1"}); got != "127.0.0.1:5000" {
		t.Errorf("no trusted proxies: %q, want the peer", got)
	}
}

func TestHandlerRewritesRemoteAddr(t *testing.T) {
	trusted, _ := Parse("192.0.2.0/24")
	var seen string
	h := trusted.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr }))
	r := httptest.NewRequest("GET", "/", nil) // RemoteAddr 192.0.2.1:1234
	r.Header.Add("X-Forwarded-For", "198.51.100.1")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen != "198.51.100.1:0" || r.RemoteAddr != "192.0.2.1:1234" {
		t.Errorf("handler saw %q (the caller's request now %q), want 198.51.100.1:0 and the caller's untouched", seen, r.RemoteAddr)
	}
}

// FuzzClient: any header is answered without a panic, and the answer is
// the peer or a host:port whose host parses.
func FuzzClient(f *testing.F) {
	f.Add("127.0.0.1:1", "198.51.100.1, 10.0.0.1")
	f.Add("[::1]:1", "[2001:db8::1]:80,::1")
	f.Add("127.0.0.1:1", ",,,")
	trusted, _ := Parse("127.0.0.0/8, 10.0.0.0/8, ::1")
	f.Fuzz(func(t *testing.T, peer, header string) {
		got := trusted.Client(peer, []string{header})
		if got == peer {
			return
		}
		if _, ok := parseHop(got); !ok {
			t.Fatalf("Client(%q, %q) = %q: not an address", peer, header, got)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add("10.0.0.0/8, ::1")
	f.Fuzz(func(t *testing.T, list string) {
		got, err := Parse(list)
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		if err != nil || again.String() != got.String() {
			t.Fatalf("Parse(%q) = %q, which parses as %q (%v)", list, got, again, err)
		}
	})
}
