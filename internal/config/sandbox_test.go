package config

import (
	"strings"
	"testing"
)

// TestSandboxOnlyFromTheUserFile: the sandbox is the user file's to set;
// a workspace file (trusted or not) and the editor's settings are ignored
// with a warning, and the merged config keeps the user's.
func TestSandboxOnlyFromTheUserFile(t *testing.T) {
	root := t.TempDir()
	user := Config{Sandbox: Sandbox{Writable: []string{"~/.cache/mytool"}}}
	loose := Sandbox{Mode: "off", Writable: []string{"/"}, Env: []string{"*"}}
	for _, trusted := range [][]string{nil, {root}} {
		out, warns, err := Resolve(user, Config{Sandbox: loose}, Flags{}, map[string]Config{root: {Sandbox: loose}}, trusted)
		if err != nil {
			t.Fatal(err)
		}
		if out.Sandbox.Mode != "" || len(out.Sandbox.Writable) != 1 || out.Sandbox.Writable[0] != "~/.cache/mytool" || len(out.Sandbox.Env) != 0 {
			t.Errorf("trusted %v: sandbox = %+v, want the user file's", trusted, out.Sandbox)
		}
		var n int
		for _, w := range warns {
			if w.Key == "sandbox" && strings.Contains(w.Message, "only the user config file sets the sandbox") {
				n++
			}
		}
		if n != 2 {
			t.Errorf("trusted %v: %d sandbox warnings, want one for the editor and one for the workspace file: %v", trusted, n, warns)
		}
	}
}

func TestSandboxValidate(t *testing.T) {
	for _, tc := range []struct {
		s    Sandbox
		want string
	}{
		{Sandbox{Mode: "strict"}, `sandbox.mode "strict"`},
		{Sandbox{Readable: []string{"relative"}}, `sandbox.readable "relative"`},
		{Sandbox{Writable: []string{"~user/x"}}, `sandbox.writable "~user/x"`},
		{Sandbox{Env: []string{"A=B"}}, `sandbox.env "A=B"`},
		{Sandbox{Mode: "required", Readable: []string{"~/notes", "/opt/x"}, Env: []string{"MY_*"}}, ""},
	} {
		err := Config{Sandbox: tc.s}.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	if _, err := Parse("x.json", []byte(`{"sandbox": {"mode": "required", "writable": ["~/.cache/x"]}}`)); err != nil {
		t.Errorf("parse: %v", err)
	}
	if _, err := Parse("x.json", []byte(`{"sandbox": {"writeable": ["~/.cache/x"]}}`)); err == nil {
		t.Error("a misspelt sandbox key was accepted")
	}
}
