package checkpoint_test

import (
	"context"
	"github.com/agentls/agentls/internal/agent/checkpoint/treetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/checkpoint"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/tools"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A person's edit after the agent's step survives a restore: it is
// reported as a conflict with both versions, the checkpoint's also in a
// copy to compare with; the step's other files are restored.
func TestPersonEditAfterStepIsKept(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "a.txt", "original\n", 0o644)
	f.write(t, "b.txt", "b original\n", 0o644)
	c := f.step(t, "s1", "sed -i 's/original/agent/' a.txt b.txt")
	f.write(t, "a.txt", "the person's edit\n", 0o644)
	r := f.restore(t, "s1", c.ID)
	if got := read(t, filepath.Join(f.root, "a.txt")); got != "the person's edit\n" {
		t.Errorf("a.txt = %q: the person's edit was overwritten", got)
	}
	if got := read(t, filepath.Join(f.root, "b.txt")); got != "b original\n" {
		t.Errorf("b.txt = %q, want it restored", got)
	}
	if len(r.Conflicts) != 1 {
		t.Fatalf("conflicts = %+v, want a.txt's", r.Conflicts)
	}
	k := r.Conflicts[0]
	if k.Path != filepath.Join(f.root, "a.txt") || !strings.Contains(k.Reason, "changed after") {
		t.Errorf("conflict = %+v", k)
	}
	if k.Yours.Text == nil || *k.Yours.Text != "the person's edit\n" || k.Checkpoint.Text == nil || *k.Checkpoint.Text != "original\n" {
		t.Errorf("conflict versions: yours %+v, checkpoint %+v", k.Yours, k.Checkpoint)
	}
	if k.Checkpoint.Copy == "" || read(t, k.Checkpoint.Copy) != "original\n" {
		t.Errorf("the checkpoint's version was not copied out: %q", k.Checkpoint.Copy)
	}
	if !slicesEqual(r.Restored, []string{filepath.Join(f.root, "b.txt")}) {
		t.Errorf("restored = %v", r.Restored)
	}
	if !strings.Contains(r.Text(f.ws.Rel), "your version kept") {
		t.Errorf("text = %q", r.Text(f.ws.Rel))
	}
}

// A person's edit between two of the agent's steps survives a restore to
// before both: the file goes back to the person's version, and the
// conflict says so with the checkpoint's version.
func TestPersonEditBetweenStepsIsKept(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "a.txt", "v0\n", 0o644)
	c1 := f.step(t, "s1", "echo v1 > a.txt")
	f.write(t, "a.txt", "person\n", 0o644)
	f.step(t, "s1", "echo v2 > a.txt")
	r := f.restore(t, "s1", c1.ID)
	if got := read(t, filepath.Join(f.root, "a.txt")); got != "person\n" {
		t.Errorf("a.txt = %q, want the person's version", got)
	}
	if len(r.Conflicts) != 1 || !strings.Contains(r.Conflicts[0].Reason, "between") || *r.Conflicts[0].Checkpoint.Text != "v0\n" {
		t.Errorf("conflicts = %+v", r.Conflicts)
	}
}

// A symbolic link is recorded as a link and never followed: what it
// leads to outside is never read into the store, and a restore puts the
// link back as it was.
func TestLinksOutAreNeverFollowed(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	outside := t.TempDir()
	secret := "outside secret, never to be read\n"
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"file-link": filepath.Join(outside, "secret"), "dir-link": outside} {
		if err := os.Symlink(target, filepath.Join(f.root, name)); err != nil {
			t.Fatal(err)
		}
	}
	before := treetest.Tree(t, f.root)
	c := f.step(t, "s1", "rm file-link dir-link && ln -s elsewhere file-link && echo x > dir-link")
	if _, err := f.st.Blob(context.Background(), store.HashOf([]byte(secret))); err == nil {
		t.Fatal("the content behind a link out is in the store")
	}
	r := f.restore(t, "s1", c.ID)
	if d := treetest.Diff(before, treetest.Tree(t, f.root)); d != "" {
		t.Fatalf("after the restore:\n%s\n%+v", d, r)
	}
	if read(t, filepath.Join(outside, "secret")) != secret {
		t.Error("the file outside changed")
	}
}

// What a checkpoint cannot keep it says: a file over max_file_bytes, a
// file with other hard links; a restore then leaves those alone saying why.
func TestBoundsSayWhatWasNotKept(t *testing.T) {
	opts := checkpoint.DefaultOptions()
	opts.MaxFileBytes = 16
	f := newFixture(t, opts)
	f.write(t, "big.txt", "more than sixteen bytes\n", 0o644)
	f.write(t, "linked.txt", "x\n", 0o644)
	if err := os.Link(filepath.Join(f.root, "linked.txt"), filepath.Join(f.root, "other-name.txt")); err != nil {
		t.Fatal(err)
	}
	c := f.step(t, "s1", "echo changed > big.txt && rm linked.txt")
	notes := strings.Join(c.Notes, "\n")
	for _, want := range []string{"big.txt", "max_file_bytes", "linked.txt", "hard links"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not name %q", notes, want)
		}
	}
	r := f.restore(t, "s1", c.ID)
	if len(r.Skipped) != 2 {
		t.Errorf("skipped = %+v, want big.txt and linked.txt", r.Skipped)
	}
	for _, s := range r.Skipped {
		if !strings.Contains(s.Reason, "not kept") {
			t.Errorf("skipped %s: %q", s.Path, s.Reason)
		}
	}
}

// .git and the configured names are never checkpointed.
func TestExcluded(t *testing.T) {
	opts := checkpoint.DefaultOptions()
	opts.Exclude = []string{"node_modules", "*.log"}
	f := newFixture(t, opts)
	f.write(t, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	c := f.step(t, "s1", "echo x > .git/HEAD && mkdir -p node_modules/a && echo y > node_modules/a/i.js && echo z > run.log && echo kept > kept.txt")
	var paths []string
	for _, file := range c.Files {
		paths = append(paths, f.ws.Rel(file.Path))
	}
	if !slicesEqual(paths, []string{"kept.txt"}) {
		t.Errorf("checkpointed %v, want only kept.txt", paths)
	}
}

// Each session keeps its newest checkpoints within the bounds; contents
// only the dropped ones kept go with them; deleting the session drops
// the rest.
func TestRetention(t *testing.T) {
	ctx := context.Background()
	opts := checkpoint.DefaultOptions()
	opts.Keep = 3
	f := newFixture(t, opts)
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		f.step(t, "s1", "echo content-"+n+" > f.txt && echo "+n+" > f"+n+".txt")
		f.step(t, "s2", "echo other > g"+n+".txt")
	}
	list, err := f.e.List(ctx, "s1")
	if err != nil || len(list) != 3 {
		t.Fatalf("s1's checkpoints: %d, %v; want 3", len(list), err)
	}
	for _, c := range list {
		if !strings.Contains(c.Title, "f3.") && !strings.Contains(c.Title, "f4.") && !strings.Contains(c.Title, "f5.") {
			t.Errorf("kept %q, want the 3 newest", c.Title)
		}
	}
	if _, err := f.st.Blob(ctx, store.HashOf([]byte("content-1\n"))); err == nil {
		t.Error("the content only a dropped checkpoint kept is still in the store")
	}
	for _, kept := range []string{"content-2\n", "content-5\n"} {
		if _, err := f.st.Blob(ctx, store.HashOf([]byte(kept))); err != nil {
			t.Errorf("a kept checkpoint's content: %v", err)
		}
	}
	opts.Keep, opts.KeepBytes = 0, 20
	g := fixtureAt(t, t.TempDir(), opts)
	g.step(t, "s1", "echo 0123456789 > a")
	g.step(t, "s1", "echo 0123456789abc > b")
	if list, _ := g.e.List(ctx, "s1"); len(list) != 1 || !strings.Contains(list[0].Title, "> b") {
		t.Errorf("with keep_bytes 20: %+v", list)
	}

	if err := f.st.SaveSession(ctx, store.SessionInfo{ID: "s1", Workspace: f.root}); err != nil {
		t.Fatal(err)
	}
	if err := f.st.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.e.List(ctx, "s1"); len(list) != 0 {
		t.Errorf("after sessions delete: %d checkpoints", len(list))
	}
	if _, err := f.st.Blob(ctx, store.HashOf([]byte("content-2\n"))); err == nil {
		t.Error("a deleted session's content is still in the store")
	}
	if _, err := f.st.Blob(ctx, store.HashOf([]byte("content-5\n"))); err != nil {
		t.Errorf("the workspace's current content (the baseline's) was dropped: %v", err)
	}
	if list, _ := f.e.List(ctx, "s2"); len(list) != 3 {
		t.Errorf("another session's checkpoints: %d, want 3", len(list))
	}
	if _, err := f.st.Blob(ctx, store.HashOf([]byte("other\n"))); err != nil {
		t.Errorf("content another session keeps: %v", err)
	}
}

// A file tool's change, recorded with the text the agent saw and wrote
// (an editor's buffer, which the disk need not hold), is the step's.
func TestFileToolChangeIsTheSteps(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "a.go", "package a\n", 0o644)
	p, err := f.e.Begin(ctx, checkpoint.Step{SessionID: "s1", TurnID: "s1-t1", Tool: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	// A subagent's call records under its own id, which extends its parent's.
	if err := f.e.RecordChange(ctx, tools.ChangeRecord{SessionID: "s1-call9", TurnID: "s1-call9-t1", Tool: "edit",
		Path: filepath.Join(f.root, "a.go"), Before: "package a // buffer\n", BeforeExists: true, After: "package b\n"}); err != nil {
		t.Fatal(err)
	}
	c, err := p.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || c.Files[0].Before.Hash != store.HashOf([]byte("package a // buffer\n")) ||
		c.Files[0].After.Hash != store.HashOf([]byte("package b\n")) || c.Files[0].After.Mode != 0o644 {
		t.Fatalf("files = %+v", c.Files)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
