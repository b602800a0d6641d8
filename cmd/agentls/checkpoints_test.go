package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A headless turn's bash step is listed as a checkpoint; restoring to it
// puts the files back, undo brings the step's changes again; the JSON
// says what was done.
func TestCheckpointsCommand(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("AGENTLS_TEST_KEEP_DATA", "1")
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	autoTurn(t, ws, `{"turns":[
		{"tool_calls":[{"name":"bash","input":{"command":"sed -i s/one/two/ a.txt && mkdir gen && echo out > gen/b.txt"}}]},
		{"text":"done"}]}`)()
	code, out, errb := runCLI(t, "checkpoints", "list", "--workspace", ws, "--json")
	if code != 0 {
		t.Fatalf("list: %d %s", code, errb)
	}
	var list struct {
		Session     string
		Checkpoints []struct {
			ID      int64
			Tool    string
			Title   string
			Changed int
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Checkpoints) != 1 {
		t.Fatalf("list: %v\n%s", err, out)
	}
	c := list.Checkpoints[0]
	if c.Tool != "bash" || c.Changed != 3 || !strings.Contains(c.Title, "sed -i") {
		t.Errorf("checkpoint = %+v", c)
	}
	code, out, errb = runCLI(t, "checkpoints", "restore", "--workspace", ws, "--json", strconvI(c.ID))
	if code != 0 {
		t.Fatalf("restore: %d %s %s", code, out, errb)
	}
	var rep struct {
		To, Undo int64
		Restored []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.To != c.ID || rep.Undo == 0 || len(rep.Restored) != 3 {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt = %q after restore", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "gen")); !os.IsNotExist(err) {
		t.Errorf("gen after restore: %v", err)
	}
	if code, out, errb = runCLI(t, "checkpoints", "undo", "--workspace", ws); code != 0 || !strings.Contains(out, "restored to checkpoint") {
		t.Fatalf("undo: %d %s %s", code, out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "gen", "b.txt")); string(b) != "out\n" {
		t.Errorf("gen/b.txt = %q after undo", b)
	}
	for _, bad := range [][]string{
		{"checkpoints", "restore", "--workspace", ws},
		{"checkpoints", "restore", "--workspace", ws, "x"},
		{"checkpoints", "frob", "--workspace", ws},
	} {
		if code, _, _ := runCLI(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code, _, errb := runCLI(t, "checkpoints", "restore", "--workspace", ws, "999"); code != 1 || !strings.Contains(errb, "no such checkpoint") {
		t.Errorf("unknown checkpoint: %d %s", code, errb)
	}
}

func strconvI(n int64) string { b, _ := json.Marshal(n); return string(b) }
