package config_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func TestParseLSP(t *testing.T) {
	c, err := config.Parse("c.json", []byte(`{"auto_lsp": false, "lsp": {
		"gopls": {"init_options": {"staticcheck": true}, "env": {"GOFLAGS": "-tags=x"}},
		"zls": {"command": "zls", "filetypes": ["zig"], "root_markers": ["build.zig"], "settings": {"zig": {"x": 1}}},
		"old": {"disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.AutoLSP == nil || *c.AutoLSP || !reflect.DeepEqual(c.LSP["zls"].Command, []string{"zls"}) ||
		!reflect.DeepEqual(c.LSP["zls"].RootMarkers, []string{"build.zig"}) || c.LSP["gopls"].Env["GOFLAGS"] != "-tags=x" || !c.LSP["old"].Disabled {
		t.Errorf("parsed %+v", c)
	}
	if len(c.LSP) != 3 {
		t.Errorf("servers %+v", c.LSP)
	}
	for _, bad := range []struct{ json, want string }{
		{`{"lsp": {"zls": {"command": ["zls"], "filetype": ["zig"]}}}`, `lsp.zls: unknown key "filetype"`},
		{`{"lsp": {"zls": {"filetypes": ["zig"]}}}`, `lsp.zls: "command" is required`},
		{`{"lsp": {"zls": {"command": 3}}}`, `"command" must be a string or a list`},
		{`{"lsp": {"zls": "zls"}}`, `lsp.zls`},
		{`{"auto_lsp": "yes"}`, `auto_lsp`},
	} {
		if _, err := config.Parse("c.json", []byte(bad.json)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", bad.json, err, bad.want)
		}
	}
}

func TestMergeLSP(t *testing.T) {
	off, on := false, true
	user := config.Config{AutoLSP: &off, LSP: map[string]config.ServerConfig{
		"gopls": {Command: []string{"gopls"}, Env: map[string]string{"A": "1"}},
		"zls":   {Command: []string{"zls"}, Filetypes: []string{"zig"}},
	}}
	editor := config.Config{AutoLSP: &on, LSP: map[string]config.ServerConfig{
		"gopls":  {Settings: map[string]any{"gopls": map[string]any{"x": 1}}, Env: map[string]string{"B": "2"}},
		"clangd": {Command: []string{"clangd-17"}},
		"zls":    {Disabled: true},
	}}
	got := config.Merge(user, editor)
	if got.AutoLSP == nil || !*got.AutoLSP || got.AutoLSP == editor.AutoLSP {
		t.Errorf("auto_lsp = %v (must be a fresh true)", got.AutoLSP)
	}
	g := got.LSP["gopls"]
	if !reflect.DeepEqual(g.Command, []string{"gopls"}) || g.Settings == nil || !reflect.DeepEqual(g.Env, map[string]string{"A": "1", "B": "2"}) {
		t.Errorf("gopls = %+v", g)
	}
	if !got.LSP["zls"].Disabled || got.LSP["clangd"].Command[0] != "clangd-17" {
		t.Errorf("lsp = %+v", got.LSP)
	}
	if len(user.LSP["gopls"].Env) != 1 || len(user.LSP) != 2 {
		t.Errorf("Merge modified its base: %+v", user.LSP)
	}
}

// A language server is a program agentls runs: only the user file, the
// editor and trusted workspace files may set lsp and auto_lsp.
func TestResolveLSPTrust(t *testing.T) {
	off := false
	ws := config.Config{AutoLSP: &off, LSP: map[string]config.ServerConfig{"evil": {Command: []string{"./evil.sh"}, Filetypes: []string{"go"}}}}
	got, warns, err := config.Resolve(config.Config{}, config.Config{}, config.Flags{}, map[string]config.Config{"/repo": ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.LSP != nil || got.AutoLSP != nil {
		t.Errorf("an untrusted workspace set lsp: %+v %v", got.LSP, got.AutoLSP)
	}
	found := false
	for _, w := range warns {
		found = found || w.Key == "lsp, auto_lsp" && strings.Contains(w.Message, "not trusted")
	}
	if !found {
		t.Errorf("no warning about the ignored lsp keys: %+v", warns)
	}
	got, _, err = config.Resolve(config.Config{}, config.Config{}, config.Flags{}, map[string]config.Config{"/repo": ws}, []string{"/repo"})
	if err != nil {
		t.Fatal(err)
	}
	if got.LSP["evil"].Command[0] != "./evil.sh" || got.AutoLSP == nil || *got.AutoLSP {
		t.Errorf("a trusted workspace's lsp was dropped: %+v", got)
	}
	// The editor wins over the user file.
	user := config.Config{LSP: map[string]config.ServerConfig{"gopls": {Command: []string{"gopls-user"}}}}
	editor := config.Config{LSP: map[string]config.ServerConfig{"gopls": {Command: []string{"gopls-editor"}}}}
	got, _, _ = config.Resolve(user, editor, config.Flags{}, nil, nil)
	if got.LSP["gopls"].Command[0] != "gopls-editor" {
		t.Errorf("resolved gopls = %+v", got.LSP["gopls"])
	}
}

// TestMergeServer: the one merge of server entries — a later config file's
// over an earlier one's, and the user's entry over a built-in server.
func TestMergeServer(t *testing.T) {
	base := config.BuiltinServers()["gopls"]
	base.Env = map[string]string{"GOFLAGS": "-tags=a", "KEEP": "1"}
	over := config.ServerConfig{Name: "gopls", Settings: map[string]any{"gopls": map[string]any{"staticcheck": true}},
		Env: map[string]string{"GOFLAGS": "-tags=b"}, RunUntrusted: true}
	got := config.MergeServer(base, over)
	want := base
	want.Settings = over.Settings
	want.Env = map[string]string{"GOFLAGS": "-tags=b", "KEEP": "1"}
	want.RunUntrusted = true
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged\n%+v\nwant\n%+v", got, want)
	}
	if base.Env["GOFLAGS"] != "-tags=a" {
		t.Error("the merge changed base's env")
	}
	// Unset fields keep base's; a true flag stays true.
	if again := config.MergeServer(got, config.ServerConfig{}); !reflect.DeepEqual(again, got) {
		t.Errorf("an empty entry changed the server: %+v", again)
	}
	off := config.MergeServer(config.ServerConfig{Disabled: true}, config.ServerConfig{Command: []string{"x"}})
	if !off.Disabled || off.Command[0] != "x" {
		t.Errorf("disabled did not stay: %+v", off)
	}
}
