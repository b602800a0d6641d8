package netdest

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// nonPublic are the address blocks a request from agentls must never
// reach on its own: this machine, private networks, link-local, shared
// (CGNAT) space where clouds put metadata services, multicast and
// reserved blocks, and the IPv6 forms that carry an IPv4 address (NAT64,
// 6to4, Teredo). The documentation and benchmarking blocks are left out: some
// networks serve package mirrors or fake-IP DNS from them, and no local
// service listens there.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("168.63.129.16/32"), // Azure's host service
	netip.MustParsePrefix("::/96"),            // unspecified, loopback, IPv4-compatible
	netip.MustParsePrefix("::ffff:0:0:0/96"),  // IPv4-translated
	netip.MustParsePrefix("64:ff9b::/96"),     // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),   // local NAT64
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"), // Teredo: an IPv4 address inside
	netip.MustParsePrefix("2002::/16"), // 6to4
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fec0::/10"), // site-local, deprecated but still routed by some stacks
	netip.MustParsePrefix("ff00::/8"),
}

// Public reports whether ip is an address on the public internet: not
// this machine, a private or link-local network, a metadata service, a
// reserved block, nor an IPv6 address that wraps one of those.
func Public(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap().WithZone("") // a prefix never contains a zoned address: fe80::1%eth0 would pass
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Control refuses a connection to an address that is not Public. It is a
// net.Dialer.Control hook, so it judges the address the socket really
// connects to after every name was resolved, on every redirect and retry,
// whatever spelling the URL used (2130706433, 0x7f000001, 127.1,
// [::ffff:7f00:1], a name that resolves to a private address).
func Control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("agentls: refused %s: %w", address, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("agentls: refused %s: not an IP address", address)
	}
	if !Public(ip) {
		return &RefusedError{Addr: ip}
	}
	return nil
}

// RefusedError is a connection Control refused.
type RefusedError struct{ Addr netip.Addr }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("agentls: refused to connect to %s: it is on this machine or a private network, which agentls never reaches on its own", e.Addr)
}
