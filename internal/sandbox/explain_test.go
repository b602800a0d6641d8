package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	for _, d := range []string{ws, filepath.Join(home, ".ssh"), filepath.Join(home, "etc")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/id_rsa", "etc/motd", "ws/x"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &Sandbox{status: Status{Confined: true}, proxyURL: "http://127.0.0.1:1",
		opts: Options{Policy: Policy{Read: []string{"/usr", home + "/etc"}, Write: []string{ws}, Network: true}}}
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"go: creating work dir: mkdir " + home + "/.cache/go-build/x: permission denied", []string{"writing " + home + "/.cache/go-build/x is outside the workspace"}},
		{"touch: cannot touch '" + home + "/etc/motd': Permission denied", []string{"writing " + home + "/etc/motd is outside the workspace"}},
		{"sh: 1: cannot create " + ws + "/x: Permission denied", nil},
		{"cat: " + home + "/.ssh/id_rsa: Permission denied", []string{home + "/.ssh/id_rsa is outside what commands may read", "sandbox.readable"}},
		{"PermissionError: [Errno 13] Permission denied: '" + home + "/.profile'", []string{"writing " + home + "/.profile", "sandbox.writable"}},
		{"curl: (6) Could not resolve host: example.com", []string{"only through agentls's proxy"}},
		{"dial tcp 1.2.3.4:443: connect: permission denied", []string{"only through agentls's proxy"}},
		{"all fine", nil},
	} {
		got := strings.Join(s.Explain(tc.out), "\n")
		if len(tc.want) == 0 && got != "" {
			t.Errorf("Explain(%q) = %q, want nothing", tc.out, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("Explain(%q) = %q, want %q", tc.out, got, w)
			}
		}
	}
	var none *Sandbox
	if n := none.Explain("cat: /x: Permission denied"); n != nil {
		t.Errorf("an unconfined run was explained: %q", n)
	}
}
