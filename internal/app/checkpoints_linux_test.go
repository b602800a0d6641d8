package app_test

import (
	"context"
	"encoding/json"
	"github.com/agentls/agentls/internal/agent/checkpoint/treetest"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// treeOf is a folder as data: every path's kind, mode and content or link
// cpWorld is an environment with the built-in tools (the real bash tool,
// confined by the environment's sandbox) and a model that runs the
// command it is given, one bash call a turn.
type cpWorld struct {
	root string
	env  *app.Env
	sess *app.Session
	prov *script
}

func newCPWorld(t *testing.T) *cpWorld {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	return newCPWorldAt(t, root, false)
}

// newCPWorldAt is a cpWorld on root, a trusted workspace when trusted.
func newCPWorldAt(t *testing.T, root string, trusted bool) *cpWorld {
	t.Helper()
	prov := &script{}
	cfg := config.Config{Model: "test:script", Permissions: config.Permissions{Mode: "auto"}}
	if trusted {
		cfg.TrustedWorkspaces = []string{root}
	}
	a := app.New(app.Options{
		Config:  cfg,
		DataDir: t.TempDir(), StateDir: t.TempDir(),
		Getenv:      func(string) string { return "" },
		NewProvider: func(string, string) (agent.Provider, error) { return prov, nil },
	})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	if !env.Sandbox().Confined() {
		t.Fatalf("the environment's sandbox does not confine: %s", env.Sandbox().Status().Reason)
	}
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	return &cpWorld{root: root, env: env, sess: sess, prov: prov}
}

// turn runs one turn in which the model calls bash with command and
// returns the turn's last checkpoint.
func (w *cpWorld) turn(t *testing.T, command string) store.Checkpoint {
	t.Helper()
	return w.call(t, command, "bash", map[string]any{"command": command})
}

// call runs one turn in which the model calls tool with input and
// returns the turn's last checkpoint.
func (w *cpWorld) call(t *testing.T, command, tool string, input map[string]any) store.Checkpoint {
	t.Helper()
	w.prov.mu.Lock()
	w.prov.steps = append(w.prov.steps, agent.Response{ToolCalls: []agent.ToolCall{toolCall("c", tool, input)}})
	w.prov.mu.Unlock()
	var mu sync.Mutex
	var evs []agent.Event
	turn, err := w.sess.Start(context.Background(), "run "+command, func(e agent.Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	turn.Wait()
	mu.Lock()
	defer mu.Unlock()
	if out, isErr := resultOf(evs, "c"); isErr {
		t.Fatalf("%s: %s", command, out)
	}
	for _, e := range evs {
		if e.Type == agent.EventWarning {
			t.Errorf("%s: warning %s", command, e.Message)
		}
	}
	eng, err := w.env.Checkpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	list, err := eng.List(context.Background(), w.sess.ID)
	if err != nil || len(list) == 0 {
		t.Fatalf("%s: no checkpoint (%v)", command, err)
	}
	return list[len(list)-1]
}

func (w *cpWorld) write(t *testing.T, rel, content string, mode fs.FileMode) {
	treetest.Write(t, w.root, rel, content, mode)
}

// TestCheckpointsOfBashSteps: real bash steps (the environment's bash
// tool, confined by its sandbox) — a created file, a deleted folder, a
// rename, sed -i, chmod +x, a symbolic link, a binary file — each
// restored to before it and the restore undone: the tree matches byte for
// byte, modes included, each time.
func TestCheckpointsOfBashSteps(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.write(t, "a.txt", "alpha\nbeta\n", 0o644)
	w.write(t, "dir/one.go", "package one\n", 0o644)
	w.write(t, "dir/sub/two.go", "package two\n", 0o600)
	w.write(t, "run.sh", "echo hi\n", 0o644)
	w.write(t, "logo.bin", "\x89PNG\x00\x01\xff", 0o644)
	for _, command := range []string{
		"echo created > new.txt",
		"rm -rf dir",
		"mv a.txt renamed.txt",
		"sed -i 's/beta/gamma/' renamed.txt",
		"chmod +x run.sh",
		"ln -s /etc/passwd passwd-link",
		"printf '\\000\\377\\001binary' > logo.bin",
	} {
		before := treetest.Tree(t, w.root)
		c := w.turn(t, command)
		after := treetest.Tree(t, w.root)
		if c.Tool != "bash" || len(c.Files) != 0 || c.Changed == 0 {
			t.Fatalf("%s: checkpoint %+v", command, c)
		}
		r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Live: w.sess.Session})
		if err != nil {
			t.Fatalf("%s: restore: %v", command, err)
		}
		if d := treetest.Diff(before, treetest.Tree(t, w.root)); d != "" {
			t.Fatalf("%s: restored to before it, the tree differs:\n%s\n%+v", command, d, r)
		}
		if len(r.Conflicts)+len(r.Skipped) > 0 || len(r.Restored) == 0 {
			t.Errorf("%s: restore reported %+v", command, r)
		}
		u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
		if err != nil {
			t.Fatalf("%s: undo: %v", command, err)
		}
		if d := treetest.Diff(after, treetest.Tree(t, w.root)); d != "" {
			t.Fatalf("%s: the restore undone, the tree differs from after the step:\n%s\n%+v", command, d, u)
		}
	}
}

// A person's edit after the agent's bash step survives a restore, which
// reports it as a conflict with both versions.
func TestCheckpointRestoreKeepsThePersonsEdit(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.write(t, "a.txt", "original\n", 0o644)
	w.write(t, "b.txt", "b\n", 0o644)
	c := w.turn(t, "sed -i 's/original/agent/' a.txt && echo agent > b.txt")
	w.write(t, "a.txt", "the person's\n", 0o644)
	r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "a.txt")); string(b) != "the person's\n" {
		t.Errorf("a.txt = %q: the person's edit was overwritten", b)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "b.txt")); string(b) != "b\n" {
		t.Errorf("b.txt = %q, want it restored", b)
	}
	if len(r.Conflicts) != 1 || *r.Conflicts[0].Yours.Text != "the person's\n" || *r.Conflicts[0].Checkpoint.Text != "original\n" {
		t.Errorf("conflicts = %+v", r.Conflicts)
	}
}

// Restoring the conversation takes the live session back to before the
// checkpoint's prompt (and the store with it, for a resume); undoing the
// restore brings it back.
func TestCheckpointRestoreConversation(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.turn(t, "echo one > one.txt")
	afterOne := len(w.sess.History())
	c := w.turn(t, "echo two > two.txt")
	afterTwo := len(w.sess.History())
	r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Conversation: true, Live: w.sess.Session})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(w.sess.History()); got != afterOne || r.Conversation == nil || r.Conversation.Messages != afterOne {
		t.Errorf("conversation after restore: %d messages (%+v), want %d", got, r.Conversation, afterOne)
	}
	// The turns it holds, for an editor's chat: the first only.
	one, two := w.sess.ID+"-t1", w.sess.ID+"-t2"
	if r.Conversation == nil || !slices.Equal(r.Conversation.Turns, []string{one}) {
		t.Errorf("turns after restore: %+v, want [%s]", r.Conversation, one)
	}
	if _, err := os.Stat(filepath.Join(w.root, "two.txt")); err == nil {
		t.Error("two.txt is still there")
	}
	_, stored, err := w.env.StoredSession(ctx, w.sess.ID)
	if err != nil || len(stored.History) != afterOne {
		t.Errorf("stored conversation: %d messages, %v; want %d", len(stored.History), err, afterOne)
	}
	u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
	if err != nil {
		t.Fatal(err)
	}
	if u.Conversation == nil || !slices.Equal(u.Conversation.Turns, []string{one, two}) {
		t.Errorf("turns after undo: %+v, want [%s %s]", u.Conversation, one, two)
	}
	if got := len(w.sess.History()); got != afterTwo {
		t.Errorf("conversation after undo: %d messages, want %d", got, afterTwo)
	}
	if _, err := os.Stat(filepath.Join(w.root, "two.txt")); err != nil {
		t.Errorf("two.txt after undo: %v", err)
	}
	// The next turn goes on from the restored conversation with a new turn id.
	w.turn(t, "echo three > three.txt")
	if len(w.sess.History()) <= afterTwo {
		t.Errorf("the next turn did not go on: %d messages", len(w.sess.History()))
	}
}

// A restore while the live session compacts its conversation is refused
// before it changes anything: the files stay, and the journal gets no
// rewind record a resume would replay (the compaction's summary would
// have replaced the restored conversation).
func TestCheckpointRestoreRefusedWhileCompacting(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.turn(t, "echo one > one.txt")
	c := w.turn(t, "echo two > two.txt")
	st, err := w.env.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Records(ctx, w.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	w.prov.mu.Lock()
	w.prov.hold, w.prov.holding = make(chan struct{}), make(chan struct{}, 1)
	w.prov.mu.Unlock()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.sess.Compact(cctx, func(agent.Event) {}) }()
	select {
	case <-w.prov.holding:
	case err := <-done:
		t.Fatalf("the compaction did not ask the model: %v", err)
	}
	_, err = w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Conversation: true, Live: w.sess.Session})
	cancel()
	<-done
	if err == nil {
		t.Error("the restore ran while the conversation was being compacted")
	}
	if _, err := os.Stat(filepath.Join(w.root, "two.txt")); err != nil {
		t.Errorf("two.txt: %v; the refused restore changed files", err)
	}
	after, err := st.Records(ctx, w.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range after[len(before):] {
		if r.Kind == agent.RecordRewind {
			t.Errorf("the refused restore left a rewind record in the journal")
		}
	}
}

// Undoing a restore of the conversation only brings the conversation back
// and leaves the files alone, a step's since included.
func TestUndoOfAConversationRestoreLeavesFiles(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.turn(t, "echo one > one.txt")
	c := w.turn(t, "echo two > two.txt")
	afterTwo := len(w.sess.History())
	if _, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Conversation: true, Live: w.sess.Session}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.root, "two.txt")); err != nil {
		t.Fatalf("two.txt after a restore of the conversation only: %v", err)
	}
	w.turn(t, "echo three > three.txt")
	if _, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		if _, err := os.Stat(filepath.Join(w.root, name)); err != nil {
			t.Errorf("%s after undoing a restore of the conversation: %v", name, err)
		}
	}
	if got := len(w.sess.History()); got != afterTwo {
		t.Errorf("conversation after undo: %d messages, want %d", got, afterTwo)
	}
}

// A restore whose files were put back and whose conversation then failed
// reports both: the paths put back, and what was not done — never
// "nothing was restored".
func TestRestoreReportsWhatWasDoneBeforeAnError(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	c := w.turn(t, "echo two > two.txt")
	st, err := w.env.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A journal record that does not read back: the conversation cannot
	// be rebuilt.
	if _, err := st.AppendRecord(ctx, w.sess.ID, agent.RecordMessage, "{not json"); err != nil {
		t.Fatal(err)
	}
	rep, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Conversation: true, Live: w.sess.Session})
	if err == nil {
		t.Fatal("the restore of an unreadable conversation succeeded")
	}
	if _, serr := os.Stat(filepath.Join(w.root, "two.txt")); serr == nil {
		t.Fatal("two.txt is still there: the files were not restored")
	}
	if !rep.Partial() || len(rep.Restored) != 1 {
		t.Errorf("report = %+v, want two.txt put back", rep)
	}
	text := rep.ErrorText(func(p string) string { return filepath.Base(p) }, err)
	if strings.Contains(text, "nothing was restored") || !strings.Contains(text, "two.txt") || !strings.Contains(text, "conversation was not restored") {
		t.Errorf("text = %q", text)
	}
}

// TestCheckpointChainOfBashSteps: a chain of real bash steps, one a turn
// (a created file, sed -i, mkdir -p and cp, rm -rf of a folder that was
// there from the start, mv, chmod +x, a symbolic link, a binary file).
// Restored to before the first step, the tree is the very first snapshot
// byte for byte (modes and links); undone, it is the snapshot after the
// last step; restored to a middle checkpoint, it is the snapshot taken
// before that step. Then a new step runs after that restore, and the
// restore is undone: undoing a restore undoes that restore only — the new
// step's file is kept, and a path the new step changed after the restore
// put it back is kept too and reported as a conflict, never overwritten.
func TestCheckpointChainOfBashSteps(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	w.write(t, "a.txt", "alpha\nbeta\n", 0o644)
	w.write(t, "old/keep.go", "package old\n", 0o644)
	w.write(t, "old/deep/x.txt", "x\n", 0o600)
	w.write(t, "run.sh", "echo hi\n", 0o644)
	w.write(t, "logo.bin", "\x89PNG\x00\x01\xff", 0o644)
	commands := []string{
		"echo created > new.txt",
		"sed -i 's/beta/gamma/' a.txt",
		"mkdir -p d/e && cp a.txt d/e/copy.txt",
		"rm -rf old",
		"mv new.txt moved.txt",
		"chmod +x run.sh",
		"ln -s a.txt link",
		"printf '\\000\\377\\001binary' > logo.bin",
	}
	snaps := []map[string]string{treetest.Tree(t, w.root)}
	var cps []store.Checkpoint
	for _, command := range commands {
		c := w.turn(t, command)
		if c.Tool != "bash" || c.Changed == 0 {
			t.Fatalf("%s: checkpoint %+v", command, c)
		}
		cps = append(cps, c)
		snaps = append(snaps, treetest.Tree(t, w.root))
	}
	restore := func(what string, id int64, want map[string]string) app.CheckpointRestore {
		t.Helper()
		r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: id, Files: true, Live: w.sess.Session})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if d := treetest.Diff(want, treetest.Tree(t, w.root)); d != "" {
			t.Fatalf("%s: the tree differs:\n%s\n%+v", what, d, r)
		}
		if len(r.Conflicts)+len(r.Skipped) > 0 || len(r.Restored) == 0 {
			t.Errorf("%s: restore reported %+v", what, r)
		}
		return r
	}
	undo := func(what string, want map[string]string) app.CheckpointRestore {
		t.Helper()
		u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if d := treetest.Diff(want, treetest.Tree(t, w.root)); d != "" {
			t.Fatalf("%s: the tree differs:\n%s\n%+v", what, d, u)
		}
		return u
	}
	last := snaps[len(snaps)-1]
	restore("restored to before the first step", cps[0].ID, snaps[0])
	if u := undo("the restore undone", last); len(u.Conflicts)+len(u.Skipped) > 0 {
		t.Errorf("undo reported %+v", u)
	}
	const middle = 3 // rm -rf old
	restore("restored to before "+commands[middle], cps[middle].ID, snaps[middle])
	// The restore undone and done again (undo of the undo): the same trees.
	undo("the middle restore undone", last)
	undo("the undo undone", snaps[middle])

	// A new step after the restore: a new file, and run.sh (which the
	// restore had put back to 0644) changed again.
	w.turn(t, "echo fresh > fresh.txt && echo 'echo again' >> run.sh")
	afterNew := treetest.Tree(t, w.root)
	u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
	if err != nil {
		t.Fatal(err)
	}
	// What the undo should leave: the tree after the last step of the
	// chain, with the new step's two paths as the new step left them.
	want := maps.Clone(last)
	want["fresh.txt"] = afterNew["fresh.txt"]
	want["run.sh"] = afterNew["run.sh"]
	if d := treetest.Diff(want, treetest.Tree(t, w.root)); d != "" {
		t.Errorf("undoing the restore after a new step: the tree differs from the chain's end with the new step kept:\n%s\n%+v", d, u)
	}
	runSh := filepath.Join(w.root, "run.sh")
	if len(u.Conflicts) != 1 || u.Conflicts[0].Path != runSh || u.Conflicts[0].Yours.Text == nil ||
		*u.Conflicts[0].Yours.Text != "echo hi\necho again\n" || u.Conflicts[0].Checkpoint.Mode != "0755" {
		t.Errorf("conflicts = %+v, want run.sh (the new step's version kept, the chain's 0755 one offered)", u.Conflicts)
	}
	if slices.Contains(u.Restored, filepath.Join(w.root, "fresh.txt")) {
		t.Errorf("the undo removed the new step's fresh.txt: %+v", u)
	}
}

// gitOut runs git in dir with none of the person's configuration and
// returns its output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestCheckpointOfAGitCheckout: a step runs `git checkout other` (real
// bash, confined by the sandbox, in a trusted workspace) in a repository
// whose two branches differ by a file added, one removed, one changed and
// one in a new folder. Restored to before the step, the working tree's
// files are as before byte for byte. The .git folder is not
// checkpointed, by design (git keeps it): the restore does not move HEAD
// back, so HEAD stays on other and git status shows the restored files
// as changes against other — exactly those, and nothing else.
func TestCheckpointOfAGitCheckout(t *testing.T) {
	ctx := context.Background()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	writeFile := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("same.txt", "same\n")
	writeFile("changed.txt", "main's\n")
	writeFile("removed.txt", "only on main\n")
	writeFile("lib/main.go", "package lib\n")
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "main")
	git(t, root, "checkout", "-q", "-b", "other")
	writeFile("changed.txt", "other's\n")
	writeFile("added.txt", "only on other\n")
	writeFile("newdir/deep/x.go", "package deep\n")
	git(t, root, "rm", "-q", "removed.txt")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "other")
	git(t, root, "checkout", "-q", "main")

	w := newCPWorldAt(t, root, true)
	before := treetest.Tree(t, root)
	c := w.turn(t, "git checkout -q other")
	if got := strings.TrimSpace(gitOut(t, root, "rev-parse", "--abbrev-ref", "HEAD")); got != "other" {
		t.Fatalf("the step did not check out other: HEAD is %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "changed.txt")); string(b) != "other's\n" {
		t.Fatalf("changed.txt after the checkout: %q", b)
	}
	st, err := w.env.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, err := st.GetCheckpoint(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range full.Files {
		rel, _ := filepath.Rel(root, f.Path)
		paths = append(paths, rel)
	}
	slices.Sort(paths)
	// The files git changed, and the folders it made; nothing of .git.
	if want := []string{"added.txt", "changed.txt", "newdir", "newdir/deep", "newdir/deep/x.go", "removed.txt"}; !slices.Equal(paths, want) {
		t.Errorf("the checkout's checkpoint holds %q, want %q", paths, want)
	}
	r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Live: w.sess.Session})
	if err != nil {
		t.Fatal(err)
	}
	if d := treetest.Diff(before, treetest.Tree(t, root)); d != "" {
		t.Fatalf("restored to before the checkout, the working tree differs:\n%s\n%+v", d, r)
	}
	if len(r.Conflicts)+len(r.Skipped) > 0 {
		t.Errorf("restore reported %+v", r)
	}
	// HEAD stays where the step put it: the restore put back files, not
	// git's state.
	if got := strings.TrimSpace(gitOut(t, root, "rev-parse", "--abbrev-ref", "HEAD")); got != "other" {
		t.Errorf("HEAD after the restore is %s, want other (.git is not restored)", got)
	}
	status := gitOut(t, root, "status", "--porcelain", "--untracked-files=all")
	want := " D added.txt\n M changed.txt\n D newdir/deep/x.go\n?? removed.txt\n"
	if status != want {
		t.Errorf("git status after the restore:\n%s\nwant main's files as changes against other:\n%s", status, want)
	}
	// What docs/checkpoints.md tells the person to do to put HEAD back
	// too: a forced checkout of main, which loses nothing (the files are
	// main's already) and leaves a clean status.
	git(t, root, "checkout", "-q", "-f", "main")
	if status := gitOut(t, root, "status", "--porcelain", "--untracked-files=all"); status != "" {
		t.Errorf("git status after git checkout -f main: %q", status)
	}
	if d := treetest.Diff(before, treetest.Tree(t, root)); d != "" {
		t.Errorf("after git checkout -f main, the working tree differs from before the step:\n%s", d)
	}
}

// TestCheckpointOfLSPRename: the real lsp_rename (gopls, started by the
// environment, confined) renames a function across two files as one
// step. Restored to before it, both files are as before byte for byte;
// the restore undone, both are renamed again.
func TestCheckpointOfLSPRename(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		home, _ := os.UserHomeDir()
		bin := filepath.Join(home, "go", "bin")
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err != nil {
			t.Fatal("gopls is not on PATH: install it with `go install golang.org/x/tools/gopls@v0.23.0`")
		}
		t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+bin)
	}
	ctx := context.Background()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	files := map[string]string{
		"go.mod":   "module example.com/hello\n\ngo 1.22\n",
		"hello.go": "package hello\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"hello \" + name\n}\n",
		"use.go":   "package hello\n\n// Use calls Hello.\nfunc Use() string { return Hello(\"wörld\") + Hello(\"b\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := newCPWorldAt(t, root, true)
	before := treetest.Tree(t, root)
	c := w.call(t, "rename Hello to Hi", "lsp_rename", map[string]any{"symbol": "Hello", "new_name": "Hi"})
	after := treetest.Tree(t, root)
	for name, n := range map[string]int{"hello.go": 1, "use.go": 2} {
		b, _ := os.ReadFile(filepath.Join(root, name))
		if strings.Contains(string(b), "Hello(") || strings.Count(string(b), "Hi(") != n {
			t.Fatalf("%s after lsp_rename:\n%s", name, b)
		}
	}
	if c.Tool != "lsp_rename" || c.Changed != 2 {
		t.Fatalf("the rename's checkpoint: %+v", c)
	}
	r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: c.ID, Files: true, Live: w.sess.Session})
	if err != nil {
		t.Fatal(err)
	}
	if d := treetest.Diff(before, treetest.Tree(t, root)); d != "" {
		t.Fatalf("restored to before the rename, the tree differs:\n%s\n%+v", d, r)
	}
	if len(r.Restored) != 2 || len(r.Conflicts)+len(r.Skipped) > 0 {
		t.Errorf("restore reported %+v", r)
	}
	u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
	if err != nil {
		t.Fatal(err)
	}
	if d := treetest.Diff(after, treetest.Tree(t, root)); d != "" {
		t.Fatalf("the restore undone, the tree differs from after the rename:\n%s\n%+v", d, u)
	}
	if len(u.Restored) != 2 || len(u.Conflicts)+len(u.Skipped) > 0 {
		t.Errorf("undo reported %+v", u)
	}
}

// A restore of the conversation puts its todo list back with it, in the
// live session and in the reply (conversation.todos, for an editor's
// chat); its undo brings the later list back; a restore to before any
// list says none (an empty list, not a missing one).
func TestCheckpointRestoreConversationTodos(t *testing.T) {
	ctx := context.Background()
	w := newCPWorld(t)
	todos := func(list ...map[string]any) {
		t.Helper()
		w.call(t, "plan", "todos", map[string]any{"todos": list})
	}
	first := w.turn(t, "echo one > one.txt")
	todos(map[string]any{"content": "a", "status": "in_progress", "active_form": "doing a"})
	third := w.turn(t, "echo two > two.txt")
	todos(map[string]any{"content": "a", "status": "completed"}, map[string]any{"content": "b", "status": "pending"})
	if got := w.sess.Todos(); len(got) != 2 {
		t.Fatalf("the session's todos: %+v", got)
	}
	show := func(l []tools.Todo) string {
		var parts []string
		for _, td := range l {
			parts = append(parts, td.Content+":"+td.Status)
		}
		return strings.Join(parts, ",")
	}
	check := func(what string, r app.CheckpointRestore, want string) {
		t.Helper()
		if r.Conversation == nil || r.Conversation.Todos == nil {
			t.Fatalf("%s: the reply's conversation carries no todos: %+v", what, r.Conversation)
		}
		if got := show(r.Conversation.Todos); got != want {
			t.Errorf("%s: the reply's todos are %q, want %q", what, got, want)
		}
		if got := show(w.sess.Todos()); got != want {
			t.Errorf("%s: the session's todos are %q, want %q", what, got, want)
		}
	}
	r, err := w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: third.ID, Conversation: true, Live: w.sess.Session})
	if err != nil {
		t.Fatal(err)
	}
	check("restored to before the third turn", r, "a:in_progress")
	u, err := w.env.UndoRestore(ctx, w.sess.ID, w.sess.Session)
	if err != nil {
		t.Fatal(err)
	}
	check("the restore undone", u, "a:completed,b:pending")
	r, err = w.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: w.sess.ID, Checkpoint: first.ID, Conversation: true, Live: w.sess.Session})
	if err != nil {
		t.Fatal(err)
	}
	check("restored to before the first turn", r, "")
	if b, _ := json.Marshal(r.Conversation); !strings.Contains(string(b), `"todos":[]`) {
		t.Errorf("the reply's conversation = %s, want \"todos\":[]", b)
	}
}
