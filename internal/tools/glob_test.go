package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGlob(t *testing.T) {
	files := map[string]string{
		".gitignore":         "gen/\n*.tmp\n",
		"main.go":            "",
		"util.go":            "",
		"cmd/app/main.go":    "",
		"web/a.ts":           "",
		"web/b.tsx":          "",
		"web/c.js":           "",
		"gen/x.go":           "",
		"scratch.tmp":        "",
		"node_modules/m.go":  "",
		"docs/guide.md":      "",
		"docs/img/guide.png": "",
	}
	tests := []struct {
		name    string
		in      globInput
		exact   string // lines in any order, see below; "" to skip
		wantErr bool
		want    []string
		notWant []string
	}{
		{
			name:  "all depths, gitignore and skip list applied",
			in:    globInput{Pattern: "**/*.go"},
			exact: "cmd/app/main.go\nmain.go\nutil.go",
		},
		{
			name:  "no slash matches the top level only",
			in:    globInput{Pattern: "*.go"},
			exact: "main.go\nutil.go",
		},
		{
			name:  "braces",
			in:    globInput{Pattern: "web/*.{ts,tsx}"},
			exact: "web/a.ts\nweb/b.tsx",
		},
		{
			name:  "path narrows the search; results stay relative to the root",
			in:    globInput{Pattern: "*.md", Path: "docs"},
			exact: "docs/guide.md",
		},
		{
			name:  "naming an ignored folder in the pattern finds its files",
			in:    globInput{Pattern: "gen/*.go"},
			exact: "gen/x.go",
		},
		{
			name:  "leading ./ is accepted",
			in:    globInput{Pattern: "./cmd/**/*.go"},
			exact: "cmd/app/main.go",
		},
		{
			name: "folders are not returned",
			in:   globInput{Pattern: "**/app"},
			want: []string{`No files found matching "**/app" in /`},
		},
		{
			name: "no match hints at **/ for a bare pattern",
			in:   globInput{Pattern: "*.md"},
			want: []string{"No files found", `"**/*.md"`},
		},
		{
			name:    "invalid pattern",
			in:      globInput{Pattern: "web/*.{ts"},
			wantErr: true,
			want:    []string{"invalid pattern"},
		},
		{
			name:    "pattern required",
			in:      globInput{},
			wantErr: true,
			want:    []string{"pattern is required"},
		},
		{
			name:    "path must be a folder",
			in:      globInput{Pattern: "*", Path: "main.go"},
			wantErr: true,
			want:    []string{"is a file"},
		},
		{
			name:    "climbing out with the pattern is refused",
			in:      globInput{Pattern: "../*"},
			wantErr: true,
			want:    []string{"is outside the workspace ("},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			writeFiles(t, root, files)
			// Same mtime for all: ties sort by path, so exact is stable.
			stamp := time.Now().Add(-time.Hour)
			for rel := range files {
				if err := os.Chtimes(filepath.Join(root, rel), stamp, stamp); err != nil {
					t.Fatal(err)
				}
			}
			res := callTool(t, NewGlobTool(ws), tc.in)
			if tc.exact != "" && res.Content != tc.exact {
				t.Errorf("content:\n%s\nwant:\n%s", res.Content, tc.exact)
			}
			checkResult(t, res, tc.wantErr, tc.want, tc.notWant)
		})
	}
}

func TestGlobNewestFirstAndCap(t *testing.T) {
	ws, root := newTestWS(t, nil)
	base := time.Now().Add(-24 * time.Hour)
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("f%03d.txt", i)] = ""
	}
	writeFiles(t, root, files)
	for i := range 120 {
		// f119 newest, f000 oldest.
		ts := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(root, fmt.Sprintf("f%03d.txt", i)), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	res := callTool(t, NewGlobTool(ws), globInput{Pattern: "*.txt"})
	lines := strings.Split(res.Content, "\n")
	if lines[0] != "f119.txt" || lines[99] != "f020.txt" {
		t.Errorf("first %q, 100th %q; want f119.txt and f020.txt", lines[0], lines[99])
	}
	checkResult(t, res, false, []string{"showing the 100 most recently modified of 120 matching files"}, []string{"f019.txt"})
}

func TestGlobRootsAndDescribe(t *testing.T) {
	ws, root := newTestWS(t, nil)
	second, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"a.go": ""})
	writeFiles(t, second, map[string]string{"pkg/b.go": ""})
	if err := ws.SetRoots([]string{root, second}); err != nil {
		t.Fatal(err)
	}
	tool := NewGlobTool(ws)

	// No path: the first root only.
	checkResult(t, callTool(t, tool, globInput{Pattern: "**/*.go"}), false, []string{"a.go"}, []string{"b.go"})
	// An absolute path into the second root: absolute results.
	checkResult(t, callTool(t, tool, globInput{Pattern: "**/*.go", Path: second}), false,
		[]string{filepath.Join(second, "pkg", "b.go")}, []string{"a.go"})
	// An absolute pattern is split into path and pattern.
	checkResult(t, callTool(t, tool, globInput{Pattern: second + "/**/*.go"}), false,
		[]string{filepath.Join(second, "pkg", "b.go")}, nil)

	req, err := describeTool(t, tool, globInput{Pattern: "pkg/**/*.go", Path: second})
	if err != nil {
		t.Fatal(err)
	}
	if req.OutsideRoots || req.Paths[0] != filepath.Join(second, "pkg") || req.Capability != "fs.glob" {
		t.Errorf("Describe = %+v", req)
	}
	out := outsideDir(t)
	req, err = describeTool(t, tool, globInput{Pattern: "*", Path: out})
	if err != nil {
		t.Fatal(err)
	}
	if !req.OutsideRoots {
		t.Error("Describe: OutsideRoots false for a folder outside the roots")
	}
	checkResult(t, callTool(t, tool, globInput{Pattern: "*", Path: out}), true, []string{"is outside the workspace ("}, []string{"secret.txt"})
	if _, err := describeTool(t, tool, globInput{Pattern: "{"}); err == nil {
		t.Error("Describe accepted an invalid pattern")
	}
}
