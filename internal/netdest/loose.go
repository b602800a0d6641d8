package netdest

import (
	"net/netip"
	"strconv"
	"strings"
)

// LooseAddr reads host as the C library's resolver does before it asks
// DNS: an IPv6 literal (brackets and a zone allowed) or an IPv4 address in
// inet_aton's forms — one to four parts, each decimal, octal (leading 0)
// or hex (0x), the last filling the remaining bytes (2130706433,
// 0x7f000001, 0177.0.0.1, 127.1, 0). ok is false for a name. The check on
// a URL's text uses it so that no spelling of a local address reads as a
// name; the connection itself is still judged at connect time (Control).
func LooseAddr(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), true
	}
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := inetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		rest := uint(4 - i) // bytes the last part fills
		if n >= 1<<(8*rest) {
			return netip.Addr{}, false
		}
		v = v<<(8*rest) | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// inetPart reads one part of an inet_aton address: 0x… hex, 0… octal,
// else decimal.
func inetPart(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p[0] == '+' || p[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

// Local reports whether a host, by its text, is this machine or a
// private network: localhost and its subdomains, or any spelling of an
// address that is not Public. A name that resolves there is not caught
// here; Control refuses it when the connection is made.
func Local(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, ok := LooseAddr(h)
	return ok && !Public(a)
}
