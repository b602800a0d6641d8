package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A headless turn edits a file on disk; agentls revert restores it; a file
// changed after the turn is left alone unless --force.
func TestRunThenRevert(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("AGENTLS_TEST_KEEP_DATA", "1")
	ws := t.TempDir()
	orig := "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	run := autoTurn(t, ws, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"return 1","new_string":"return 2"}},
		               {"name":"write","input":{"file_path":"new/b.txt","content":"created\n"}}]},
		{"text":"done"}]}`)
	run()
	if got, _ := os.ReadFile(filepath.Join(ws, "a.go")); !strings.Contains(string(got), "return 2") {
		t.Fatalf("edit not applied: %q", got)
	}
	code, out, errb := runCLI(t, "revert", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "2 file(s) restored") {
		t.Fatalf("revert: %d %q %q", code, out, errb)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.go")); string(got) != orig {
		t.Errorf("a.go after revert = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "new/b.txt")); !os.IsNotExist(err) {
		t.Errorf("file created by the turn still exists after revert: %v", err)
	}
	if code, _, errb := runCLI(t, "revert", "--workspace", ws); code != 1 || !strings.Contains(errb, "no agent turn") {
		t.Errorf("second revert: %d %q", code, errb)
	}

	// The person changes the file after the turn: left alone, then forced.
	run()
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "revert", "--workspace", ws)
	if code != 1 || !strings.Contains(out, "1 file(s) left alone:\n- a.go (") || !strings.Contains(out, "1 file(s) restored") {
		t.Errorf("revert with a changed file: %d %q", code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.go")); string(got) != "mine\n" {
		t.Errorf("the person's change was overwritten: %q", got)
	}
	if code, out, _ = runCLI(t, "revert", "--workspace", ws, "--force"); code != 0 {
		t.Errorf("forced revert: %d %q", code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.go")); string(got) != orig {
		t.Errorf("a.go after forced revert = %q", got)
	}
}

// A folder the turn wrote in becomes a link to a folder outside: agentls
// revert leaves its files alone, saying why, even with --force, and
// writes and deletes nothing outside.
func TestRevertRefusesLinkLeadingOut(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("AGENTLS_TEST_KEEP_DATA", "1")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	autoTurn(t, ws, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"sub/a.txt"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"sub/a.txt","old_string":"one","new_string":"two"}},
		               {"name":"write","input":{"file_path":"sub/b.txt","content":"created\n"}}]},
		{"text":"done"}]}`)()
	// The folder goes away and a link to an outside copy takes its place.
	if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.away")); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.txt": "two\n", "b.txt": "created\n"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"revert", "--workspace", ws}, {"revert", "--workspace", ws, "--force"}} {
		code, o, e := runCLI(t, args...)
		if code != 1 || !strings.Contains(o, "0 file(s) restored") ||
			!strings.Contains(o, "- sub/a.txt ("+filepath.Join(ws, "sub", "a.txt")+" is outside the workspace (a symbolic link leads out)") ||
			!strings.Contains(o, "- sub/b.txt (") {
			t.Errorf("%v: %d %q %q", args, code, o, e)
		}
	}
	for name, text := range map[string]string{"a.txt": "two\n", "b.txt": "created\n"} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != text {
			t.Errorf("outside %s = %q, %v; want it untouched", name, got, err)
		}
	}
	// With the folder back, the revert goes through.
	if err := os.Remove(filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(ws, "sub.away"), filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if code, o, e := runCLI(t, "revert", "--workspace", ws); code != 0 || !strings.Contains(o, "2 file(s) restored") {
		t.Errorf("revert with the folder back: %d %q %q", code, o, e)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "sub", "a.txt")); string(got) != "one\n" {
		t.Errorf("sub/a.txt after revert = %q", got)
	}
}

// autoTurn writes a replay script and returns a function that runs one
// headless turn of it on ws in auto mode, failing the test if it fails.
func autoTurn(t *testing.T, ws, script string) func() {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if code, out, errb := runCLI(t, "run", "--workspace", ws, "--model", "replay:"+path, "--mode", "auto", "change it"); code != 0 {
			t.Fatalf("run: %d %s %s", code, out, errb)
		}
	}
}
