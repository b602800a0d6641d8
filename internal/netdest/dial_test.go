package netdest

import (
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"93.184.215.14", true},
		{"1.1.1.1", true},
		{"203.0.113.80", true}, // documentation space: some networks serve mirrors there
		{"2606:4700::1111", true},
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"0.0.0.0", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"100.100.100.200", false}, // Alibaba's metadata, in CGNAT space
		{"100.64.0.1", false},
		{"168.63.129.16", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"::1", false},
		{"::", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:0:7f00:1", false},
		{"::7f00:1", false},
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::a9fe:a9fe", false},
		{"2002:7f00:1::", false},
		{"fd00:ec2::254", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"fec0::1", false},                              // site-local
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
		{"2001:4860:4860::8888", true},
		{"ff02::1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
	if Public(netip.Addr{}) {
		t.Error("the zero address is public")
	}
}

// TestControlRefusesAtConnectTime: a dialer with Control never opens a
// connection to a loopback listener, however the address is written.
func TestControlRefusesAtConnectTime(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: Control}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost", "0.0.0.0", "::ffff:127.0.0.1", "fe80::1%1", "::1"} {
		c, err := d.Dial("tcp", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
			t.Errorf("dialled %s", host)
			continue
		}
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("%s: %v, want a RefusedError", host, err)
		}
	}
}

// TestLooseAddr: every spelling the C library's resolver reads as an
// address is read as that address; names stay names.
func TestLooseAddr(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0177.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"127.000.000.001", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"169.254.43518", "169.254.169.254"},
		{"[::1]", "::1"},
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"[::ffff:0:7f00:1]", "::ffff:0:7f00:1"},
		{"64:ff9b::7f00:1", "64:ff9b::7f00:1"},
		{"fe80::1%lo", "fe80::1%lo"},
		{"localhost", ""},
		{"docs.python.org", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"1.2.65536", ""},
		{"4294967296", ""},
		{"08", ""},
		{"0x", ""},
		{"1..1", ""},
		{"-1", ""},
		{"", ""},
	} {
		a, ok := LooseAddr(tc.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("LooseAddr(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

func TestLocal(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "[::1]": true, "2130706433": true,
		"0x7f.1": true, "100.100.100.200": true, "[fe80::1%eth0]": true, "10.1.2.3": true,
		"docs.python.org": false, "8.8.8.8": false, "[2606:4700::1111]": false, "localhost.example.com": false,
	} {
		if got := Local(host); got != want {
			t.Errorf("Local(%q) = %v, want %v", host, got, want)
		}
	}
}
