package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/netdest"
	"github.com/agentls/agentls/internal/permission"
)

// countingListener counts the connections made to a loopback port, on
// 127.0.0.1 and, where the system has it, on ::1 at the same port.
type countingListener struct {
	port string
	hits atomic.Int32
}

func listenCounting(t *testing.T) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	cl := &countingListener{port: port}
	lns := []net.Listener{ln}
	if ln6, err := net.Listen("tcp6", "[::1]:"+port); err == nil {
		lns = append(lns, ln6)
	}
	for _, l := range lns {
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				cl.hits.Add(1)
				c.Close()
			}
		}()
	}
	return cl
}

// cLibLookup stands in for the C library's resolver (macOS's default
// through cgo): it reads every numeric spelling as inet_aton does, and
// resolves the names in names. It is the worst case for a check on the
// URL's text.
func cLibLookup(names map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, err := netip.ParseAddr(host); err == nil {
			return []netip.Addr{a}, nil
		}
		if a, ok := netdest.LooseAddr(host); ok {
			return []netip.Addr{a}, nil
		}
		var out []netip.Addr
		for _, s := range names[strings.ToLower(host)] {
			out = append(out, netip.MustParseAddr(s))
		}
		if out == nil {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return out, nil
	}
}

// localSpellings are hosts that reach this machine, a private network or
// a metadata service, each written another way.
var localSpellings = []string{
	"127.0.0.1", "2130706433", "0x7f000001", "0X7F000001", "017700000001", "0177.0.0.1", "0177.1", "0x7f.1",
	"127.1", "127.0.1", "127.000.000.001", "0", "0.0.0.0", "127.0.0.1.",
	"[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:0:7f00:1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]",
	"[64:ff9b:1::7f00:1]", "[2002:7f00:1::]", "[fe80::1%251]",
	"100.100.100.200", "100.64.0.1", "168.63.129.16", "169.254.169.254", "169.254.43518", "[fd00:ec2::254]",
	"10.0.0.1", "192.168.0.1", "172.16.0.1",
	"localhost", "internal.test", "metadata.test", "mixed.test",
}

// testNames are the names the test resolver knows: each resolves to a
// local or private address (mixed.test to a public one first).
var testNames = map[string][]string{
	"localhost":     {"127.0.0.1", "::1"},
	"internal.test": {"127.0.0.1"},
	"metadata.test": {"169.254.169.254"},
	"mixed.test":    {"::ffff:127.0.0.1", "127.0.0.1"},
}

// TestFetchRefusedAtConnectTime: however the host is written, and when a
// name resolves there, fetch never connects to this machine, a private
// network or a metadata service. With the C library's reading of the
// host (the test resolver), every attempt reaches the dialer and is
// refused there; with the system's resolver, as agentls runs, the same.
// The listener sees nothing.
func TestFetchRefusedAtConnectTime(t *testing.T) {
	cl := listenCounting(t)
	for _, variant := range []struct {
		name string
		net  fetchNet
	}{
		{"C library resolver", fetchNet{lookup: cLibLookup(testNames)}},
		{"system resolver", fetchNet{}},
	} {
		tool := newFetchTool(t.TempDir(), variant.net)
		for _, host := range localSpellings {
			url := "http://" + host + ":" + cl.port + "/secret"
			res := fetchRun(t, tool, `{"url":"`+url+`"}`)
			if !res.IsError {
				t.Errorf("%s: %s fetched: %.200s", variant.name, url, res.Content)
				continue
			}
			if variant.net.lookup != nil && !strings.Contains(res.Content, "refused: ") {
				t.Errorf("%s: %s: %s, want a refusal at connect time", variant.name, url, res.Content)
			}
		}
	}
	if n := cl.hits.Load(); n != 0 {
		t.Errorf("the listener saw %d connections", n)
	}
	// The refusal says what happened and what to do.
	tool := newFetchTool(t.TempDir(), fetchNet{lookup: cLibLookup(testNames)})
	res := fetchRun(t, tool, `{"url":"http://internal.test:`+cl.port+`/"}`)
	for _, want := range []string{"refused: 127.0.0.1 is on this machine or a private network", "for a local service run a command"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("refusal %q lacks %q", res.Content, want)
		}
	}
}

// TestFetchRefusedThroughGate: with a rule allowing every fetch and a
// person who approves every question, no spelling reaches the listener:
// the ones that read as local are blocked before anyone is asked, the
// names are refused when the connection is made.
func TestFetchRefusedThroughGate(t *testing.T) {
	cl := listenCounting(t)
	pol := permission.DefaultPolicy()
	pol.Rules = map[string]permission.Kind{"net.fetch": permission.Allow}
	g, err := permission.New(permission.Options{Policy: pol, Asker: approveAll{}})
	if err != nil {
		t.Fatal(err)
	}
	tool := newFetchTool(t.TempDir(), fetchNet{lookup: cLibLookup(testNames)})
	blocked, refused := 0, 0
	for _, host := range localSpellings {
		in := json.RawMessage(`{"url":"http://` + host + `:` + cl.port + `/"}`)
		req, err := tool.Describe(context.Background(), Call{Input: in})
		if err != nil {
			t.Errorf("%s: Describe: %v", host, err)
			continue
		}
		d := g.Check(context.Background(), req)
		if d.Kind != permission.Allow {
			if d.Source != permission.SourceBlock || !strings.Contains(d.Reason, "never reaches this machine") {
				t.Errorf("%s: %+v, want blocked naming the local address", host, d)
			}
			blocked++
			continue
		}
		res, err := tool.Run(context.Background(), Call{Input: in})
		if err != nil || !res.IsError || !strings.Contains(res.Content, "refused: ") {
			t.Errorf("%s: allowed by the rule, then %+v, %v: want a refusal", host, res, err)
		}
		refused++
	}
	if n := cl.hits.Load(); n != 0 {
		t.Errorf("the listener saw %d connections", n)
	}
	if refused != len(testNames)-1 { // localhost is blocked by its text
		t.Errorf("%d names refused at connect time, want %d (blocked: %d)", refused, len(testNames)-1, blocked)
	}
}

// approveAll answers every question with "allow".
type approveAll struct{}

func (approveAll) Ask(context.Context, permission.Question) (permission.Answer, error) {
	return permission.AnswerAllow, nil
}

// TestFetchRedirectNewDestination: a server the test allows redirects to
// the listener on 127.0.0.1, to its own host on the listener's port, to
// another scheme, and to its own host and port after the name was
// rebound to 0.0.0.0: none is followed, and the listener sees nothing.
func TestFetchRedirectNewDestination(t *testing.T) {
	cl := listenCounting(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Connection", "close") // each request dials again
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.1:"+cl.port+"/", http.StatusFound)
		case "/to-port":
			http.Redirect(w, r, "http://allowed.test:"+cl.port+"/", http.StatusFound)
		case "/to-https":
			http.Redirect(w, r, "https://allowed.test:"+cl.port+"/", http.StatusFound)
		case "/to-name":
			http.Redirect(w, r, "http://internal.test:"+cl.port+"/", http.StatusFound)
		case "/rebind":
			http.Redirect(w, r, "/landing", http.StatusFound)
		default:
			fmt.Fprint(w, "landed")
		}
	}))
	defer srv.Close()
	srvAddr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	_, srvPort, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var mu sync.Mutex
	lookups := map[string]int{}
	resolve := cLibLookup(testNames)
	n := fetchNet{
		allow: func(ap netip.AddrPort) bool { return ap == srvAddr },
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			mu.Lock()
			lookups[host]++
			n := lookups[host]
			mu.Unlock()
			switch {
			case host == "allowed.test":
				return []netip.Addr{srvAddr.Addr()}, nil
			case host == "rebind.test" && n == 1:
				return []netip.Addr{srvAddr.Addr()}, nil
			case host == "rebind.test":
				return []netip.Addr{netip.MustParseAddr("0.0.0.0")}, nil // the same port, on this machine
			}
			return resolve(ctx, host)
		},
	}
	tool := newFetchTool(t.TempDir(), n)
	base := "http://allowed.test:" + srvPort
	if res := fetchRun(t, tool, `{"url":"`+base+`/landing"}`); res.IsError || !strings.Contains(res.Content, "landed") {
		t.Fatalf("the allowed server: %+v", res)
	}
	for _, tc := range []struct{ url, want string }{
		{base + "/to-loopback", "new destination"},
		{base + "/to-port", "new destination"},
		{base + "/to-https", "new destination"},
		{base + "/to-name", "new destination"},
		{"http://rebind.test:" + srvPort + "/rebind", "refused: 0.0.0.0"},
	} {
		res := fetchRun(t, tool, `{"url":"`+tc.url+`"}`)
		if !res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s: %+v, want %q", tc.url, res, tc.want)
		}
	}
	if got := hits.Load(); got != 6 { // /landing, then each redirecting page once
		t.Errorf("the allowed server saw %d requests, want 6 (a redirect was followed back to it)", got)
	}
	if got := cl.hits.Load(); got != 0 {
		t.Errorf("the listener saw %d connections", got)
	}
}
