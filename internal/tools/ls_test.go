package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLS(t *testing.T) {
	files := map[string]string{
		".gitignore":          "*.log\ndist/\n",
		".git/HEAD":           "ref",
		"README.md":           "",
		"app.log":             "",
		"dist/bundle.js":      "",
		"node_modules/m/x.js": "",
		"src/main.go":         "",
		"src/gen/z.go":        "",
		"src/.gitignore":      "secret.txt\n",
		"src/secret.txt":      "",
		"testdata/big.txt":    "",
		".github/ci.yml":      "",
	}
	tests := []struct {
		name    string
		in      lsInput
		exact   string // with {root} for the root path
		wantErr bool
		want    []string
		notWant []string
	}{
		{
			name: "tree of the first root, gitignore applied",
			in:   lsInput{},
			exact: "{root}/\n" +
				"  .github/\n" +
				"    ci.yml\n" +
				"  .gitignore\n" +
				"  README.md\n" +
				"  src/\n" +
				"    .gitignore\n" +
				"    gen/\n" +
				"      z.go\n" +
				"    main.go\n" +
				"  testdata/\n" +
				"    big.txt",
		},
		{
			name:    "ignore patterns",
			in:      lsInput{Ignore: []string{"testdata/", "gen", "*.md"}},
			want:    []string{"src/", "main.go", ".github/"},
			notWant: []string{"testdata", "gen/", "z.go", "README.md"},
		},
		{
			name:    "ignore can re-include what .gitignore hides",
			in:      lsInput{Ignore: []string{"!*.log"}},
			want:    []string{"app.log"},
			notWant: []string{"bundle.js"},
		},
		{
			name: "subfolder",
			in:   lsInput{Path: "src"},
			exact: "{root}/src/\n" +
				"  .gitignore\n" +
				"  gen/\n" +
				"    z.go\n" +
				"  main.go",
		},
		{
			name:  "ignored folder named explicitly",
			in:    lsInput{Path: "dist"},
			exact: "{root}/dist/\n  bundle.js",
		},
		{
			name:    "a file is refused",
			in:      lsInput{Path: "README.md"},
			wantErr: true,
			want:    []string{"is a file", "view"},
		},
		{
			name:    "missing folder suggests",
			in:      lsInput{Path: "scr"},
			wantErr: true,
			want:    []string{"Folder not found: scr", "src"},
		},
		{
			name:    "invalid ignore pattern",
			in:      lsInput{Ignore: []string{"[oops"}},
			wantErr: true,
			want:    []string{"ignore", "invalid pattern"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			writeFiles(t, root, files)
			res := callTool(t, NewLSTool(ws), tc.in)
			if tc.exact != "" {
				if want := strings.ReplaceAll(tc.exact, "{root}", root); res.Content != want {
					t.Errorf("content:\n%s\nwant:\n%s", res.Content, want)
				}
			}
			checkResult(t, res, tc.wantErr, tc.want, tc.notWant)
		})
	}
}

func TestLSTruncates(t *testing.T) {
	ws, root := newTestWS(t, nil)
	files := map[string]string{}
	for i := range 990 {
		files[fmt.Sprintf("f%04d.txt", i)] = ""
	}
	for i := range 30 {
		files[fmt.Sprintf("zdir/g%02d.txt", i)] = ""
	}
	files["zdir/asub/deep.txt"] = ""
	writeFiles(t, root, files)
	res := callTool(t, NewLSTool(ws), lsInput{})
	lines := strings.Split(res.Content, "\n")
	entries := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") {
			entries++
		}
	}
	if entries != lsMaxEntries {
		t.Errorf("%d entries listed, want %d", entries, lsMaxEntries)
	}
	// 990 files + zdir fill 991; asub and g00-g07 fill 1000, so zdir is
	// partial and asub was never read.
	checkResult(t, res, false,
		[]string{"Listing truncated at 1000 entries", "  zdir/ …\n", "    asub/ …\n", "    g07.txt\n", "f0989.txt"},
		[]string{"deep.txt", "g08.txt"})
}

func TestLSCompleteFoldersNotMarked(t *testing.T) {
	ws, root := newTestWS(t, nil)
	files := map[string]string{"adir/one.txt": ""}
	for i := range lsMaxEntries {
		files[fmt.Sprintf("bdir/f%04d.txt", i)] = ""
	}
	writeFiles(t, root, files)
	res := callTool(t, NewLSTool(ws), lsInput{})
	checkResult(t, res, false, []string{"  adir/\n    one.txt", "  bdir/ …"}, []string{"adir/ …"})
}

func TestLSOutsideAndDescribe(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tool := NewLSTool(ws)
	for _, p := range []string{out, "link", ".."} {
		req, err := describeTool(t, tool, lsInput{Path: p})
		if err != nil {
			t.Fatal(err)
		}
		if !req.OutsideRoots {
			t.Errorf("Describe(%s): OutsideRoots false", p)
		}
		checkResult(t, callTool(t, tool, lsInput{Path: p}), true, []string{"is outside the workspace ("}, []string{"secret.txt"})
	}
	req, err := describeTool(t, tool, lsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if req.OutsideRoots || len(req.Paths) != 1 || req.Paths[0] != root || req.Capability != "fs.list" || !req.ReadOnly {
		t.Errorf("Describe(default) = %+v, want the first root, inside, fs.list, read-only", req)
	}
	if _, err := describeTool(t, tool, lsInput{Ignore: []string{"[x"}}); err == nil {
		t.Error("Describe accepted an invalid ignore pattern")
	}
}
