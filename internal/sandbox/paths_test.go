package sandbox

import (
	"slices"
	"testing"
)

func TestProgramFolder(t *testing.T) {
	for _, tc := range []struct{ home, real, want string }{
		{"/home/a", "/home/a/.nvm/versions/node/v22/bin/node", "/home/a/.nvm/versions/node/v22"},
		{"/home/a", "/home/a/sdk/go1.26/bin/go", "/home/a/sdk/go1.26"},
		{"/home/a", "/home/a/.cargo/bin/cargo", "/home/a/.cargo/bin"}, // not ~/.cargo: credentials.toml
		{"/home/a", "/home/a/bin/tool", "/home/a/bin"},
		{"/home/a", "/home/a/go/bin/gopls", "/home/a/go/bin"},
		{"/home/a", "/opt/tool/bin/x", "/opt/tool"},
		{"/home/a", "/x", "/"},
		{"", "/usr/local/go/bin/go", "/usr/local/go"},
	} {
		if got := programFolder(tc.home, tc.real); got != tc.want {
			t.Errorf("programFolder(%q, %q) = %q, want %q", tc.home, tc.real, got, tc.want)
		}
	}
}

// TestDefaultPolicy: the home folder itself and the files that hold
// credentials are in neither list; the workspace, the session folder, the
// caches and the person's additions are.
func TestDefaultPolicy(t *testing.T) {
	env := map[string]string{"GOPATH": "/home/a/go", "CARGO_HOME": "/home/a/.cargo"}
	m := Machine{Home: "/home/a", GOOS: "linux", Getenv: func(k string) string { return env[k] }}
	pol := DefaultPolicy(m, []string{"/home/a/src/proj"}, "/tmp/sess", []string{"~/notes"}, []string{"~/.cache/mytool"})
	for _, p := range []string{"/home/a", "/home/a/.ssh", "/home/a/.aws", "/home/a/.gitconfig", "/home/a/.npmrc", "/home/a/.docker",
		"/home/a/.cargo", "/home/a/.cargo/credentials.toml", "/home/a/.config", "/home/a/.netrc", "/home/b", "/tmp", "/root"} {
		if read, write := pol.Allows(p); read || write {
			t.Errorf("%s is reachable: read %v write %v", p, read, write)
		}
	}
	for _, p := range []string{"/home/a/src/proj", "/tmp/sess", "/home/a/go/pkg/mod", "/home/a/.cache/go-build", "/home/a/.npm",
		"/home/a/.cargo/registry", "/home/a/.cache/mytool"} {
		if _, write := pol.Allows(p); !write {
			t.Errorf("%s is not writable", p)
		}
	}
	for _, p := range []string{"/usr/bin/git", "/etc/passwd", "/home/a/go/bin/gopls", "/home/a/.cargo/bin/cargo", "/home/a/notes", "/proc/self/status"} {
		if read, _ := pol.Allows(p); !read {
			t.Errorf("%s is not readable", p)
		}
	}
	if !slices.Contains(pol.Write, "/home/a/src/proj") || !pol.Network {
		t.Errorf("policy = %+v", pol)
	}
}
