package tools

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// leftovers lists the temporary files of atomic writes under root.
func leftovers(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), tempInfix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestFaultDiskChangedDuringWrite: the file changes on disk after the
// change was computed, as a person saving in another program while the
// write syncs would do (or it appears, where there was none). The rename
// does not happen: the other change stands, the model is told, nothing
// is left behind.
func TestFaultDiskChangedDuringWrite(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after string // "" before: the file did not exist
	}{
		{"changed", "package a\n", "package a // saved elsewhere\n"},
		{"same size, new mtime", "package a\n", "package b\n"},
		{"created meanwhile", "", "package c\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			pending := t.TempDir()
			ws.SetPendingDir(pending)
			path := filepath.Join(root, "a.go")
			cur := File{Path: path}
			if tc.before != "" {
				writeFiles(t, root, map[string]string{"a.go": tc.before})
				var err error
				if cur, err = ws.ReadFile(path); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(path, []byte(tc.after), 0o644); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(time.Minute)
			os.Chtimes(path, later, later)
			_, err := ws.writeChange(context.Background(), cur, "package agent\n", "test")
			if err == nil || !strings.Contains(err.Error(), "changed on disk while agentls was writing it") || !strings.Contains(err.Error(), "view it again") {
				t.Fatalf("write over a file that changed: %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.after {
				t.Errorf("disk = %q, want the other change %q", got, tc.after)
			}
			if l := leftovers(root); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
			if m, _ := os.ReadDir(pending); len(m) > 0 {
				t.Errorf("markers left: %v", m)
			}
		})
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	return cmd.Process.Pid
}

// TestFaultKilledWriteIsSwept: a process killed between creating its
// temporary file and the rename left the file and its marker. The next
// sweep removes them; a running process's write is left alone, and a
// marker naming something that is not a temporary file removes nothing.
func TestFaultKilledWriteIsSwept(t *testing.T) {
	_, root := newTestWS(t, nil)
	pending := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a.go":                   "package a\n",
		"sub/.b.go.agentls-dead": "half a fi",
		".c.go.agentls-running":  "being written",
		"keep.go":                "package keep\n",
	})
	marker := func(pid int, name, temp string) {
		t.Helper()
		_, err := markPending(pending, root, temp)
		if err != nil {
			t.Fatal(err)
		}
		// markPending names the marker after this process: rename it to
		// the process the test stands for.
		ms, _ := filepath.Glob(filepath.Join(pending, strconv.Itoa(os.Getpid())+"-*"))
		if len(ms) != 1 {
			t.Fatalf("markers %v", ms)
		}
		if err := os.Rename(ms[0], filepath.Join(pending, strconv.Itoa(pid)+"-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	dead := deadPID(t)
	marker(dead, "1", "sub/.b.go.agentls-dead")
	marker(os.Getppid(), "2", ".c.go.agentls-running")
	marker(dead, "3", "keep.go")
	removed, err := SweepPendingWrites(pending)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "sub/.b.go.agentls-dead"); len(removed) != 1 || removed[0] != want {
		t.Errorf("removed %v, want [%s]", removed, want)
	}
	if l := leftovers(root); len(l) != 1 || filepath.Base(l[0]) != ".c.go.agentls-running" {
		t.Errorf("temporary files now %v, want only the running write's", l)
	}
	for _, f := range []string{"a.go", "keep.go"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if ms, _ := os.ReadDir(pending); len(ms) != 1 || !strings.HasPrefix(ms[0].Name(), strconv.Itoa(os.Getppid())+"-") {
		t.Errorf("markers now %v, want only the running process's", ms)
	}
}
