package config_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func writeFile(path string, data []byte, perm fs.FileMode) error {
	return os.WriteFile(path, data, perm)
}

// UpdateTrust rewrites trusted_workspaces in place and keeps the other
// keys as written, in their order.
func TestUpdateTrustKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	orig := "{\n  \"model\": \"openai:gpt-4.1\",\n  \"trusted_workspaces\": [\"/a\"],\n  \"permissions\": {\"rules\": {\"fs.edit\": \"allow\"}},\n  \"max_steps\": 3\n}\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := config.UpdateTrust(path, func(l []string) []string { return append(l, "/b/**") }, writeFile)
	if err != nil || len(got) != 2 {
		t.Fatalf("got %q, %v", got, err)
	}
	data, _ := os.ReadFile(path)
	want := "{\n  \"model\": \"openai:gpt-4.1\",\n  \"trusted_workspaces\": [\n    \"/a\",\n    \"/b/**\"\n  ],\n  \"permissions\": {\"rules\": {\"fs.edit\": \"allow\"}},\n  \"max_steps\": 3\n}\n"
	if string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	// An entry that breaks the rule is refused and nothing is written.
	if _, err := config.UpdateTrust(path, func(l []string) []string { return append(l, "/a/*/b") }, writeFile); err == nil || !strings.Contains(err.Error(), "wildcard") {
		t.Errorf("err = %v", err)
	}
	if again, _ := os.ReadFile(path); string(again) != want {
		t.Errorf("a refused entry changed the file:\n%s", again)
	}
	// A missing file is created with just the list.
	fresh := filepath.Join(t.TempDir(), "new.json")
	if _, err := config.UpdateTrust(fresh, func(l []string) []string { return append(l, "/c") }, writeFile); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(fresh); string(data) != "{\n  \"trusted_workspaces\": [\n    \"/c\"\n  ]\n}\n" {
		t.Errorf("new file:\n%s", data)
	}
}
