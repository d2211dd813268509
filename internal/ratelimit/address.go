package ratelimit

import (
	"net/netip"
	"strings"
)

// AddressKey is the rate limit key of the client at remoteAddr (an
// http.Request's RemoteAddr, "host:port"): its IPv4 address, or the /64
// network of an IPv6 one. One IPv6 host commonly holds a whole /64 (a
// home, a server), so counting per address would give it 2^64 budgets,
// and the limiter as many keys. An IPv4-mapped IPv6 address is the IPv4
// address. A remoteAddr that is not an IP address (a Unix socket's) is
// its own key.
func AddressKey(remoteAddr string) string {
	if i := strings.LastIndexByte(remoteAddr, ':'); i >= 0 && strings.IndexByte(remoteAddr[:i], ':') < 0 {
		return remoteAddr[:i] // "a.b.c.d:port": the common case, without allocating
	}
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(remoteAddr); err == nil {
		a = ap.Addr()
	} else if a, err = netip.ParseAddr(remoteAddr); err != nil {
		return remoteAddr
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return remoteAddr
	}
	return p.String()
}
