package netdest

import "testing"

func TestRemoteHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"host:/tmp", "host"},
		{"user@host.example:/srv", "host.example"},
		{"rsync://mirror.example/module", "mirror.example"},
		{"[::1]:/tmp", "::1"},
		{"user@[fe80::1]:/tmp", "fe80::1"},
		{"[broken:/tmp", ""},
		{"./local:file", ""},
		{"dir/a:b", ""},
		{`C:\Users\x`, ""},
		{"C:/Users/x", ""},
		{"C:", ""},
		{"ab:path", "ab"},
		{"plain", ""},
		{"--rsh=ssh", ""},
	} {
		if got := RemoteHost(tc.in); got != tc.want {
			t.Errorf("RemoteHost(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestURLAndHost(t *testing.T) {
	for _, tc := range []struct{ in, url, host string }{
		{"https://api.example.com/v1", "https://api.example.com/v1", "api.example.com"},
		{"--url=https://x.example:8443/p", "https://x.example:8443/p", "x.example"},
		{"git+https://github.com/x/y", "git+https://github.com/x/y", "github.com"},
		{"://nothing", "", ""},
		{"no url", "", ""},
		{"http://user@[::1]:80/", "http://user@[::1]:80/", "::1"},
	} {
		if got := URLIn(tc.in); got != tc.url {
			t.Errorf("URLIn(%q) = %q, want %q", tc.in, got, tc.url)
		}
		if got := URLHost(tc.in); got != tc.host {
			t.Errorf("URLHost(%q) = %q, want %q", tc.in, got, tc.host)
		}
	}
}
