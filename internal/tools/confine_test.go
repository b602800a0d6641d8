package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// gateVerdict is what the permission gate decides on req, without asking
// anyone; auto is --yolo, which still hard-blocks writes outside.
func gateVerdict(t *testing.T, ws *Workspace, req permission.Request, auto bool) permission.Kind {
	t.Helper()
	pol := permission.DefaultPolicy()
	if auto {
		pol.Mode = permission.ModeAuto
	}
	g, err := permission.New(permission.Options{Policy: pol, Roots: ws.Roots})
	if err != nil {
		t.Fatal(err)
	}
	req.SessionID = "s"
	return g.Evaluate(context.Background(), req).Decision
}

// A regular file with more than one hard link counts as outside, even
// when every name is inside: a read is asked, a write denied (also in
// auto mode), and the tools refuse it when run.
func TestHardLinkedFileCountsAsOutside(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	writeFiles(t, root, map[string]string{"plain.txt": "plain\n", "pair.txt": "pair\n"})
	if err := os.Link(filepath.Join(out, "secret.txt"), filepath.Join(root, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "pair.txt"), filepath.Join(root, "pair2.txt")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"leak.txt", "pair.txt"} {
		t.Run(name, func(t *testing.T) {
			req, err := describeTool(t, NewViewTool(ws), viewInput{FilePath: name})
			if err != nil {
				t.Fatal(err)
			}
			if !req.OutsideRoots {
				t.Errorf("view Describe: OutsideRoots false for a file with 2 hard links")
			}
			if k := gateVerdict(t, ws, req, false); k != permission.Deny || !strings.Contains(req.Blocked, "use bash") {
				t.Errorf("gate on the read = %s (%q), want a deny that points to bash", k, req.Blocked)
			}
			checkResult(t, callTool(t, NewViewTool(ws), viewInput{FilePath: name}), true,
				[]string{"is outside the workspace (it has 2 hard links", "agentls only reads inside the workspace folders"}, []string{"top secret", "pair\n"})

			for _, tc := range []struct {
				tool  Tool
				input any
			}{
				{NewWriteTool(ws), writeInput{FilePath: name, Content: "overwritten\n"}},
				{NewEditTool(ws), editInput{FilePath: name, OldString: "e", NewString: "E"}},
				{NewMultiEditTool(ws), multieditInput{FilePath: name, Edits: []editEntry{{OldString: "e", NewString: "E"}}}},
			} {
				req, err := describeTool(t, tc.tool, tc.input)
				if err != nil {
					t.Fatal(err)
				}
				if !req.OutsideRoots || !strings.Contains(req.Blocked, "2 hard links") {
					t.Errorf("%s Describe = %+v, want blocked as outside", tc.tool.Spec().Name, req)
				}
				for _, auto := range []bool{false, true} {
					if k := gateVerdict(t, ws, req, auto); k != permission.Deny {
						t.Errorf("gate on %s (auto %v) = %s, want deny", tc.tool.Spec().Name, auto, k)
					}
				}
				checkResult(t, callTool(t, tc.tool, tc.input), true, []string{"agentls writes only inside the workspace folders"}, nil)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "top secret\n" {
		t.Errorf("the outside file changed: %q", got)
	}
	// The walk skips them and says so; a plain file is read.
	res := callTool(t, NewGrepTool(ws), grepInput{Pattern: "."})
	checkResult(t, res, false, []string{"plain.txt:", "Skipped 3 entries leading outside the workspace"}, []string{"top secret", "pair.txt:"})
	// A plain file is inside, for the gate too.
	req, err := describeTool(t, NewViewTool(ws), viewInput{FilePath: "plain.txt"})
	if err != nil || req.OutsideRoots || gateVerdict(t, ws, req, false) != permission.Allow {
		t.Errorf("plain file: %+v, %v", req, err)
	}
}

// A folder inside the workspace that is a link to a folder outside is
// outside for every file tool: asked or blocked at the gate, refused when
// run, and nothing outside is read or changed.
func TestLinkedFolderLeadingOutIsOutside(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	if err := os.Symlink(out, filepath.Join(root, "ext")); err != nil {
		t.Fatal(err)
	}
	// A relative link climbing out, and one to a missing file outside.
	rel, err := filepath.Rel(root, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, filepath.Join(root, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "new.txt"), filepath.Join(root, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	reads := []struct {
		tool  Tool
		input any
	}{
		{NewViewTool(ws), viewInput{FilePath: "ext/secret.txt"}},
		{NewViewTool(ws), viewInput{FilePath: "up/secret.txt"}},
		{NewLSTool(ws), lsInput{Path: "ext"}},
		{NewGlobTool(ws), globInput{Pattern: "*", Path: "ext"}},
		{NewGlobTool(ws), globInput{Pattern: "ext/*"}},
		{NewGrepTool(ws), grepInput{Pattern: "secret", Path: "ext"}},
		{NewGrepTool(ws), grepInput{Pattern: "secret", Path: "up/secret.txt"}},
	}
	for _, tc := range reads {
		req, err := describeTool(t, tc.tool, tc.input)
		if err != nil {
			t.Fatal(err)
		}
		if !req.OutsideRoots || gateVerdict(t, ws, req, false) != permission.Deny {
			t.Errorf("%s %+v: Describe = %+v, want outside and blocked (file tools never read outside)", tc.tool.Spec().Name, tc.input, req)
		}
		checkResult(t, callTool(t, tc.tool, tc.input), true, []string{"is outside the workspace (a symbolic link leads out)"}, []string{"top secret"})
	}
	writes := []struct {
		tool  Tool
		input any
	}{
		{NewWriteTool(ws), writeInput{FilePath: "ext/new.txt", Content: "x"}},
		{NewWriteTool(ws), writeInput{FilePath: "up/new.txt", Content: "x"}},
		{NewWriteTool(ws), writeInput{FilePath: "dangling.txt", Content: "x"}},
		{NewWriteTool(ws), writeInput{FilePath: "ext/sub/new.txt", Content: "x"}},
		{NewEditTool(ws), editInput{FilePath: "ext/secret.txt", OldString: "top", NewString: "no"}},
		{NewEditTool(ws), editInput{FilePath: "ext/new.txt", NewString: "x"}},
		{NewMultiEditTool(ws), multieditInput{FilePath: "ext/secret.txt", Edits: []editEntry{{OldString: "top", NewString: "no"}}}},
	}
	for _, tc := range writes {
		req, err := describeTool(t, tc.tool, tc.input)
		if err != nil {
			t.Fatal(err)
		}
		if !req.OutsideRoots || !strings.Contains(req.Blocked, "a symbolic link leads out") || gateVerdict(t, ws, req, true) != permission.Deny {
			t.Errorf("%s %+v: Describe = %+v, want blocked", tc.tool.Spec().Name, tc.input, req)
		}
		checkResult(t, callTool(t, tc.tool, tc.input), true, []string{"is outside the workspace (a symbolic link leads out); agentls writes only inside the workspace folders"}, nil)
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) != 1 {
		t.Errorf("the outside folder holds %v (%v), want only secret.txt", entries, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "top secret\n" {
		t.Errorf("the outside file changed: %q", got)
	}
	// Below the root, the walk reports the links and reads none of them.
	res := callTool(t, NewGrepTool(ws), grepInput{Pattern: "secret"})
	checkResult(t, res, false, []string{"Skipped 3 entries leading outside the workspace"}, []string{"top secret"})
}

// The write path itself refuses a link out, even when the gate's check
// said inside (the link was swapped in after it).
func TestWriteDiskRefusesLinkSwappedInAfterCheck(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	writeFiles(t, root, map[string]string{"dir/a.txt": "a\n"})
	abs := filepath.Join(root, "dir", "a.txt")
	if !ws.Inside(abs) {
		t.Fatal("dir/a.txt is not inside before the swap")
	}
	if err := os.Rename(filepath.Join(root, "dir"), filepath.Join(root, "dir.away")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	var oe *outsideError
	if err := ws.writeDisk(abs, []byte("x"), 0o644, nil); !errors.As(err, &oe) || oe.why != whyLinkOut {
		t.Errorf("writeDisk through a link out = %v, want an outside error", err)
	}
	if err := ws.writeDisk(filepath.Join(root, "dir", "secret.txt"), []byte("x"), 0o644, nil); !errors.As(err, &oe) {
		t.Errorf("writeDisk over an outside file = %v, want an outside error", err)
	}
	if err := ws.removeDisk(filepath.Join(root, "dir", "secret.txt")); !errors.As(err, &oe) {
		t.Errorf("removeDisk through a link out = %v, want an outside error", err)
	}
	if _, err := ws.ReadFile(filepath.Join(root, "dir", "secret.txt")); !errors.As(err, &oe) {
		t.Errorf("ReadFile through a link out = %v, want an outside error", err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "secret.txt")); err != nil || string(got) != "top secret\n" {
		t.Errorf("the outside file = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt landed outside: %v", err)
	}
}

// Links that stay inside work: an absolute link back into the folder (an
// escape to os.Root, resolved by resolveLinks) and a relative one. A
// write through a link to a file inside keeps the link and changes its
// target.
func TestLinksInsideAreFollowed(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"real/a.txt": "a\n", "real/b.txt": "b\n"})
	for name, target := range map[string]string{
		"abs":     filepath.Join(root, "real"),
		"rel":     "real",
		"b-link":  filepath.Join(root, "real", "b.txt"),
		"chain":   "abs",
		"up-back": filepath.Join("..", filepath.Base(root), "real"),
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"abs/a.txt", "rel/a.txt", "chain/a.txt", "b-link"} {
		if err := ws.Outside(filepath.Join(root, p)); err != nil {
			t.Errorf("Outside(%s) = %v, want inside", p, err)
		}
	}
	// "up-back" climbs above the folder before coming back: os.Root
	// refuses it, and so does agentls.
	if err := ws.Outside(filepath.Join(root, "up-back", "a.txt")); err == nil {
		t.Error("a link climbing above the folder counts as inside")
	}
	checkResult(t, callTool(t, NewViewTool(ws), viewInput{FilePath: "chain/a.txt"}), false, []string{"     1|a"}, nil)
	checkResult(t, callTool(t, NewLSTool(ws), lsInput{Path: "abs"}), false, []string{"a.txt", "b.txt"}, nil)

	callTool(t, NewViewTool(ws), viewInput{FilePath: "b-link"})
	res := callTool(t, NewWriteTool(ws), writeInput{FilePath: "b-link", Content: "B\n"})
	checkResult(t, res, false, []string{"Edited b-link"}, nil)
	if fi, err := os.Lstat(filepath.Join(root, "b-link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "real", "b.txt")); string(got) != "B\n" {
		t.Errorf("the link's target = %q, want the new content", got)
	}
	res = callTool(t, NewWriteTool(ws), writeInput{FilePath: "abs/new/c.txt", Content: "c\n"})
	checkResult(t, res, false, []string{"Created abs/new/c.txt"}, nil)
	if got, _ := os.ReadFile(filepath.Join(root, "real", "new", "c.txt")); string(got) != "c\n" {
		t.Errorf("real/new/c.txt = %q", got)
	}
}

// Revert (Workspace.Restore) refuses to write or delete through a folder
// that became a link leading out, and leaves the outside folder alone.
func TestRestoreRefusesLinkLeadingOut(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	if err := os.Symlink(out, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		path   string
		exists bool
	}{
		{"dir/secret.txt", true},
		{"dir/secret.txt", false}, // the turn created it: revert deletes it
		{"dir/new.txt", true},
	} {
		err := ws.Restore(ctx, filepath.Join(root, tc.path), "restored\n", tc.exists)
		if err == nil || !strings.Contains(err.Error(), "is outside the workspace (a symbolic link leads out)") || !strings.Contains(err.Error(), "nothing was restored") {
			t.Errorf("Restore(%s, exists %v) = %v, want a refusal", tc.path, tc.exists, err)
		}
	}
	entries, _ := os.ReadDir(out)
	if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "top secret\n" || len(entries) != 1 {
		t.Errorf("outside after the refused restores: %q, %d entries", got, len(entries))
	}
	// Inside, it restores.
	writeFiles(t, root, map[string]string{"in/a.txt": "now\n"})
	if err := ws.Restore(ctx, filepath.Join(root, "in", "a.txt"), "before\n", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "in", "a.txt")); string(got) != "before\n" {
		t.Errorf("in/a.txt = %q", got)
	}
	if err := ws.Restore(ctx, filepath.Join(root, "in", "a.txt"), "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "in", "a.txt")); !os.IsNotExist(err) {
		t.Errorf("in/a.txt still exists after a restore that deletes it: %v", err)
	}
}

// os.Root's escape error is recognised; isEscape depends on its text.
func TestEscapeErrorRecognised(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(root, "ext")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, op := range map[string]func() error{
		"stat":     func() error { _, err := r.Stat("ext/x"); return err },
		"create":   func() error { _, err := r.Create("ext/x"); return err },
		"mkdirall": func() error { return r.MkdirAll("ext/x/y", 0o755) },
		"remove":   func() error { return r.Remove("ext/x") },
		"rename":   func() error { return r.Rename("ext/x", "y") },
		"dotdot":   func() error { _, err := r.Stat("../x"); return err },
	} {
		if err := op(); !isEscape(err) {
			t.Errorf("%s: isEscape(%v) = false", name, err)
		}
	}
	if _, err := r.Stat("missing"); isEscape(err) {
		t.Errorf("isEscape(%v) = true for a missing file", err)
	}
}

// Roots replaced while an operation holds them stay open until it ends;
// after Close every operation fails saying why.
func TestRootsLifecycle(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"a.txt": "a\n"})
	p, err := ws.place(filepath.Join(root, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	second := t.TempDir()
	if err := ws.SetRoots([]string{root, second}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.root.Stat(p.rel); err != nil {
		t.Errorf("a held root was closed by SetRoots: %v", err)
	}
	p.release()
	if _, err := p.root.Stat(p.rel); err == nil {
		t.Error("the replaced root is still open after its last release")
	}
	if f, err := ws.ReadFile(filepath.Join(root, "a.txt")); err != nil || f.Text != "a\n" {
		t.Errorf("ReadFile after SetRoots = %q, %v", f.Text, err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadFile(filepath.Join(root, "a.txt")); !errors.Is(err, errClosed) {
		t.Errorf("ReadFile after Close = %v, want errClosed", err)
	}
	if err := ws.SetRoots([]string{root}); !errors.Is(err, errClosed) {
		t.Errorf("SetRoots after Close = %v, want errClosed", err)
	}
}
