package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
)

// cli runs one command line with the environment the test set up.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestTrustCommands: agentls trust / trust --list / untrust edit the user
// config's trusted_workspaces, keep its other keys, and what they write is
// what the rest of agentls reads.
func TestTrustCommands(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	file := filepath.Join(cfgHome, "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"model": "openai:gpt-4.1", "max_steps": 9}`), 0o600); err != nil {
		t.Fatal(err)
	}
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(parent, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	load := func() config.Config {
		t.Helper()
		c, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	if code, out, _ := cli("trust", "--list"); code != 0 || !strings.Contains(out, "no trusted folders") {
		t.Errorf("list of none: %d %q", code, out)
	}
	if code, out, errs := cli("trust", repo); code != 0 || !strings.Contains(out, "trusted "+repo) {
		t.Fatalf("trust: %d %q %q", code, out, errs)
	}
	c := load()
	if c.Model != "openai:gpt-4.1" || c.MaxSteps != 9 || len(c.TrustedWorkspaces) != 1 || !c.Trusted(repo) || c.Trusted(parent) {
		t.Errorf("config after trust: %+v", c)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode changed to %v", info.Mode().Perm())
	}
	if code, out, _ := cli("trust", repo); code != 0 || !strings.Contains(out, "already trusted") {
		t.Errorf("trust twice: %d %q", code, out)
	}

	// --subfolders writes parent/**, which trusts the folders below it.
	if code, out, errs := cli("trust", "--subfolders", parent); code != 0 || !strings.Contains(out, "trusted "+parent+"/**") {
		t.Fatalf("trust --subfolders: %d %q %q", code, out, errs)
	}
	other := filepath.Join(parent, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if c := load(); !c.Trusted(other) || !c.Trusted(parent) {
		t.Errorf("parent/** does not trust %s: %v", other, c.TrustedWorkspaces)
	}
	code, out, _ := cli("trust", "--list", "--json")
	var listed []string
	if code != 0 || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 2 || listed[0] != repo || listed[1] != parent+"/**" {
		t.Errorf("list --json: %d %q", code, out)
	}

	// untrust of a folder still trusted by a parent entry says so.
	if code, out, _ := cli("untrust", repo); code != 1 || !strings.Contains(out, "no longer trusted: "+repo) || !strings.Contains(out, "still trusted by \""+parent+"/**\"") {
		t.Errorf("untrust under a trusted parent: %d %q", code, out)
	}
	if code, out, _ := cli("untrust", parent); code != 0 || !strings.Contains(out, "no longer trusted: "+parent+"/**") {
		t.Errorf("untrust parent: %d %q", code, out)
	}
	if c := load(); len(c.TrustedWorkspaces) != 0 || c.Model != "openai:gpt-4.1" {
		t.Errorf("config after untrust: %+v", c)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "trusted_workspaces") {
		t.Errorf("an empty list stays in the file:\n%s", data)
	}

	// The current folder is the default; a file is not a folder; a broken
	// config is not overwritten.
	t.Chdir(repo)
	if code, out, _ := cli("trust"); code != 0 || !strings.Contains(out, "trusted "+repo) {
		t.Errorf("trust with no folder: %d %q", code, out)
	}
	if err := os.WriteFile(filepath.Join(repo, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli("trust", filepath.Join(repo, "f")); code != 2 || !strings.Contains(errs, "not a folder") {
		t.Errorf("trust a file: %d %q", code, errs)
	}
	broken := []byte(`{"model": "x", "trusted_workspaces": [`)
	if err := os.WriteFile(file, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli("trust", parent); code != 1 || !strings.Contains(errs, "fix the file first") {
		t.Errorf("trust with a broken config: %d %q", code, errs)
	}
	if data, _ := os.ReadFile(file); !bytes.Equal(data, broken) {
		t.Errorf("a broken config was rewritten:\n%s", data)
	}
}

// agentls run has nobody to ask: it says once per server and folder what
// runs in its safe form and how to trust the folder.
func TestTrustNoticeOnce(t *testing.T) {
	var b bytes.Buffer
	notice := trustNotice(&b)
	r := client.TrustRequest{Folder: "/src/repo", Server: "typescript-language-server", Code: "this repository's TypeScript (node_modules/typescript/lib/tsserver.js)", Started: true, Meanwhile: "Until you do, it uses the TypeScript installed globally."}
	notice(r)
	notice(r)
	if got := b.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "agentls trust /src/repo") || !strings.Contains(got, "node_modules/typescript") {
		t.Errorf("notice:\n%s", got)
	}
}
