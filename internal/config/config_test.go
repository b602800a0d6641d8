package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    config.Config
		errPart []string
	}{
		{
			name: "full",
			data: `{"model":"openai:gpt-4.1","providers":{"lm":{"base_url":"http://localhost:1234/v1","api_key_env":"LM_KEY"}},"permissions":{"mode":"auto"},"max_steps":7}`,
			want: config.Config{
				Model:       "openai:gpt-4.1",
				Providers:   map[string]config.Provider{"lm": {BaseURL: "http://localhost:1234/v1", APIKeyEnv: "LM_KEY"}},
				Permissions: config.Permissions{Mode: "auto"},
				MaxSteps:    7,
			},
		},
		{
			name: "permissions",
			data: `{"permissions":{"mode":"smart","rules":{"fs.edit":"allow","shell.exec:go test":"allow","fs.write:docs/**":"allow","mcp.github.*":"ask","net.fetch":"deny"},
				"ask_always":["shell.exec:git push"],"allowed_tools":["view","edit:write"],
				"inspectors":{"security":true,"egress":true,"repetition":5,"adversary":false},"ask_timeout":"5m"},
				"trusted_workspaces":["/abs/path"]}`,
			want: config.Config{
				Permissions: config.Permissions{
					Mode: "smart",
					Rules: map[string]string{"fs.edit": "allow", "shell.exec:go test": "allow", "fs.write:docs/**": "allow",
						"mcp.github.*": "ask", "net.fetch": "deny"},
					AskAlways:    []string{"shell.exec:git push"},
					AllowedTools: []string{"view", "edit:write"},
					Inspectors:   config.Inspectors{Security: ptr(true), Egress: ptr(true), Repetition: ptr(5), Adversary: ptr(false)},
					AskTimeout:   "5m",
				},
				TrustedWorkspaces: []string{"/abs/path"},
			},
		},
		{
			name: "anthropic providers",
			data: `{"providers":{"anthropic":{"thinking":8000,"models":{"claude-haiku-4-5":{"thinking":"off"}}},
				"gateway":{"type":"anthropic","base_url":"http://gw:4000","thinking":"off"},"lm":{"type":"openai","base_url":"http://lm/v1"}}}`,
			want: config.Config{Providers: map[string]config.Provider{
				"anthropic": {Thinking: 8000, Models: map[string]config.ModelLimits{"claude-haiku-4-5": {Thinking: config.ThinkingOff}}},
				"gateway":   {Type: "anthropic", BaseURL: "http://gw:4000", Thinking: config.ThinkingOff},
				"lm":        {Type: "openai", BaseURL: "http://lm/v1"},
			}},
		},
		{
			name: "prices",
			data: `{"providers":{"ollama":{"price":{"input":0,"output":0}},
				"anthropic":{"models":{"claude-new":{"price":{"input":4,"cached_input":0.4,"cache_write":5,"output":20}}}}}}`,
			want: config.Config{Providers: map[string]config.Provider{
				"ollama": {Price: &config.Price{Input: ptr(0.0), Output: ptr(0.0)}},
				"anthropic": {Models: map[string]config.ModelLimits{"claude-new": {Price: &config.Price{
					Input: ptr(4.0), CachedInput: ptr(0.4), CacheWrite: ptr(5.0), Output: ptr(20.0)}}}},
			}},
		},
		{name: "price without output", data: `{"providers":{"x":{"price":{"input":1}}}}`, errPart: []string{"providers.x.price needs input and output"}},
		{name: "empty price", data: `{"providers":{"x":{"models":{"m":{"price":{}}}}}}`, errPart: []string{`providers.x.models["m"].price needs input and output`}},
		{name: "negative price", data: `{"providers":{"x":{"price":{"input":1,"output":2,"cached_input":-1}}}}`, errPart: []string{"providers.x.price.cached_input is -1"}},
		{name: "price as text", data: `{"providers":{"x":{"price":{"input":"$3","output":2}}}}`, errPart: []string{"cfg.json", "input"}},
		{name: "unknown price key", data: `{"providers":{"x":{"price":{"input":1,"output":2,"cached":1}}}}`, errPart: []string{`"cached"`}},
		{name: "bad provider type", data: `{"providers":{"x":{"type":"gemini","base_url":"http://x"}}}`, errPart: []string{"providers.x.type", `"gemini"`, `"openai"`, `"anthropic"`}},
		{name: "thinking budget too small", data: `{"providers":{"anthropic":{"thinking":500}}}`, errPart: []string{"providers.anthropic.thinking is 500", "at least 1024", `"off"`}},
		{name: "model thinking budget too small", data: `{"providers":{"anthropic":{"models":{"m":{"thinking":10}}}}}`, errPart: []string{`providers.anthropic.models["m"].thinking is 10`}},
		{name: "thinking word", data: `{"providers":{"anthropic":{"thinking":"on"}}}`, errPart: []string{`thinking "on"`, `"off" or a budget in tokens`}},
		{name: "thinking negative", data: `{"providers":{"anthropic":{"thinking":-5}}}`, errPart: []string{`thinking -5`}},
		{name: "empty object", data: `{}`, want: config.Config{}},
		{name: "bad mode", data: `{"permissions":{"mode":"yolo"}}`, errPart: []string{"cfg.json", "permissions.mode", `"yolo"`, "approve"}},
		{name: "bad rule value", data: `{"permissions":{"rules":{"fs.edit":"yes"}}}`, errPart: []string{"cfg.json", `permissions.rules["fs.edit"]`, "allow, ask or deny"}},
		{name: "bad rule key", data: `{"permissions":{"rules":{"mcp.git*":"allow"}}}`, errPart: []string{"permissions.rules", "mcp.git*", "whole last segment"}},
		{name: "bad ask_always", data: `{"permissions":{"ask_always":["shell.exec:"]}}`, errPart: []string{"permissions.ask_always", "scope is empty"}},
		{name: "bad allowed tool", data: `{"permissions":{"allowed_tools":["edit:delete"]}}`, errPart: []string{"permissions.allowed_tools", "edit:delete"}},
		{name: "bad repetition", data: `{"permissions":{"inspectors":{"repetition":-1}}}`, errPart: []string{"permissions.inspectors.repetition"}},
		{name: "unknown inspector", data: `{"permissions":{"inspectors":{"secrity":true}}}`, errPart: []string{`"secrity"`}},
		{name: "bad timeout", data: `{"permissions":{"ask_timeout":"10"}}`, errPart: []string{"permissions.ask_timeout", `"10"`}},
		{name: "relative trusted", data: `{"trusted_workspaces":["repo"]}`, errPart: []string{"trusted_workspaces", `"repo"`}},
		{name: "every error at once", data: `{"permissions":{"mode":"x","rules":{"fs.edit":"yes"}}}`, errPart: []string{"permissions.mode", "permissions.rules"}},
		{name: "trailing newline", data: "{\"model\":\"ollama:qwen3\"}\n", want: config.Config{Model: "ollama:qwen3"}},
		{name: "unknown top-level key", data: `{"modle":"openai:gpt-4.1"}`, errPart: []string{"cfg.json", `"modle"`}},
		{name: "unknown nested key", data: `{"permissions":{"mood":"auto"}}`, errPart: []string{"cfg.json", `"mood"`}},
		{name: "unknown provider key", data: `{"providers":{"x":{"baseurl":"http://x"}}}`, errPart: []string{"cfg.json", `"baseurl"`}},
		{name: "wrong type", data: `{"max_steps":"ten"}`, errPart: []string{"cfg.json", "max_steps"}},
		{name: "syntax error", data: `{"model":`, errPart: []string{"cfg.json"}},
		{name: "second object", data: `{"model":"a:b"} {"max_steps":3}`, errPart: []string{"cfg.json", "after the top-level JSON object"}},
		{name: "trailing garbage", data: `{"model":"a:b"}x`, errPart: []string{"cfg.json", "after the top-level JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Parse("cfg.json", []byte(tt.data))
			if tt.errPart != nil {
				if err == nil {
					t.Fatalf("Parse = %+v, want an error", got)
				}
				for _, p := range tt.errPart {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("error %q does not contain %q", err, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()

	got, err := config.Load(filepath.Join(dir, "missing", "config.json"))
	if err != nil {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if !reflect.DeepEqual(got, config.Config{}) {
		t.Errorf("Load of a missing file = %+v, want an empty config", got)
	}

	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"model":"ollama:qwen3","max_steps":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = config.Load(good)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got.Model != "ollama:qwen3" || got.MaxSteps != 3 {
		t.Errorf("Load = %+v", got)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"colour":"red"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "colour") {
		t.Errorf("Load of a bad file: error %v should name the file and the key", err)
	}

	// A folder where the file should be is an error, not an empty config.
	if _, err := config.Load(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Load of a directory: error %v, want one naming %s", err, dir)
	}
}

func TestMerge(t *testing.T) {
	file := config.Config{
		Model: "openai:gpt-4.1",
		Providers: map[string]config.Provider{
			"lm":     {BaseURL: "http://file/v1", APIKeyEnv: "FILE_KEY"},
			"openai": {APIKeyEnv: "MY_OPENAI"},
		},
		Permissions: config.Permissions{Mode: "smart"},
		MaxSteps:    10,
	}
	editor := config.Config{
		Model:     "ollama:qwen3",
		Providers: map[string]config.Provider{"lm": {BaseURL: "http://editor/v1"}, "vl": {BaseURL: "http://vl/v1"}},
	}
	flags := config.Config{Permissions: config.Permissions{Mode: "auto"}, MaxSteps: 3}

	fileBefore := config.Config{
		Model:       file.Model,
		Providers:   map[string]config.Provider{"lm": file.Providers["lm"], "openai": file.Providers["openai"]},
		Permissions: file.Permissions,
		MaxSteps:    file.MaxSteps,
	}

	got := config.Merge(config.Merge(file, editor), flags)
	want := config.Config{
		Model: "ollama:qwen3",
		Providers: map[string]config.Provider{
			// base_url from the editor, the key variable kept from the file
			"lm":     {BaseURL: "http://editor/v1", APIKeyEnv: "FILE_KEY"},
			"openai": {APIKeyEnv: "MY_OPENAI"},
			"vl":     {BaseURL: "http://vl/v1"},
		},
		Permissions: config.Permissions{Mode: "auto"},
		MaxSteps:    3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge =\n%+v\nwant\n%+v", got, want)
	}
	if !reflect.DeepEqual(file, fileBefore) {
		t.Errorf("Merge modified its base argument: %+v, was %+v", file, fileBefore)
	}

	// Empty fields never override.
	if got := config.Merge(file, config.Config{}); !reflect.DeepEqual(got, file) {
		t.Errorf("Merge(file, empty) = %+v, want %+v", got, file)
	}
	// Permission sections merge key by key, lists add up, and the result
	// shares nothing with the arguments.
	a := config.Config{Permissions: config.Permissions{Rules: map[string]string{"fs.edit": "ask", "net.fetch": "deny"},
		AskAlways: []string{"x.y"}, Inspectors: config.Inspectors{Security: ptr(false), Repetition: ptr(3)}}}
	b := config.Config{Permissions: config.Permissions{Rules: map[string]string{"fs.edit": "allow"}, AskAlways: []string{"x.y", "a.b"},
		AllowedTools: []string{"view"}, Inspectors: config.Inspectors{Security: ptr(true)}, AskTimeout: "1m"}, TrustedWorkspaces: []string{"/t"}}
	m := config.Merge(a, b)
	wantP := config.Permissions{Rules: map[string]string{"fs.edit": "allow", "net.fetch": "deny"}, AskAlways: []string{"x.y", "a.b"},
		AllowedTools: []string{"view"}, Inspectors: config.Inspectors{Security: ptr(true), Repetition: ptr(3)}, AskTimeout: "1m"}
	if !reflect.DeepEqual(m.Permissions, wantP) || !reflect.DeepEqual(m.TrustedWorkspaces, []string{"/t"}) {
		t.Errorf("Merge permissions =\n%+v\nwant\n%+v", m.Permissions, wantP)
	}
	*m.Permissions.Inspectors.Security = false
	m.Permissions.Rules["new.cap"] = "deny"
	if !*b.Permissions.Inspectors.Security || a.Permissions.Rules["new.cap"] != "" || b.Permissions.Rules["new.cap"] != "" {
		t.Error("the merged permissions alias an argument")
	}

	// Type and thinking merge field by field; "off" overrides a budget.
	m = config.Merge(
		config.Config{Providers: map[string]config.Provider{"gw": {Type: "anthropic", BaseURL: "http://gw", Thinking: 8000}}},
		config.Config{Providers: map[string]config.Provider{"gw": {Thinking: config.ThinkingOff}}})
	if gw := m.Providers["gw"]; gw.Type != "anthropic" || gw.BaseURL != "http://gw" || gw.Thinking != config.ThinkingOff || gw.Thinking.Budget() != 0 {
		t.Errorf("merged provider %+v, want type and base_url kept and thinking off", gw)
	}
	// A price replaces the lower source's whole price; the result shares
	// no price with either argument.
	low := config.Config{Providers: map[string]config.Provider{"gw": {BaseURL: "http://gw", Price: &config.Price{Input: ptr(1.0), Output: ptr(2.0)},
		Models: map[string]config.ModelLimits{"m": {ContextWindow: 9000}}}}}
	high := config.Config{Providers: map[string]config.Provider{"gw": {Price: &config.Price{Input: ptr(3.0), Output: ptr(4.0)},
		Models: map[string]config.ModelLimits{"m": {Price: &config.Price{Input: ptr(5.0), Output: ptr(6.0)}}}}}}
	m = config.Merge(low, high)
	gw := m.Providers["gw"]
	if gw.BaseURL != "http://gw" || *gw.Price.Input != 3 || *gw.Price.Output != 4 || gw.Price.CachedInput != nil || *gw.Models["m"].Price.Output != 6 {
		t.Errorf("merged prices %+v, models %+v", gw.Price, gw.Models)
	}
	*gw.Price.Input, *gw.Models["m"].Price.Input = 99, 99
	if *high.Providers["gw"].Price.Input != 3 || *high.Providers["gw"].Models["m"].Price.Input != 5 {
		t.Error("the merged prices alias the over argument's")
	}
	if b, err := config.Thinking(8000).MarshalJSON(); err != nil || string(b) != "8000" {
		t.Errorf("Thinking(8000) marshals as %s, %v", b, err)
	}
	if b, _ := config.ThinkingOff.MarshalJSON(); string(b) != `"off"` {
		t.Errorf("ThinkingOff marshals as %s", b)
	}

	// Providers on top of a config without any.
	got = config.Merge(config.Config{}, editor)
	if !reflect.DeepEqual(got.Providers, editor.Providers) {
		t.Errorf("Merge(empty, editor).Providers = %+v, want %+v", got.Providers, editor.Providers)
	}
	got.Providers["added"] = config.Provider{BaseURL: "http://added"}
	if _, ok := editor.Providers["added"]; ok {
		t.Error("the merged Providers map aliases the over argument's map")
	}
}

func TestUserDirs(t *testing.T) {
	tests := []struct {
		name                string
		home, cfg, st, data string
		wantCfg, wantSt, wD string
		wantErr             bool
	}{
		{
			name:    "home only",
			home:    "/home/u",
			wantCfg: "/home/u/.config/agentls", wantSt: "/home/u/.local/state/agentls", wD: "/home/u/.local/share/agentls",
		},
		{
			name: "absolute xdg",
			home: "/home/u", cfg: "/x/cfg", st: "/x/state", data: "/x/data",
			wantCfg: "/x/cfg/agentls", wantSt: "/x/state/agentls", wD: "/x/data/agentls",
		},
		{
			name: "relative xdg ignored",
			home: "/home/u", cfg: "rel/cfg", st: "./state", data: "data",
			wantCfg: "/home/u/.config/agentls", wantSt: "/home/u/.local/state/agentls", wD: "/home/u/.local/share/agentls",
		},
		{
			name: "mixed",
			home: "/home/u", cfg: "/x/cfg", st: "", data: "rel",
			wantCfg: "/x/cfg/agentls", wantSt: "/home/u/.local/state/agentls", wD: "/home/u/.local/share/agentls",
		},
		{
			name: "no home but every xdg variable",
			cfg:  "/x/cfg", st: "/x/state", data: "/x/data",
			wantCfg: "/x/cfg/agentls", wantSt: "/x/state/agentls", wD: "/x/data/agentls",
		},
		{name: "no home, one xdg variable missing", cfg: "/x/cfg", st: "/x/state", wantErr: true},
		{name: "nothing", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.home)
			t.Setenv("XDG_CONFIG_HOME", tt.cfg)
			t.Setenv("XDG_STATE_HOME", tt.st)
			t.Setenv("XDG_DATA_HOME", tt.data)
			d, err := config.UserDirs()
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "HOME") {
					t.Fatalf("UserDirs = %+v, %v; want an error naming HOME", d, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("UserDirs: %v", err)
			}
			want := config.Dirs{Config: filepath.FromSlash(tt.wantCfg), State: filepath.FromSlash(tt.wantSt), Data: filepath.FromSlash(tt.wD)}
			if d != want {
				t.Errorf("UserDirs = %+v, want %+v", d, want)
			}
			if f := d.File(); f != filepath.Join(want.Config, "config.json") {
				t.Errorf("File() = %q", f)
			}
		})
	}
}
