package tools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/netdest"
)

// fetchNet is how fetch reaches the network. Its zero value is what the
// tool uses: the system's resolver, and netdest.Control judging the
// address every connection really goes to, after names are resolved, on
// the first request and on every redirect. Tests set lookup (a resolver
// standing in for the system's) and allow (their own servers on
// loopback); every other address is still judged by netdest.Control.
type fetchNet struct {
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	allow  func(netip.AddrPort) bool
}

// control is the dialer's Control hook.
func (n fetchNet) control(network, address string, c syscall.RawConn) error {
	if n.allow != nil {
		if ap, err := netip.ParseAddrPort(address); err == nil && n.allow(ap) {
			return nil
		}
	}
	return netdest.Control(network, address, c)
}

// dial connects to addr (host:port); the connection is judged when it is
// made, whatever the host's spelling.
func (n fetchNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: n.control}
	if n.lookup == nil {
		return d.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := n.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	var first error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// transport connects directly: a proxy from the environment would resolve
// the name where the connect-time check cannot see the address.
func (n fetchNet) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = n.dial
	return tr
}

// sameDestination reports whether a redirect stays on the destination the
// gate approved: the same scheme, host and port. Anything else is a new
// destination the model must fetch (and the gate judge) itself.
func sameDestination(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && effectivePort(a) == effectivePort(b)
}

// effectivePort is the URL's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// localHost says why a URL's host is on this machine or a private
// network by its text (localhost, any spelling of a non-public address),
// or "". Names that resolve there are refused at connect time instead.
func localHost(host string) string {
	if !netdest.Local(host) {
		return ""
	}
	if a, ok := netdest.LooseAddr(host); ok && a.String() != strings.Trim(host, "[]") {
		return fmt.Sprintf("%s is %s", host, a)
	}
	return host + " is local"
}
