package tools

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// raceWrites is how many writes the swap race makes.
const raceWrites = 300

// swapper keeps replacing the folder dir inside the workspace by a
// symbolic link to out and putting it back, until stop is closed. A write
// that recreates dir while it is away (the write tool creates missing
// folders) is moved aside to made-N, so the real folder can come back.
type swapper struct {
	root, dir, away, out string
	swaps, made          atomic.Int64
	// calls counts the tool calls ended, so the folder stays long
	// enough for writes to land.
	calls atomic.Int64
}

func (s *swapper) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if os.Rename(s.dir, s.away) != nil {
			continue
		}
		if os.Symlink(s.out, s.dir) == nil {
			s.swaps.Add(1)
		}
		pause(100 * time.Microsecond)
		s.restore()
		// A write that lands syncs to disk, a refusal is quick: keep the
		// folder until up to two more calls ended (at most 20 ms, however
		// loaded the machine), then swap at a random point of the next.
		target := s.calls.Load() + rand.Int64N(3)
		for start := time.Now(); s.calls.Load() < target && time.Since(start) < 20*time.Millisecond; {
			runtime.Gosched()
		}
		pause(200 * time.Microsecond)
	}
}

// pause holds a state for a random time up to max, so writes meet both.
// It spins: a sleep lasts far longer than asked for.
func pause(max time.Duration) {
	for start, d := time.Now(), rand.N(max); time.Since(start) < d; {
		runtime.Gosched()
	}
}

// restore puts the real folder back at dir.
func (s *swapper) restore() {
	for {
		if fi, err := os.Lstat(s.dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			os.Remove(s.dir)
		}
		if os.Rename(s.away, s.dir) == nil {
			return
		}
		// A write made a new folder at dir: keep it, under another name.
		os.Rename(s.dir, filepath.Join(s.root, fmt.Sprintf("made-%d", s.made.Add(1))))
	}
}

// 300 writes through the write and edit tools (their real disk path) race
// a goroutine that keeps swapping a folder of the workspace for a link to
// a folder outside and back. Not one byte lands outside; every write
// either lands inside or fails saying why; no temporary file is left.
func TestWritesRaceFolderSwappedForLink(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"dir/e.txt": "end\n"})
	s := &swapper{root: root, dir: filepath.Join(root, "dir"), away: filepath.Join(root, "dir.away"), out: out}
	write, edit, view := NewWriteTool(ws), NewEditTool(ws), NewViewTool(ws)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.run(stop)
	}()

	written := map[string]string{} // file name → content, for writes that succeeded
	var edited []string            // lines added by edits that succeeded
	failures := map[string]int{}   // why writes failed
	for i := range raceWrites {
		var res Result
		if i%2 == 0 {
			name := fmt.Sprintf("w%03d.txt", i)
			content := fmt.Sprintf("write %d\n", i)
			res = callTool(t, write, writeInput{FilePath: "dir/" + name, Content: content})
			if !res.IsError {
				written[name] = content
			}
		} else {
			callTool(t, view, viewInput{FilePath: "dir/e.txt"})
			line := fmt.Sprintf("edit %d", i)
			res = callTool(t, edit, editInput{FilePath: "dir/e.txt", OldString: "end", NewString: line + "\nend"})
			if !res.IsError {
				edited = append(edited, line)
			}
		}
		if res.IsError {
			failures[failureKind(t, res.Content)]++
		}
		s.calls.Add(1)
	}
	close(stop)
	wg.Wait()
	if fi, err := os.Lstat(s.dir); err != nil || !fi.IsDir() {
		s.restore()
	}

	// Nothing outside, not even a temporary file.
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != out {
			t.Errorf("landed outside the workspace: %s", p)
		}
		return nil
	})
	// Every write that succeeded is inside, whole: in dir, or in a folder
	// a write made while dir was away.
	found := map[string][]string{} // file name → the contents of its copies
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if strings.Contains(d.Name(), ".agentls-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			found[d.Name()] = append(found[d.Name()], string(data))
		}
		return nil
	})
	for name, content := range written {
		if !slices.Contains(found[name], content) {
			t.Errorf("%s was reported written but its copies inside the workspace hold %q, want %q", name, found[name], content)
		}
	}
	for _, line := range edited {
		if !slices.ContainsFunc(found["e.txt"], func(text string) bool { return strings.Contains(text, line+"\n") }) {
			t.Errorf("edit %q was reported done but no e.txt inside the workspace has it: %q", line, found["e.txt"])
		}
	}
	t.Logf("%d swaps, %d writes landed (%d edits), failures by kind: %v, folders made while away: %d",
		s.swaps.Load(), len(written)+len(edited), len(edited), failures, s.made.Load())
	if s.swaps.Load() == 0 || len(written)+len(edited) == 0 || failures["outside"] == 0 {
		t.Errorf("the race was not exercised: %d swaps, %d writes landed, %d refused as outside", s.swaps.Load(), len(written)+len(edited), failures["outside"])
	}
}

// failureKind classifies a failed write's message, failing the test for
// one that does not say what happened.
func failureKind(t *testing.T, msg string) string {
	t.Helper()
	kinds := []struct{ kind, text string }{
		{"outside", "is outside the workspace (a symbolic link leads out)"},
		{"folder swapped", "its folder was replaced or moved while writing, so nothing was written"},
		{"folder swapped", "a folder on its path was replaced while agentls used it"},
		{"not read", "view it first"},
		{"changed", "view it again before editing"},
		{"missing", "no such file or directory"},
		{"missing", "does not exist"},
	}
	for _, k := range kinds {
		if strings.Contains(msg, k.text) {
			return k.kind
		}
	}
	t.Errorf("a write failed without a clear reason: %s", msg)
	return "unclear"
}
