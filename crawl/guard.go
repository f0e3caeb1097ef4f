package crawl

import (
	"fmt"
	"net/netip"
	"syscall"
)

// blockedError reports a destination the egress guard refuses: an address
// that is not on the public internet.
type blockedError struct {
	addr  netip.Addr
	class string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("destination %s is a private address (%s); use --allow-private", e.addr, e.class)
}

// specialRange is a range of addresses that is not publicly routable.
type specialRange struct {
	prefix netip.Prefix
	class  string
}

// specialRanges lists the IANA special-purpose ranges the guard refuses,
// most specific first where they overlap.
var specialRanges = func() []specialRange {
	list := []struct{ prefix, class string }{
		{"0.0.0.0/8", "this network"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "carrier-grade NAT"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "relay anycast"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible"},
		{"64:ff9b:1::/48", "local NAT64"},
		{"100::/64", "discard"},
		{"2001::/23", "protocol assignments"},
		{"2001:db8::/32", "documentation"},
		{"3fff::/20", "documentation"},
		{"fc00::/7", "private"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	}
	out := make([]specialRange, len(list))
	for i, r := range list {
		out[i] = specialRange{netip.MustParsePrefix(r.prefix), r.class}
	}
	return out
}()

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// classify reports whether a is outside the public internet and, if so,
// which kind of range it belongs to. IPv4-mapped IPv6 addresses are judged
// as the IPv4 address they carry, and so are the IPv4 addresses embedded in
// NAT64 and 6to4 addresses.
func classify(a netip.Addr) (class string, blocked bool) {
	if !a.IsValid() {
		return "invalid", true
	}
	a = a.WithZone("").Unmap()
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r.class, true
		}
	}
	if a.Is6() {
		b := a.As16()
		var inner netip.Addr
		switch {
		case nat64Prefix.Contains(a):
			inner = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(a):
			inner = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
		if inner.IsValid() {
			if class, blocked := classify(inner); blocked {
				return class, true
			}
		}
	}
	return "", false
}

// checkAddr returns a *blockedError when a is not a public address.
func checkAddr(a netip.Addr) error {
	if class, blocked := classify(a); blocked {
		return &blockedError{addr: a.WithZone(""), class: class}
	}
	return nil
}

// control is the guarded dialer's Control function: it sees the resolved
// address actually being connected, so a host name that resolves (or
// re-resolves) to a private address is refused at connect time, on every
// redirect hop and every new connection.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return fmt.Errorf("network %s is not allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	return f.checkAddrPort(ap)
}

// checkAddrPort applies the guard to one destination. exempt holds
// test-only exceptions (one httptest server's exact address), so that the
// production guard can be tested against a local server.
func (f *Fetcher) checkAddrPort(ap netip.AddrPort) error {
	if f.exempt[netip.AddrPortFrom(ap.Addr().WithZone("").Unmap(), ap.Port())] {
		return nil
	}
	return checkAddr(ap.Addr())
}
