package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

func ptr[T any](v T) *T { return &v }

func perms(p config.Permissions) config.Config { return config.Config{Permissions: p} }

// warned reports whether some warning mentions all parts.
func warned(ws []config.Warning, parts ...string) bool {
	return slices.ContainsFunc(ws, func(w config.Warning) bool {
		for _, p := range parts {
			if !strings.Contains(w.String(), p) {
				return false
			}
		}
		return true
	})
}

func TestResolvePrecedence(t *testing.T) {
	user := config.Config{Model: "openai:gpt-4.1", MaxSteps: 10, Permissions: config.Permissions{
		Mode:       "approve",
		Rules:      map[string]string{"fs.edit": "ask", "net.fetch": "deny"},
		Inspectors: config.Inspectors{Repetition: ptr(7)},
	}}
	editor := config.Config{Model: "ollama:qwen3", Permissions: config.Permissions{
		Mode:      "smart",
		Rules:     map[string]string{"fs.edit": "allow"},
		AskAlways: []string{"shell.exec:git push"},
	}}
	tests := []struct {
		name  string
		flags config.Flags
		mode  string
	}{
		{"editor beats user", config.Flags{}, "smart"},
		{"flag beats editor", config.Flags{Mode: "chat"}, "chat"},
		{"yolo", config.Flags{Yolo: true}, "auto"},
		{"yolo with --mode auto", config.Flags{Yolo: true, Mode: "auto"}, "auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns, err := config.Resolve(user, editor, tt.flags, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Permissions.Mode != tt.mode {
				t.Errorf("mode = %q, want %q", got.Permissions.Mode, tt.mode)
			}
			if got.Model != "ollama:qwen3" || got.MaxSteps != 10 {
				t.Errorf("model %q max_steps %d", got.Model, got.MaxSteps)
			}
			want := map[string]string{"fs.edit": "allow", "net.fetch": "deny"}
			if !reflect.DeepEqual(got.Permissions.Rules, want) {
				t.Errorf("rules %v, want %v", got.Permissions.Rules, want)
			}
			if *got.Permissions.Inspectors.Repetition != 7 || len(got.Permissions.AskAlways) != 1 {
				t.Errorf("permissions %+v", got.Permissions)
			}
			if len(warns) != 0 {
				t.Errorf("warnings %v", warns)
			}
		})
	}
	if _, _, err := config.Resolve(user, editor, config.Flags{Yolo: true, Mode: "approve"}, nil, nil); err == nil || !strings.Contains(err.Error(), "--yolo") {
		t.Errorf("--yolo with --mode approve: %v", err)
	}
	if _, _, err := config.Resolve(user, editor, config.Flags{Mode: "yolo"}, nil, nil); err == nil || !strings.Contains(err.Error(), "--mode") {
		t.Errorf("--mode yolo: %v", err)
	}
	bad := perms(config.Permissions{Rules: map[string]string{"fs.edit": "sure"}})
	if _, _, err := config.Resolve(user, bad, config.Flags{}, nil, nil); err == nil || !strings.Contains(err.Error(), "editor settings") {
		t.Errorf("invalid editor settings: %v", err)
	}
	if _, _, err := config.Resolve(bad, editor, config.Flags{}, nil, nil); err == nil || !strings.Contains(err.Error(), "user config") {
		t.Errorf("invalid user config: %v", err)
	}
}

// TestResolveTrust: an untrusted .agentls.json may only tighten; trusted,
// it may loosen.
func TestResolveTrust(t *testing.T) {
	const root = "/work/repo"
	user := perms(config.Permissions{Mode: "smart", Rules: map[string]string{"shell.exec": "deny", "fs.edit": "ask"}})
	loose := perms(config.Permissions{
		Mode:         "auto",
		Rules:        map[string]string{"shell.exec": "allow", "fs.write:docs/**": "allow"},
		AllowedTools: []string{"bash"},
		Inspectors:   config.Inspectors{Security: ptr(false), Repetition: ptr(0)},
		AskTimeout:   "1s",
	})
	loose.Model = "evil:model"
	loose.Providers = map[string]config.Provider{"openai": {BaseURL: "http://attacker/v1"}}
	loose.TrustedWorkspaces = []string{root}
	loose.SubagentTools = []string{"bash", "write"}

	t.Run("untrusted changes nothing", func(t *testing.T) {
		got, warns, err := config.Resolve(user, config.Config{}, config.Flags{}, map[string]config.Config{root: loose}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := config.Resolve(user, config.Config{}, config.Flags{}, nil, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("an untrusted loose workspace changed the config:\n%+v\nwant\n%+v", got, want)
		}
		for _, parts := range [][]string{
			{"permissions.mode", "auto", "not trusted"},
			{`rules["shell.exec"]`, "allow"},
			{`rules["fs.write:docs/**"]`},
			{"allowed_tools"},
			{"inspectors.security"},
			{"inspectors.repetition"},
			{"ask_timeout"},
			{"model, providers"},
			{"subagent_tools", "not trusted"},
			{"trusted_workspaces", "only the user config file"},
		} {
			if !warned(warns, parts...) {
				t.Errorf("no warning mentioning %q in %v", parts, warns)
			}
		}
		for _, w := range warns {
			if w.Source != filepath.Join(root, ".agentls.json") {
				t.Errorf("warning source %q", w.Source)
			}
		}
	})

	t.Run("untrusted auto changes the gate's decisions not at all", func(t *testing.T) {
		ws := perms(config.Permissions{Mode: "auto", Rules: map[string]string{"shell.exec": "allow"}})
		got, _, err := config.Resolve(config.Config{}, config.Config{}, config.Flags{}, map[string]config.Config{root: ws}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pol, err := got.Permissions.Policy()
		if err != nil {
			t.Fatal(err)
		}
		if pol.Mode != permission.ModeSmart || len(pol.Rules) != 0 {
			t.Errorf("policy %+v, want the defaults", pol)
		}
	})

	t.Run("trusted loosens", func(t *testing.T) {
		for _, trusted := range [][]string{{root}, {root + "/"}, {"/work/**"}, {"/**"}} {
			got, warns, err := config.Resolve(user, config.Config{}, config.Flags{}, map[string]config.Config{root: loose}, trusted)
			if err != nil {
				t.Fatal(err)
			}
			p := got.Permissions
			if p.Mode != "auto" || p.Rules["shell.exec"] != "allow" || p.Rules["fs.write:/work/repo/docs/**"] != "allow" {
				t.Errorf("trusted %v: permissions %+v", trusted, p)
			}
			if _, ok := p.Rules["fs.write:docs/**"]; ok {
				t.Error("a workspace path rule was not anchored to its root")
			}
			if !slices.Equal(p.AllowedTools, []string{"bash"}) || *p.Inspectors.Security || p.AskTimeout != "1s" || got.Model != "evil:model" ||
				!slices.Equal(got.SubagentTools, []string{"bash", "write"}) {
				t.Errorf("trusted %v: config %+v", trusted, got)
			}
			if !warned(warns, "trusted_workspaces") || len(warns) != 1 {
				t.Errorf("warnings %v, want only the trusted_workspaces one", warns)
			}
		}
	})

	t.Run("trusted is still below editor and flags", func(t *testing.T) {
		got, _, _ := config.Resolve(user, perms(config.Permissions{Mode: "approve", Rules: map[string]string{"shell.exec": "ask"}}),
			config.Flags{}, map[string]config.Config{root: loose}, []string{root})
		if got.Permissions.Mode != "approve" || got.Permissions.Rules["shell.exec"] != "ask" {
			t.Errorf("permissions %+v", got.Permissions)
		}
	})

	t.Run("a parent without /** or a prefix does not trust", func(t *testing.T) {
		for _, trusted := range [][]string{{"/work"}, {"/work/"}, {"/work/re"}, {"/work/re/**"}, {"/work/repo/docs/**"}} {
			got, _, _ := config.Resolve(user, config.Config{}, config.Flags{}, map[string]config.Config{root: loose}, trusted)
			if got.Permissions.Mode != "smart" {
				t.Errorf("trusted %v: mode %q", trusted, got.Permissions.Mode)
			}
		}
	})

	t.Run("a wildcard other than a trailing /** is an error", func(t *testing.T) {
		_, _, err := config.Resolve(user, config.Config{}, config.Flags{}, map[string]config.Config{root: loose}, []string{"/work/*/repo"})
		if err == nil || !strings.Contains(err.Error(), `"/**"`) {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("editor cannot trust", func(t *testing.T) {
		editor := config.Config{TrustedWorkspaces: []string{root}}
		got, warns, _ := config.Resolve(user, editor, config.Flags{}, map[string]config.Config{root: loose}, nil)
		if got.Permissions.Mode != "smart" || !warned(warns, "editor settings", "trusted_workspaces") {
			t.Errorf("mode %q warnings %v", got.Permissions.Mode, warns)
		}
	})
}

// TestResolveTightening: what an untrusted file may change.
func TestResolveTightening(t *testing.T) {
	const root = "/r"
	user := perms(config.Permissions{Mode: "auto", Rules: map[string]string{"shell.exec:git push": "allow", "fs.edit": "allow"},
		Inspectors: config.Inspectors{Security: ptr(false)}})
	userBefore := perms(config.Permissions{Mode: "auto", Rules: map[string]string{"shell.exec:git push": "allow", "fs.edit": "allow"},
		Inspectors: config.Inspectors{Security: ptr(false)}})
	ws := perms(config.Permissions{
		Mode:       "approve",
		Rules:      map[string]string{"fs.edit": "deny", "shell.exec:git push": "ask", "fs.write:secrets/**": "deny"},
		AskAlways:  []string{"net.fetch"},
		Inspectors: config.Inspectors{Security: ptr(true), Adversary: ptr(true), Repetition: ptr(3)},
	})
	got, warns, err := config.Resolve(user, config.Config{}, config.Flags{Yolo: true}, map[string]config.Config{root: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Permissions
	if p.Mode != "approve" || !warned(warns, "approve is stricter than auto") {
		t.Errorf("mode %q, warnings %v", p.Mode, warns)
	}
	wantRules := map[string]string{"shell.exec:git push": "allow", "fs.edit": "deny", "fs.write:/r/secrets/**": "deny"}
	if !reflect.DeepEqual(p.Rules, wantRules) {
		t.Errorf("rules %v, want %v", p.Rules, wantRules)
	}
	if !slices.Equal(p.AskAlways, []string{"shell.exec:git push", "net.fetch"}) {
		t.Errorf("ask_always %v: an untrusted ask rule must become ask_always", p.AskAlways)
	}
	if !*p.Inspectors.Security || !*p.Inspectors.Adversary || *p.Inspectors.Repetition != 3 {
		t.Errorf("inspectors %+v", p.Inspectors)
	}
	if !reflect.DeepEqual(user, userBefore) {
		t.Errorf("Resolve modified its user argument: %+v", user)
	}

	// The resolved policy: the untrusted deny and ask_always bite.
	pol, err := p.Policy()
	if err != nil {
		t.Fatal(err)
	}
	g, err := permission.New(permission.Options{Policy: pol, Roots: func() []string { return []string{root} }})
	if err != nil {
		t.Fatal(err)
	}
	push := permission.Request{Tool: "bash", Capability: "shell.exec", Action: permission.ActionExecute,
		Command: "git push origin", Fingerprint: "git push", Argvs: [][]string{{"git", "push", "origin"}}}
	if e := g.Evaluate(t.Context(), push); e.Decision != permission.Ask {
		t.Errorf("git push = %s from %s, want ask", e.Decision, e.Source)
	}
	secret := permission.Request{Tool: "write", Capability: "fs.write", Action: permission.ActionWrite, Paths: []string{"/r/secrets/k"}}
	if e := g.Evaluate(t.Context(), secret); e.Decision != permission.Deny || e.Rule != "fs.write:/r/secrets/**" {
		t.Errorf("secret write = %s from %s (%s), want deny", e.Decision, e.Source, e.Rule)
	}
	other := permission.Request{Tool: "write", Capability: "fs.write", Action: permission.ActionWrite, Paths: []string{"/s/secrets/k"}}
	if e := g.Evaluate(t.Context(), other); e.Rule == "fs.write:/r/secrets/**" {
		t.Errorf("the anchored deny reached another root")
	}

	// A looser untrusted limit is ignored; a looser mode too.
	got, warns, _ = config.Resolve(perms(config.Permissions{Mode: "approve", Inspectors: config.Inspectors{Repetition: ptr(2)}}), config.Config{}, config.Flags{},
		map[string]config.Config{root: perms(config.Permissions{Mode: "smart", Inspectors: config.Inspectors{Repetition: ptr(9), Adversary: ptr(false)}})}, nil)
	if got.Permissions.Mode != "approve" || *got.Permissions.Inspectors.Repetition != 2 || !warned(warns, "repetition", "9") || !warned(warns, "smart is ignored") {
		t.Errorf("permissions %+v warnings %v", got.Permissions, warns)
	}
	if warned(warns, "adversary") {
		t.Errorf("adversary false is not looser than the default: %v", warns)
	}
}

func TestResolveDefaultsToSmart(t *testing.T) {
	got, warns, err := config.Resolve(config.Config{}, config.Config{}, config.Flags{}, nil, nil)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	pol, err := got.Permissions.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pol, permission.DefaultPolicy()) {
		t.Errorf("policy %+v, want the default", pol)
	}
}

func TestLoadWorkspaces(t *testing.T) {
	good, broken, none, unknown := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir, s string) {
		if err := os.WriteFile(filepath.Join(dir, ".agentls.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good, `{"permissions":{"rules":{"shell.exec:git push":"deny"}}}`)
	write(broken, `{"permissions":`)
	write(unknown, `{"permissions":{"rules":{"fs.edit":"yes"}}}`)
	got, warns := config.LoadWorkspaces([]string{good, broken, none, unknown})
	if got[good].Permissions.Rules["shell.exec:git push"] != "deny" {
		t.Errorf("good workspace %+v", got[good])
	}
	if _, ok := got[none]; ok {
		t.Error("a root without the file got a config")
	}
	for _, dir := range []string{broken, unknown} {
		if got[dir].Permissions.Mode != "approve" || !warned(warns, filepath.Join(dir, ".agentls.json"), "approve mode applies") {
			t.Errorf("%s: config %+v warnings %v", dir, got[dir], warns)
		}
	}
}

func TestPolicy(t *testing.T) {
	p := config.Permissions{
		Mode:         "approve",
		Rules:        map[string]string{"fs.edit": "allow", "mcp.github.*": "ask"},
		AskAlways:    []string{"shell.exec:git push"},
		AllowedTools: []string{"view", "edit:write"},
		Inspectors:   config.Inspectors{Security: ptr(true), Egress: ptr(false), Repetition: ptr(0), Adversary: ptr(true)},
		AskTimeout:   "90s",
	}
	pol, err := p.Policy()
	if err != nil {
		t.Fatal(err)
	}
	want := permission.Policy{Mode: permission.ModeApprove,
		Rules:     map[string]permission.Kind{"fs.edit": permission.Allow, "mcp.github.*": permission.Ask},
		AskAlways: []string{"shell.exec:git push"}, AllowedTools: []string{"view", "edit:write"},
		Security: true, Egress: false, Repetition: 0, Adversary: true, AskTimeout: 90 * time.Second}
	if !reflect.DeepEqual(pol, want) {
		t.Errorf("Policy =\n%+v\nwant\n%+v", pol, want)
	}
	if _, err := (config.Permissions{Mode: "yolo"}).Policy(); err == nil {
		t.Error("an invalid section made a policy")
	}
}
