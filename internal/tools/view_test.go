package tools

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// numbered builds a file of n lines "line 1".."line n", newline-terminated.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestViewOutput(t *testing.T) {
	long := strings.Repeat("a", 2500)
	// 1999 ASCII bytes then a 3-byte rune straddling the 2000-byte cut.
	runeCut := strings.Repeat("b", 1999) + "€tail"
	tests := []struct {
		name  string
		files map[string]string
		in    viewInput
		// exact, when set, is the whole expected content.
		exact   string
		wantErr bool
		want    []string
		notWant []string
	}{
		{
			name:  "format and trailing newline adds no empty line",
			files: map[string]string{"a.txt": "alpha\nbeta\n"},
			in:    viewInput{FilePath: "a.txt"},
			exact: "<file>\n     1|alpha\n     2|beta\n</file>",
		},
		{
			name:  "no trailing newline",
			files: map[string]string{"a.txt": "alpha\nbeta"},
			in:    viewInput{FilePath: "a.txt"},
			exact: "<file>\n     1|alpha\n     2|beta\n</file>",
		},
		{
			name:  "blank last line is kept",
			files: map[string]string{"a.txt": "alpha\n\n"},
			in:    viewInput{FilePath: "a.txt"},
			exact: "<file>\n     1|alpha\n     2|\n</file>",
		},
		{
			name:  "CRLF shown without carriage returns",
			files: map[string]string{"a.txt": "one\r\ntwo\r\n"},
			in:    viewInput{FilePath: "a.txt"},
			exact: "<file>\n     1|one\n     2|two\n</file>",
		},
		{
			name:  "empty file",
			files: map[string]string{"e.txt": ""},
			in:    viewInput{FilePath: "e.txt"},
			exact: "<file>\n(File is empty.)\n</file>",
		},
		{
			name:    "default limit is 200 with more-lines note",
			files:   map[string]string{"n.txt": numbered(250)},
			in:      viewInput{FilePath: "n.txt"},
			want:    []string{"   200|line 200\n", "(File has more lines. Use 'offset' parameter to read beyond line 200)"},
			notWant: []string{"line 201"},
		},
		{
			name:    "exact limit has no more-lines note",
			files:   map[string]string{"n.txt": numbered(5)},
			in:      viewInput{FilePath: "n.txt", Limit: 5},
			want:    []string{"     5|line 5"},
			notWant: []string{"File has more lines"},
		},
		{
			name:  "one line short of the end has the note",
			files: map[string]string{"n.txt": numbered(6)},
			in:    viewInput{FilePath: "n.txt", Limit: 5},
			want:  []string{"beyond line 5)"},
		},
		{
			name:  "offset is a 0-based line index",
			files: map[string]string{"n.txt": numbered(10)},
			in:    viewInput{FilePath: "n.txt", Offset: 3, Limit: 2},
			exact: "<file>\n     4|line 4\n     5|line 5\n\n(File has more lines. Use 'offset' parameter to read beyond line 5)\n</file>",
		},
		{
			name:    "offset at the last line",
			files:   map[string]string{"n.txt": numbered(10)},
			in:      viewInput{FilePath: "n.txt", Offset: 9},
			exact:   "<file>\n    10|line 10\n</file>",
			notWant: []string{"more lines"},
		},
		{
			name:  "huge limit does not overflow",
			files: map[string]string{"n.txt": numbered(3)},
			in:    viewInput{FilePath: "n.txt", Offset: 1, Limit: math.MaxInt},
			exact: "<file>\n     2|line 2\n     3|line 3\n</file>",
		},
		{
			name:    "offset past the end",
			files:   map[string]string{"n.txt": numbered(10)},
			in:      viewInput{FilePath: "n.txt", Offset: 10},
			wantErr: true,
			want:    []string{"past the end", "10 lines"},
		},
		{
			name:  "wide line numbers are not padded",
			files: map[string]string{"n.txt": strings.Repeat("x\n", 1_000_000) + "last\n"},
			in:    viewInput{FilePath: "n.txt", Offset: 1_000_000, Limit: 1},
			exact: "<file>\n1000001|last\n</file>",
		},
		{
			name:    "long line cut at 2000 bytes",
			files:   map[string]string{"l.txt": long + "\nshort\n"},
			in:      viewInput{FilePath: "l.txt"},
			want:    []string{"     1|" + strings.Repeat("a", 2000) + "...\n", "     2|short"},
			notWant: []string{strings.Repeat("a", 2001)},
		},
		{
			name:    "long line cut on a rune boundary",
			files:   map[string]string{"r.txt": runeCut + "\n"},
			in:      viewInput{FilePath: "r.txt"},
			exact:   "<file>\n     1|" + strings.Repeat("b", 1999) + "...\n</file>",
			notWant: []string{"\xe2"},
		},
		{
			name:  "a huge first line does not stop reading later lines",
			files: map[string]string{"h.txt": strings.Repeat("x", 300<<10) + "\ntarget\n"},
			in:    viewInput{FilePath: "h.txt", Offset: 1, Limit: 1},
			exact: "<file>\n     2|target\n</file>",
		},
		{
			name:    "section over 200 KiB is refused with advice",
			files:   map[string]string{"big.txt": strings.Repeat(strings.Repeat("z", 2000)+"\n", 150)},
			in:      viewInput{FilePath: "big.txt"},
			wantErr: true,
			want:    []string{"204800-byte", "offset=0 limit=101", "offset=101"},
		},
		{
			name:    "binary refused",
			files:   map[string]string{"b.bin": "PK\x03\x04\x00\x00binary"},
			in:      viewInput{FilePath: "b.bin"},
			wantErr: true,
			want:    []string{"binary file", "b.bin"},
		},
		{
			name:    "not found suggests siblings",
			files:   map[string]string{"src/main.go": "", "src/main_test.go": "", "src/other.txt": "", "src/main.ts": ""},
			in:      viewInput{FilePath: "src/mai.go"},
			wantErr: true,
			want:    []string{"File not found: src/mai.go", "Did you mean one of these?\nsrc/main.go"},
			notWant: []string{"other.txt"},
		},
		{
			name:    "not found by stem",
			files:   map[string]string{"src/main.ts": ""},
			in:      viewInput{FilePath: "src/main.go"},
			wantErr: true,
			want:    []string{"Did you mean", "src/main.ts"},
		},
		{
			name:    "not found without suggestions",
			files:   map[string]string{"src/zzz.go": ""},
			in:      viewInput{FilePath: "src/main.go"},
			wantErr: true,
			want:    []string{"File not found: src/main.go"},
			notWant: []string{"Did you mean"},
		},
		{
			name:    "directory points to ls",
			files:   map[string]string{"dir/x.go": ""},
			in:      viewInput{FilePath: "dir"},
			wantErr: true,
			want:    []string{"is a directory", "ls"},
		},
		{
			name:    "missing file_path",
			in:      viewInput{},
			wantErr: true,
			want:    []string{"file_path is required"},
		},
		{
			name:    "negative offset",
			files:   map[string]string{"a.txt": "a\n"},
			in:      viewInput{FilePath: "a.txt", Offset: -1},
			wantErr: true,
			want:    []string{"view: input: offset: minimum: -1 is less than 0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			writeFiles(t, root, tc.files)
			res := callTool(t, NewViewTool(ws), tc.in)
			if tc.exact != "" && res.Content != tc.exact {
				t.Errorf("content:\n%q\nwant:\n%q", res.Content, tc.exact)
			}
			checkResult(t, res, tc.wantErr, tc.want, tc.notWant)
		})
	}
}

func TestViewSuggestionsCapAtThree(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"conf1": "", "conf2": "", "conf3": "", "conf4": ""})
	res := callTool(t, NewViewTool(ws), viewInput{FilePath: "conf"})
	_, list, ok := strings.Cut(res.Content, "Did you mean one of these?\n")
	if !ok {
		t.Fatalf("no suggestions:\n%s", res.Content)
	}
	if n := len(strings.Split(list, "\n")); n != 3 {
		t.Errorf("%d suggestions, want 3:\n%s", n, list)
	}
}

func TestViewAbsolutePathInSecondRoot(t *testing.T) {
	ws, _ := newTestWS(t, nil)
	second, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, second, map[string]string{"b.txt": "second root\n"})
	if err := ws.SetRoots(append(ws.Roots(), second)); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, NewViewTool(ws), viewInput{FilePath: filepath.Join(second, "b.txt")})
	checkResult(t, res, false, []string{"     1|second root"}, nil)
}

func TestViewOutsideRoots(t *testing.T) {
	out := outsideDir(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) string // returns file_path
	}{
		{"absolute path outside", func(t *testing.T, root string) string { return filepath.Join(out, "secret.txt") }},
		{"relative path climbing out", func(t *testing.T, root string) string {
			rel, err := filepath.Rel(root, filepath.Join(out, "secret.txt"))
			if err != nil {
				t.Fatal(err)
			}
			return rel
		}},
		{"symlinked file inside the root", func(t *testing.T, root string) string {
			if err := os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
				t.Fatal(err)
			}
			return "link.txt"
		}},
		{"file below a symlinked folder", func(t *testing.T, root string) string {
			if err := os.Symlink(out, filepath.Join(root, "linkdir")); err != nil {
				t.Fatal(err)
			}
			return "linkdir/secret.txt"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			p := tc.setup(t, root)
			tool := NewViewTool(ws)
			req, err := describeTool(t, tool, viewInput{FilePath: p})
			if err != nil {
				t.Fatal(err)
			}
			if !req.OutsideRoots {
				t.Errorf("Describe: OutsideRoots false for %s", p)
			}
			res := callTool(t, tool, viewInput{FilePath: p})
			checkResult(t, res, true, []string{"is outside the workspace (", root, "agentls only reads inside the workspace folders"}, []string{"top secret"})
		})
	}
}

func TestViewInsideSymlinkAllowed(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"real/a.txt": "inside\n"})
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, NewViewTool(ws), viewInput{FilePath: "alias/a.txt"})
	checkResult(t, res, false, []string{"     1|inside"}, nil)
}

func TestViewDescribe(t *testing.T) {
	ws, root := newTestWS(t, nil)
	req, err := describeTool(t, NewViewTool(ws), viewInput{FilePath: "src/a.go", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := permission.Request{
		Tool: "view", Capability: "fs.read", Action: permission.ActionRead, ReadOnly: true,
		Paths: []string{filepath.Join(root, "src", "a.go")}, Summary: "agentls wants to read src/a.go",
	}
	if fmt.Sprint(req) != fmt.Sprint(want) {
		t.Errorf("Describe =\n%+v\nwant\n%+v", req, want)
	}
	if _, err := describeTool(t, NewViewTool(ws), map[string]any{"file_path": 3}); err == nil {
		t.Error("Describe accepted a number as file_path")
	}
	if _, err := describeTool(t, NewViewTool(ws), viewInput{}); err == nil {
		t.Error("Describe accepted an empty file_path")
	}
}

func TestViewOverlay(t *testing.T) {
	tests := []struct {
		name    string
		disk    *string // nil: no file on disk
		buffer  string
		want    []string
		notWant []string
	}{
		{
			name:    "unsaved buffer preferred over disk, with a note",
			disk:    ptr("disk text\n"),
			buffer:  "buffer text\n",
			want:    []string{"     1|buffer text", "unsaved buffer, version 7", "differs from the file on disk"},
			notWant: []string{"disk text"},
		},
		{
			name:    "buffer equal to disk has no note",
			disk:    ptr("same\n"),
			buffer:  "same\n",
			want:    []string{"     1|same"},
			notWant: []string{"unsaved"},
		},
		{
			name:   "buffer not yet on disk",
			buffer: "new file\n",
			want:   []string{"     1|new file", "not saved to disk yet"},
		},
		{
			name:   "buffer text is not sniffed as binary on disk",
			disk:   ptr("\x00\x01binary"),
			buffer: "now text\n",
			want:   []string{"     1|now text"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ov := mapOverlay{}
			ws, root := newTestWS(t, ov)
			p := filepath.Join(root, "f.txt")
			if tc.disk != nil {
				writeFiles(t, root, map[string]string{"f.txt": *tc.disk})
			}
			ov[p] = Document{Text: tc.buffer, Version: 7}
			res := callTool(t, NewViewTool(ws), viewInput{FilePath: "f.txt"})
			checkResult(t, res, false, tc.want, tc.notWant)
			if !strings.Contains(res.Content, "<file>\n") || !strings.HasSuffix(res.Content, "</file>") {
				t.Errorf("output not wrapped in <file>:\n%s", res.Content)
			}
		})
	}
}

func ptr(s string) *string { return &s }
