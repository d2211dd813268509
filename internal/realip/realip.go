// Package realip finds the client's address behind reverse proxies that
// the operator trusts (serve's --trusted-proxies). Every per-address
// budget (rate limits, the authentication failure budget, consent-page
// logins) and every log line uses http.Request.RemoteAddr; behind a proxy
// that is the proxy's address, so one abusive client would exhaust the
// budget of everybody behind it. The handler rewrites RemoteAddr to the
// address the trusted proxies report in X-Forwarded-For.
//
// Only the hops the operator named are believed: the chain is read from
// the right (the hop nearest slashd), and the first address not in a
// trusted network is the client. A client that writes its own
// X-Forwarded-For only adds entries on the left, which are never reached
// while an untrusted hop stands between them and slashd.
package realip

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is the set of networks whose connections may name the client
// in X-Forwarded-For. Empty: nobody's (RemoteAddr is the client).
type Trusted []netip.Prefix

// Parse reads a comma-separated list of networks (CIDR, "10.0.0.0/8")
// and addresses (one host, "127.0.0.1" or "::1"). Blank items are
// skipped; an empty list is an empty Trusted.
func Parse(list string) (Trusted, error) {
	var t Trusted
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			t = append(t, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is neither a network (CIDR) nor an address", item)
		}
		a = a.Unmap()
		t = append(t, netip.PrefixFrom(a, a.BitLen()))
	}
	return t, nil
}

// String is the list as Parse reads it.
func (t Trusted) String() string {
	s := make([]string, len(t))
	for i, p := range t {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

func (t Trusted) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the client's address for a connection from peer (an
// http.Request's RemoteAddr, "host:port") that carried the
// X-Forwarded-For header values forwarded (in order). While the hop in
// hand is trusted, the entry to its left is the hop before it; the first
// hop that is not trusted is the client. An entry that is no address
// ends the walk at the trusted hop that wrote it. The answer is peer
// itself when peer is not trusted or nothing was forwarded, otherwise
// "address:0" (the client's port is unknown), a form RemoteAddr takes.
func (t Trusted) Client(peer string, forwarded []string) string {
	if len(t) == 0 || len(forwarded) == 0 {
		return peer
	}
	ap, err := netip.ParseAddrPort(peer)
	if err != nil || !t.contains(ap.Addr()) {
		return peer
	}
	hop, moved := ap.Addr(), false
	for i := len(forwarded) - 1; i >= 0; i-- {
		entries := strings.Split(forwarded[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			if !t.contains(hop) {
				return join(hop, moved, peer)
			}
			a, ok := parseHop(entries[j])
			if !ok {
				return join(hop, moved, peer)
			}
			hop, moved = a, true
		}
	}
	return join(hop, moved, peer)
}

// join renders the client hop as a RemoteAddr.
func join(hop netip.Addr, moved bool, peer string) string {
	if !moved {
		return peer
	}
	return net.JoinHostPort(hop.Unmap().String(), "0")
}

// parseHop reads one X-Forwarded-For entry: an address, as proxies
// write it ("203.0.113.7", "2001:db8::1"), or with a port as some do
// ("203.0.113.7:4711", "[2001:db8::1]:4711").
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}

// Handler serves h with each request's RemoteAddr set to its client's
// address (see Client). With no trusted network it is h.
func (t Trusted) Handler(h http.Handler) http.Handler {
	if len(t) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded := r.Header.Values("X-Forwarded-For")
		if client := t.Client(r.RemoteAddr, forwarded); client != r.RemoteAddr {
			r2 := new(http.Request)
			*r2 = *r
			r2.RemoteAddr = client
			r = r2
		}
		h.ServeHTTP(w, r)
	})
}
