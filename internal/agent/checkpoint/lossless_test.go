package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/checkpoint"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/tools"
)

// Restores that must not lose a person's work: each test is a way one
// once did.

// Past checkpoints.max_files, a path the first walk left out is first seen
// when a step changes it: it is not the step's creation (a restore would
// delete the person's file) but untracked, and the checkpoint says so.
func TestPathsPastMaxFilesAreNeverDeleted(t *testing.T) {
	for _, mode := range []string{"watch", "walk"} {
		t.Run(mode, func(t *testing.T) {
			opts := checkpoint.DefaultOptions()
			opts.MaxFiles = 3
			f := newFixture(t, opts)
			if mode == "walk" {
				checkpoint.WalkOnly(f.e)
			}
			f.write(t, "lib/a.js", "a\n", 0o644)
			f.write(t, "lib/b.js", "b\n", 0o644)
			f.write(t, "package.json", "the person's source\n", 0o644)
			if err := f.e.Prepare(context.Background()); err != nil {
				t.Fatal(err)
			}
			c := f.step(t, "s1", "sed -i 's/source/source, edited by the agent/' package.json")
			for _, file := range c.Files {
				if f.ws.Rel(file.Path) == "package.json" {
					t.Errorf("package.json, past max_files, recorded as %+v -> %+v", file.Before, file.After)
				}
			}
			if !strings.Contains(strings.Join(c.Notes, "\n"), "package.json") {
				t.Errorf("the checkpoint's notes do not say package.json was not kept: %q", c.Notes)
			}
			r := f.restore(t, "s1", c.ID)
			if got := read(t, filepath.Join(f.root, "package.json")); got != "the person's source, edited by the agent\n" {
				t.Errorf("package.json = %q after the restore (%+v)", got, r)
			}
		})
	}
}

// Dependency trees and the folders the workspace's ignore files hide are
// not checkpointed (they would spend max_files and max_bytes); a file the
// ignore files hide is (a .env holds the person's secrets). A folder that
// becomes ignored is dropped from the baseline, not recorded as deleted.
func TestIgnoredFoldersAreNotCheckpointed(t *testing.T) {
	for _, mode := range []string{"watch", "walk"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, checkpoint.DefaultOptions())
			if mode == "walk" {
				checkpoint.WalkOnly(f.e)
			}
			f.write(t, ".gitignore", "build/\n.env\n", 0o644)
			f.write(t, "node_modules/x/index.js", "x\n", 0o644)
			f.write(t, "build/out.js", "out\n", 0o644)
			f.write(t, ".env", "TOKEN=1\n", 0o600)
			f.write(t, "gen/a.txt", "generated\n", 0o644)
			f.write(t, "main.go", "package main\n", 0o644)
			c := f.step(t, "s1", "for p in node_modules/x/index.js node_modules/y.js build/out.js build/new.js .env main.go; do echo changed > $p; done")
			var got []string
			for _, file := range c.Files {
				got = append(got, f.ws.Rel(file.Path))
			}
			if want := []string{".env", "main.go"}; !slicesEqual(got, want) {
				t.Errorf("checkpointed %v, want %v", got, want)
			}
			f.write(t, ".gitignore", "build/\n.env\ngen/\n", 0o644)
			checkpoint.WalkOnly(f.e) // the next refresh walks the tree, as after a lost event
			c = f.step(t, "s1", "echo again > main.go")
			for _, file := range c.Files {
				if strings.HasPrefix(f.ws.Rel(file.Path), "gen") {
					t.Errorf("%s, now ignored, recorded as %+v -> %+v", f.ws.Rel(file.Path), file.Before, file.After)
				}
			}
		})
	}
}

// docs is an editor's open buffers, by absolute path.
type docs map[string]tools.Document

func (d docs) Document(p string) (tools.Document, bool) { x, ok := d[p]; return x, ok }

// fixtureWithBuffers is a fixture whose workspace sees the buffers open
// in an editor.
func fixtureWithBuffers(t *testing.T, open docs) *fixture {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "agentls.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ws, err := tools.NewWorkspace([]string{root}, open)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	e := checkpoint.New(st, ws, checkpoint.DefaultOptions(), nil)
	t.Cleanup(e.Close)
	return &fixture{root: root, st: st, ws: ws, e: e}
}

// A file open in the editor (its buffer as on disk) that a step deletes
// (the editor keeps the buffer) comes back on disk: the buffer does not
// stand for the disk.
func TestRestoreOfADeletedOpenFile(t *testing.T) {
	open := docs{}
	f := fixtureWithBuffers(t, open)
	f.write(t, "main.go", "package main\n", 0o644)
	open[filepath.Join(f.root, "main.go")] = tools.Document{Text: "package main\n", Version: 1}
	c := f.step(t, "s1", "rm main.go")
	r := f.restore(t, "s1", c.ID)
	if got, err := os.ReadFile(filepath.Join(f.root, "main.go")); err != nil || string(got) != "package main\n" {
		t.Errorf("main.go = %q, %v after the restore:\n%s", got, err, r.Text(f.ws.Rel))
	}
	if !slicesEqual(r.Restored, []string{filepath.Join(f.root, "main.go")}) {
		t.Errorf("restored = %v, want main.go", r.Restored)
	}
}

// A rename of a file open in the editor, restored: the old name is back on
// disk and the new one gone.
func TestRestoreOfARenamedOpenFile(t *testing.T) {
	open := docs{}
	f := fixtureWithBuffers(t, open)
	f.write(t, "a.go", "package a\n", 0o644)
	open[filepath.Join(f.root, "a.go")] = tools.Document{Text: "package a\n", Version: 1}
	c := f.step(t, "s1", "mv a.go b.go")
	r := f.restore(t, "s1", c.ID)
	if got, err := os.ReadFile(filepath.Join(f.root, "a.go")); err != nil || string(got) != "package a\n" {
		t.Errorf("a.go = %q, %v after the restore:\n%s", got, err, r.Text(f.ws.Rel))
	}
	if _, err := os.Lstat(filepath.Join(f.root, "b.go")); err == nil {
		t.Errorf("b.go is still there after the restore:\n%s", r.Text(f.ws.Rel))
	}
}

// A person's save while a step runs is not the step's: restoring to
// before the step keeps it and reports a conflict with both versions.
func TestPersonsSaveDuringAStepIsKept(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "agent.txt", "a0\n", 0o644)
	f.write(t, "mine.txt", "v0\n", 0o644)
	ctx := context.Background()
	if err := f.e.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := f.e.Begin(ctx, checkpoint.Step{SessionID: "s1", TurnID: "s1-t1", Tool: "bash", Title: "npm test"})
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "agent.txt", "a1\n", 0o644)               // the step
	f.write(t, "mine.txt", "the person's work\n", 0o644) // the person, saving in the editor meanwhile
	f.e.PersonChanged(filepath.Join(f.root, "mine.txt"))
	c, err := p.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := f.restore(t, "s1", c.ID)
	if got := read(t, filepath.Join(f.root, "mine.txt")); got != "the person's work\n" {
		t.Errorf("mine.txt = %q: the person's save during the step was reverted", got)
	}
	if got := read(t, filepath.Join(f.root, "agent.txt")); got != "a0\n" {
		t.Errorf("agent.txt = %q, want the step's change undone", got)
	}
	if len(r.Conflicts) != 1 || r.Conflicts[0].Path != filepath.Join(f.root, "mine.txt") ||
		r.Conflicts[0].Yours.Text == nil || *r.Conflicts[0].Yours.Text != "the person's work\n" ||
		r.Conflicts[0].Checkpoint.Text == nil || *r.Conflicts[0].Checkpoint.Text != "v0\n" {
		t.Errorf("conflicts = %+v, want mine.txt's with both versions", r.Conflicts)
	}
}

// A folder the person replaced by a link to another folder of the
// workspace: the restore does not write through the link over the
// person's file, and says why.
func TestRestoreNeverWritesThroughALinkInTheWorkspace(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "dir/file", "agent deleted me\n", 0o644)
	f.write(t, "other/file", "the person's file\n", 0o644)
	c := f.step(t, "s1", "rm dir/file")
	if err := os.RemoveAll(filepath.Join(f.root, "dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(f.root, "dir")); err != nil {
		t.Fatal(err)
	}
	r := f.restore(t, "s1", c.ID)
	if got := read(t, filepath.Join(f.root, "other", "file")); got != "the person's file\n" {
		t.Errorf("other/file = %q: overwritten through the link dir -> other", got)
	}
	var why string
	for _, s := range r.Skipped {
		if s.Path == filepath.Join(f.root, "dir", "file") {
			why = s.Reason
		}
	}
	for _, k := range r.Conflicts {
		if k.Path == filepath.Join(f.root, "dir", "file") {
			why = k.Reason
		}
	}
	if !strings.Contains(why, "link") {
		t.Errorf("dir/file not reported as left alone because of the link: %s", r.Text(f.ws.Rel))
	}
}

// The same with the other folder lacking the file: the restore does not
// make it there either.
func TestRestoreNeverCreatesThroughALinkInTheWorkspace(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "dir/file", "agent deleted me\n", 0o644)
	f.write(t, "other/mine", "the person's file\n", 0o644)
	c := f.step(t, "s1", "rm dir/file")
	if err := os.RemoveAll(filepath.Join(f.root, "dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(f.root, "dir")); err != nil {
		t.Fatal(err)
	}
	r := f.restore(t, "s1", c.ID)
	if _, err := os.Lstat(filepath.Join(f.root, "other", "file")); err == nil {
		t.Errorf("other/file was made through the link dir -> other:\n%s", r.Text(f.ws.Rel))
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Reason, "dir is now a symbolic link") {
		t.Errorf("skipped = %+v, want dir/file's, for the link", r.Skipped)
	}
}

// A folder made read-only, deleted by a step: the restore writes its files
// before it gives the folder its mode.
func TestReadOnlyFolderRestoredWithItsFiles(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	f := newFixture(t, checkpoint.DefaultOptions())
	f.write(t, "ro/f.txt", "inside\n", 0o644)
	if err := os.Chmod(filepath.Join(f.root, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(f.root, "ro"), 0o755) })
	c := f.step(t, "s1", "chmod u+w ro && rm -rf ro")
	r := f.restore(t, "s1", c.ID)
	if got, err := os.ReadFile(filepath.Join(f.root, "ro/f.txt")); err != nil || string(got) != "inside\n" {
		t.Errorf("ro/f.txt = %q, %v after the restore:\n%s", got, err, r.Text(f.ws.Rel))
	}
	if fi, err := os.Stat(filepath.Join(f.root, "ro")); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("ro: %v, %v; want mode 0555", fi, err)
	}
}

// A file the agent made large (its content then not kept) and small again
// goes back to its content before the first step, which was kept.
func TestFileMadeLargeInBetweenIsRestored(t *testing.T) {
	opts := checkpoint.DefaultOptions()
	opts.MaxFileBytes = 16
	f := newFixture(t, opts)
	f.write(t, "a.txt", "small\n", 0o644)
	c1 := f.step(t, "s1", "echo 'now much more than sixteen bytes' > a.txt")
	f.step(t, "s1", "echo 'agent' > a.txt")
	r := f.restore(t, "s1", c1.ID)
	if got := read(t, filepath.Join(f.root, "a.txt")); got != "small\n" {
		t.Errorf("a.txt = %q, want its content before checkpoint %d:\n%s", got, c1.ID, r.Text(f.ws.Rel))
	}
	if len(r.Conflicts) != 0 {
		t.Errorf("conflicts = %+v, want none: nobody else changed a.txt", r.Conflicts)
	}
}

// The content a step changed stays restorable when unused contents are
// collected while the step runs (a prune of another session's
// checkpoints): once the baseline no longer names it, only the step's
// checkpoint will, and the checkpoint is added when the step ends.
func TestStepsBeforeContentSurvivesACollection(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	ctx := context.Background()
	f.write(t, "a.txt", "before the step\n", 0o644)
	if err := f.e.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := f.e.Begin(ctx, checkpoint.Step{SessionID: "s1", TurnID: "s1-t1", Tool: "bash", Title: "rewrite a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "a.txt", "the step's\n", 0o644)
	// Another session's step begins meanwhile: its refresh finds the
	// change (s1's) and the baseline stops naming the content before.
	q, err := f.e.Begin(ctx, checkpoint.Step{SessionID: "s2", TurnID: "s2-t1", Tool: "bash", Title: "ls"})
	if err != nil {
		t.Fatal(err)
	}
	q.Cancel()
	// A prune of a third session collects the contents nothing names.
	for range 2 {
		if _, err := f.st.AddCheckpoint(ctx, store.Checkpoint{SessionID: "s3", Kind: store.CheckpointStep, ConvSeq: -1,
			Files: []store.CheckpointFile{{Path: "/elsewhere/made", After: store.FileState{Kind: store.KindDir, Mode: 0o755}}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := f.st.PruneCheckpoints(ctx, "s3", 1, 0); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	c, err := p.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := f.restore(t, "s1", c.ID)
	if got := read(t, filepath.Join(f.root, "a.txt")); got != "before the step\n" {
		t.Errorf("a.txt = %q after the restore:\n%s", got, r.Text(f.ws.Rel))
	}
}

// The versions of a file rewritten between steps (a watch build's
// bundle) that no checkpoint names are not kept: the store stays the size
// of what can be restored.
func TestContentsNothingNamesAreCollected(t *testing.T) {
	f := newFixture(t, checkpoint.DefaultOptions())
	ctx := context.Background()
	f.write(t, "bundle.js", "x", 0o644)
	f.step(t, "s1", "true")
	n0, _, _ := f.st.BlobBytes(ctx)
	for i := range 30 {
		f.write(t, "bundle.js", strings.Repeat(string(rune('a'+i%26)), 200_000)+strconv.Itoa(i), 0o644)
		f.step(t, "s1", "true")
	}
	n1, count, err := f.st.BlobBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n1-n0 > 2*200_010 {
		t.Errorf("the store grew by %d bytes (%d contents) for 30 versions of a file no checkpoint names", n1-n0, count)
	}
	// What a checkpoint names stays.
	f.write(t, "kept.txt", "v0\n", 0o644)
	c := f.step(t, "s1", "echo v1 > kept.txt")
	f.write(t, "bundle.js", "y", 0o644)
	f.step(t, "s1", "true")
	f.restore(t, "s1", c.ID)
	if got := read(t, filepath.Join(f.root, "kept.txt")); got != "v0\n" {
		t.Errorf("kept.txt = %q after the restore", got)
	}
}

// Steps that changed nothing (bash calls that only read) do not push the
// checkpoints that can restore something out of the session's keep; they
// are bounded on their own.
func TestEmptyStepsDoNotCountAgainstKeep(t *testing.T) {
	ctx := context.Background()
	opts := checkpoint.DefaultOptions()
	opts.Keep = 2
	f := newFixture(t, opts)
	first := f.step(t, "s1", "echo 1 > one.txt")
	f.step(t, "s1", "echo 2 > two.txt")
	for range 5 {
		f.step(t, "s1", "ls > /dev/null")
	}
	list, err := f.e.List(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 7 || list[0].ID != first.ID {
		t.Errorf("checkpoints after 5 read-only steps: %d, first %d; want all 7, from %d", len(list), list[0].ID, first.ID)
	}
	for range 10 {
		f.step(t, "s1", "ls > /dev/null")
	}
	if list, _ := f.e.List(ctx, "s1"); len(list) > 2*5 {
		t.Errorf("%d checkpoints kept with keep 2: empty ones are not bounded", len(list))
	}
}
