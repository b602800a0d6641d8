package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	files := map[string]string{
		".gitignore":        "ignored/\n",
		"main.go":           "package main\n\nfunc main() {\n\tfmt.Println(\"a.b\")\n}\n",
		"util.go":           "package main\r\n\r\nfunc helper() {}\r\n",
		"web/app.ts":        "function main() {}\n",
		"web/view.tsx":      "const main = 1\n",
		"web/style.css":     "main { color: red }\n",
		"ignored/x.go":      "func main() {}\n",
		"node_modules/m.js": "function main() {}\n",
		"bin/tool":          "\x00\x01func main() {}\n",
		"sub/deep/d.go":     "func main() {}\n",
	}
	tests := []struct {
		name    string
		in      grepInput
		exact   string
		wantErr bool
		want    []string
		notWant []string
	}{
		{
			name: "regexp, grouped by file, sorted by path",
			in:   grepInput{Pattern: `^func \w+\(`},
			exact: "Found 3 matches in 3 files.\n" +
				"\nmain.go:\n  Line 3: func main() {\n" +
				"\nsub/deep/d.go:\n  Line 1: func main() {}\n" +
				"\nutil.go:\n  Line 3: func helper() {}",
		},
		{
			name:    "literal text",
			in:      grepInput{Pattern: `"a.b"`, LiteralText: true},
			want:    []string{"main.go:\n  Line 4: \tfmt.Println(\"a.b\")"},
			notWant: []string{"util.go"},
		},
		{
			name:    "regexp dot is not literal",
			in:      grepInput{Pattern: `a.b`},
			want:    []string{"main.go:"},
			notWant: []string{"Found 0"},
		},
		{
			name:    "literal text does not match as a regexp",
			in:      grepInput{Pattern: `fmt.*`, LiteralText: true},
			want:    []string{"No matches found"},
			notWant: []string{"main.go"},
		},
		{
			name:    "include with braces",
			in:      grepInput{Pattern: "main", Include: "*.{ts,tsx}"},
			want:    []string{"web/app.ts:", "web/view.tsx:", "Found 2 matches in 2 files."},
			notWant: []string{"style.css", "main.go"},
		},
		{
			name:    "include with a slash matches the relative path",
			in:      grepInput{Pattern: "main", Include: "sub/**/*.go"},
			want:    []string{"sub/deep/d.go:"},
			notWant: []string{"\nmain.go:"},
		},
		{
			name:    "path narrows, binary and ignored files skipped",
			in:      grepInput{Pattern: "func main", Path: "."},
			notWant: []string{"bin/tool", "ignored/", "node_modules"},
			want:    []string{"main.go:", "sub/deep/d.go:"},
		},
		{
			name:    "single file path",
			in:      grepInput{Pattern: "func", Path: "util.go"},
			exact:   "Found 1 match in 1 file.\n\nutil.go:\n  Line 3: func helper() {}",
			notWant: []string{"\r"},
		},
		{
			name: "case-insensitive flag",
			in:   grepInput{Pattern: "(?i)PACKAGE MAIN"},
			want: []string{"Found 2 matches"},
		},
		{
			name:  "no matches",
			in:    grepInput{Pattern: "nothing-here", Include: "*.go"},
			exact: `No matches found for "nothing-here" in {root} (files matching *.go).`,
		},
		{
			name:    "invalid regexp",
			in:      grepInput{Pattern: "func (main"},
			wantErr: true,
			want:    []string{"invalid regular expression", "literal_text"},
		},
		{
			name:    "invalid include",
			in:      grepInput{Pattern: "x", Include: "*.{go"},
			wantErr: true,
			want:    []string{"invalid include pattern"},
		},
		{
			name:    "missing path",
			in:      grepInput{Pattern: "x", Path: "mian.go"},
			wantErr: true,
			want:    []string{"Path not found: mian.go", "main.go"},
		},
		{
			name:    "pattern required",
			in:      grepInput{},
			wantErr: true,
			want:    []string{"pattern is required"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			writeFiles(t, root, files)
			res := callTool(t, NewGrepTool(ws), tc.in)
			if want := strings.ReplaceAll(tc.exact, "{root}", root); want != "" && res.Content != want {
				t.Errorf("content:\n%q\nwant:\n%q", res.Content, want)
			}
			checkResult(t, res, tc.wantErr, tc.want, tc.notWant)
		})
	}
}

func TestGrepOverlay(t *testing.T) {
	ov := mapOverlay{}
	ws, root := newTestWS(t, ov)
	writeFiles(t, root, map[string]string{"a.go": "old text\n", "bin.dat": "\x00binary on disk\n"})
	ov[filepath.Join(root, "a.go")] = Document{Text: "line one\nnew text\n", Version: 2}
	ov[filepath.Join(root, "bin.dat")] = Document{Text: "text in buffer\n", Version: 1}
	ov[filepath.Join(root, "unsaved.go")] = Document{Text: "new text too\n", Version: 1}
	tool := NewGrepTool(ws)

	res := callTool(t, tool, grepInput{Pattern: "text"})
	checkResult(t, res, false, []string{"a.go:\n  Line 2: new text", "bin.dat:\n  Line 1: text in buffer"}, []string{"old text"})
	// A buffer with no file on disk is found when named as path.
	res = callTool(t, tool, grepInput{Pattern: "text", Path: "unsaved.go"})
	checkResult(t, res, false, []string{"unsaved.go:\n  Line 1: new text too"}, nil)
}

func TestGrepCapsAndLongLines(t *testing.T) {
	ws, root := newTestWS(t, nil)
	var many strings.Builder
	for i := range 150 {
		fmt.Fprintf(&many, "hit %d\n", i)
	}
	long := strings.Repeat("x", 3000) + "NEEDLE" + strings.Repeat("y", 3000)
	writeFiles(t, root, map[string]string{"many.txt": many.String(), "long.txt": long + "\n"})
	tool := NewGrepTool(ws)

	res := callTool(t, tool, grepInput{Pattern: `^hit \d+$`})
	checkResult(t, res, false, []string{"Found more than 100 matches; showing the first 100", "  Line 100: hit 99", "Results are truncated at 100 matches"}, []string{"Line 101:"})

	res = callTool(t, tool, grepInput{Pattern: "NEEDLE"})
	_, line, _ := strings.Cut(res.Content, "  Line 1: ")
	if !strings.HasPrefix(line, "...") || !strings.HasSuffix(line, "...") || !strings.Contains(line, "NEEDLE") {
		t.Errorf("long line not cut around the match: %.80q…", line)
	}
	if len(line) > grepMaxLine+6 {
		t.Errorf("cut line is %d bytes, want at most %d", len(line), grepMaxLine+6)
	}
}

func TestGrepSymlinksAndOutside(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	writeFiles(t, root, map[string]string{"real.txt": "top secret copy\n"})
	for name, target := range map[string]string{
		"out-file.txt": filepath.Join(out, "secret.txt"),
		"out-dir":      out,
		"in-file.txt":  filepath.Join(root, "real.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tool := NewGrepTool(ws)
	res := callTool(t, tool, grepInput{Pattern: "secret"})
	checkResult(t, res, false, []string{"in-file.txt:", "real.txt:"}, []string{"out-file.txt", "out-dir", "top secret\n"})

	for _, p := range []string{out, "out-dir", "out-file.txt"} {
		req, err := describeTool(t, tool, grepInput{Pattern: "x", Path: p})
		if err != nil {
			t.Fatal(err)
		}
		if !req.OutsideRoots {
			t.Errorf("Describe(%s): OutsideRoots false", p)
		}
		checkResult(t, callTool(t, tool, grepInput{Pattern: "secret", Path: p}), true, []string{"is outside the workspace ("}, nil)
	}
	req, err := describeTool(t, tool, grepInput{Pattern: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Capability != "fs.grep" || req.Paths[0] != root || req.OutsideRoots || !strings.Contains(req.Summary, `"x"`) {
		t.Errorf("Describe = %+v", req)
	}
	if _, err := describeTool(t, tool, grepInput{Pattern: "("}); err == nil {
		t.Error("Describe accepted an invalid regexp")
	}
}

// TestGrepFirstMatchesInPathOrder: with more matches than the cap, grep
// shows the first 100 in path order, the same every run, whichever
// order its workers take the files in, and an editor buffer counts as
// the file.
func TestGrepFirstMatchesInPathOrder(t *testing.T) {
	ov := mapOverlay{}
	ws, root := newTestWS(t, ov)
	files := map[string]string{}
	var paths []string
	for i := range 40 {
		p := fmt.Sprintf("d%d/sub%d/f%02d.txt", i%3, i%5, i)
		files[p] = "hit 1\nmiss\nhit 2\nhit 3\n"
		paths = append(paths, p)
	}
	writeFiles(t, root, files)
	// The buffer of the first file in path order has one hit, not three.
	slices.Sort(paths)
	ov[filepath.Join(root, paths[0])] = Document{Text: "miss\nhit buffer\n", Version: 1}
	var want strings.Builder
	fmt.Fprintf(&want, "Found more than 100 matches; showing the first 100, in 34 files.\n")
	n := 0
	for i, p := range paths {
		want.WriteString("\n" + p + ":\n")
		lines := []string{"  Line 1: hit 1", "  Line 3: hit 2", "  Line 4: hit 3"}
		if i == 0 {
			lines = []string{"  Line 2: hit buffer"}
		}
		lines = lines[:min(len(lines), 100-n)]
		n += len(lines)
		want.WriteString(strings.Join(lines, "\n") + "\n")
		if n == 100 {
			break
		}
	}
	want.WriteString("\n(Results are truncated at 100 matches. Narrow the search with a more specific pattern, path or include.)")
	for range 5 {
		res := callTool(t, NewGrepTool(ws), grepInput{Pattern: "hit"})
		if res.Content != want.String() {
			t.Fatalf("content:\n%s\nwant:\n%s", res.Content, want.String())
		}
	}
}

// TestGrepSkipsBinaryAndTooLarge: a file with a NUL byte or invalid UTF-8
// in its first 8 KiB is binary and skipped, even when the match comes
// before it; a file over 10 MiB is skipped and counted.
func TestGrepSkipsBinaryAndTooLarge(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{
		"text.txt":      "needle\n",
		"nul-after.bin": "needle\n\x00\x01\x02",
		"latin1.txt":    "needle caf\xe9\n",
		"late-nul.txt":  strings.Repeat("x", 9000) + "\x00\nneedle\n",
	})
	big, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.WriteString("needle\n"); err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxReadSize + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	res := callTool(t, NewGrepTool(ws), grepInput{Pattern: "needle"})
	checkResult(t, res, false, []string{"Found 2 matches in 2 files.", "text.txt:", "late-nul.txt:\n  Line 2: needle", "(Skipped 1 files over 10 MiB.)"},
		[]string{"nul-after.bin", "latin1.txt", "big.txt:"})
}
