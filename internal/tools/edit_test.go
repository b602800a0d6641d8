package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMultiEditCreates runs multiedit on files that exist or not: a first
// entry with an empty old_string creates the file, as edit does, and the
// entries after it edit what it created; everything else is refused and
// leaves the disk as it was.
func TestMultiEditCreates(t *testing.T) {
	type entry = map[string]any
	tests := []struct {
		name     string
		existing string // content of a.go before the call; "" for none
		edits    []entry
		wantErr  bool
		want     []string // substrings of the result
		wantFile string   // a.go afterwards; "" for absent
	}{
		{
			name:     "one creating entry",
			edits:    []entry{{"old_string": "", "new_string": "package a\n"}},
			want:     []string{"Created a.go"},
			wantFile: "package a\n",
		},
		{
			name: "creating entry, then edits of what it created",
			edits: []entry{
				{"old_string": "", "new_string": "package a\n\nfunc f() {\n\treturn\n}\n"},
				{"old_string": "func f()", "new_string": "func g()"},
				{"old_string": "    return", "new_string": "    return // done"},
			},
			want:     []string{"Created a.go", "Edit 3: Note: old_string did not match the file exactly"},
			wantFile: "package a\n\nfunc g() {\n\treturn // done\n}\n",
		},
		{
			name: "a failing later entry creates nothing and is named by its number",
			edits: []entry{
				{"old_string": "", "new_string": "package a\n"},
				{"old_string": "package b", "new_string": "package c"},
			},
			wantErr: true,
			want:    []string{"edit 2 failed, so no edits were applied", "not found"},
		},
		{
			name: "an empty old_string after the first entry is refused",
			edits: []entry{
				{"old_string": "", "new_string": "package a\n"},
				{"old_string": "", "new_string": "package b\n"},
			},
			wantErr: true,
			want:    []string{"edit 2 failed", "old_string is empty"},
		},
		{
			name:     "a file that exists is not created again",
			existing: "package a\n",
			edits:    []entry{{"old_string": "", "new_string": "package b\n"}, {"old_string": "b", "new_string": "c"}},
			wantErr:  true,
			want:     []string{"a.go already exists"},
			wantFile: "package a\n",
		},
		{
			name:    "a missing file needs a creating first entry",
			edits:   []entry{{"old_string": "package a", "new_string": "package b"}},
			wantErr: true,
			want:    []string{"a.go does not exist", "give the first edit an empty old_string"},
		},
		{
			name:     "existing file: entries are numbered from 1",
			existing: "package a\n\nvar x = 1\n",
			edits:    []entry{{"old_string": "var x = 1", "new_string": "var x = 2"}, {"old_string": "var y", "new_string": "z"}},
			wantErr:  true,
			want:     []string{"edit 2 failed"},
			wantFile: "package a\n\nvar x = 1\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newTestWS(t, nil)
			path := filepath.Join(root, "a.go")
			if tc.existing != "" {
				writeFiles(t, root, map[string]string{"a.go": tc.existing})
				checkResult(t, callTool(t, NewViewTool(ws), map[string]any{"file_path": "a.go"}), false, nil, nil)
			}
			res := callTool(t, NewMultiEditTool(ws), map[string]any{"file_path": "a.go", "edits": tc.edits})
			checkResult(t, res, tc.wantErr, tc.want, nil)
			data, err := os.ReadFile(path)
			switch {
			case tc.wantFile == "" && err == nil:
				t.Errorf("a.go exists with %q, want it absent", data)
			case tc.wantFile != "" && string(data) != tc.wantFile:
				t.Errorf("a.go = %q (%v), want %q", data, err, tc.wantFile)
			}
		})
	}
}

// TestEditCreatesOnlyWithOneEntry keeps edit's own rule: an empty
// old_string creates a missing file and refuses an existing one.
func TestEditCreatesOnlyWithOneEntry(t *testing.T) {
	ws, root := newTestWS(t, nil)
	res := callTool(t, NewEditTool(ws), map[string]any{"file_path": "b.txt", "old_string": "", "new_string": "hello\n"})
	checkResult(t, res, false, []string{"Created b.txt"}, nil)
	if data, err := os.ReadFile(filepath.Join(root, "b.txt")); err != nil || string(data) != "hello\n" {
		t.Fatalf("b.txt = %q, %v", data, err)
	}
	res = callTool(t, NewEditTool(ws), map[string]any{"file_path": "b.txt", "old_string": "", "new_string": "again\n"})
	checkResult(t, res, true, []string{"b.txt already exists"}, nil)
}
