package config_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func TestParseCompletion(t *testing.T) {
	tests := []struct {
		name, json string
		want       config.Completion
		err        string
	}{
		{"model only", `{"completion": {"model": "ollama:qwen2.5-coder:1.5b"}}`, config.Completion{Model: "ollama:qwen2.5-coder:1.5b"}, ""},
		{"all keys", `{"completion": {"model": "vllm:m", "api": "completions", "template": "<pre>{prefix}<suf>{suffix}<mid>", "max_tokens": 64, "debounce_ms": 0}}`,
			config.Completion{Model: "vllm:m", API: "completions", Template: "<pre>{prefix}<suf>{suffix}<mid>", MaxTokens: 64, DebounceMS: ptr(0)}, ""},
		{"unknown api", `{"completion": {"model": "a:b", "api": "fim"}}`, config.Completion{}, `completion.api "fim"`},
		{"model without provider", `{"completion": {"model": "qwen"}}`, config.Completion{}, "not of the form provider:model"},
		{"template without suffix", `{"completion": {"model": "a:b", "template": "{prefix}"}}`, config.Completion{}, "{prefix} and {suffix}"},
		{"template with the chat api", `{"completion": {"model": "a:b", "api": "chat", "template": "{prefix}{suffix}"}}`, config.Completion{}, `not "chat"`},
		{"too many tokens", `{"completion": {"model": "a:b", "max_tokens": 100000}}`, config.Completion{}, "max_tokens is 100000"},
		{"negative debounce", `{"completion": {"model": "a:b", "debounce_ms": -1}}`, config.Completion{}, "debounce_ms is -1"},
		{"unknown key", `{"completion": {"modle": "a:b"}}`, config.Completion{}, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse("c.json", []byte(tt.json))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Completion, tt.want) {
				t.Errorf("completion = %+v, want %+v", c.Completion, tt.want)
			}
		})
	}
}

// The editor's completion settings win key by key over the user file's,
// a trusted workspace file's apply, an untrusted one's are ignored with a
// warning: its model is where the person's code would go.
func TestResolveCompletion(t *testing.T) {
	root := t.TempDir()
	user := config.Config{Completion: config.Completion{Model: "ollama:small", MaxTokens: 64}}
	editor := config.Config{Completion: config.Completion{Model: "llamacpp:default"}}
	ws := map[string]config.Config{root: {Completion: config.Completion{Model: "evil:exfil", DebounceMS: ptr(0)}}}
	tests := []struct {
		name     string
		editor   config.Config
		trusted  []string
		want     config.Completion
		warnWord string
	}{
		{"editor over user, key by key", editor, nil, config.Completion{Model: "llamacpp:default", MaxTokens: 64}, "not trusted"},
		{"user alone", config.Config{}, nil, config.Completion{Model: "ollama:small", MaxTokens: 64}, "not trusted"},
		{"trusted workspace file applies", config.Config{}, []string{root}, config.Completion{Model: "evil:exfil", MaxTokens: 64, DebounceMS: ptr(0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns, err := config.Resolve(user, tt.editor, config.Flags{}, ws, tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Completion, tt.want) {
				t.Errorf("completion = %+v, want %+v", got.Completion, tt.want)
			}
			if w := warned(warns, "completion", "not trusted"); w != (tt.warnWord != "") {
				t.Errorf("warned about completion = %v, warnings %v", w, warns)
			}
		})
	}
}

// docs/config.schema.json lists exactly the keys completion has.
func TestCompletionSchemaKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Completion struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"completion"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	got, want := slices.Sorted(maps.Keys(schema.Properties.Completion.Properties)), jsonKeys(reflect.TypeFor[config.Completion]())
	if !slices.Equal(got, want) {
		t.Errorf("docs/config.schema.json completion has %v, config.Completion reads %v", got, want)
	}
}
