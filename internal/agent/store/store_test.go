package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "agentls.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func ptr(s string) *string { return &s }

// ws and file give absolute paths valid on every OS.
func ws(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		return `C:\w`
	}
	return "/w"
}

func file(t *testing.T, name string) string { return filepath.Join(ws(t), name) }

func change(t *testing.T, turn, name string) Change {
	return Change{
		Workspace: ws(t), SessionID: "s1", TurnID: turn, Tool: "edit", Path: file(t, name),
		Before: "old " + name, BeforeExists: true, After: "new " + name, AfterExists: true,
		Time: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
	}
}

func mustRecord(t *testing.T, s *Store, c Change) int64 {
	t.Helper()
	id, err := s.RecordChange(context.Background(), c)
	if err != nil {
		t.Fatalf("RecordChange(%s): %v", c.Path, err)
	}
	return id
}

// sameChange compares all fields, times by instant.
func sameChange(t *testing.T, got, want Change) {
	t.Helper()
	if !got.Time.Equal(want.Time) {
		t.Errorf("change %d: Time = %v, want %v", want.ID, got.Time, want.Time)
	}
	got.Time, want.Time = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("change read back:\n got %s\nwant %s", show(got), show(want))
	}
}

func show(c Change) string {
	im := "nil"
	if c.Intermediate != nil {
		im = fmt.Sprintf("%q", *c.Intermediate)
	}
	return fmt.Sprintf("%+v Intermediate=%s", c, im)
}

func TestRecordAndReadBack(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()

	plain := change(t, "t1", "a.go")
	withIntermediate := change(t, "t1", "b.go")
	withIntermediate.Intermediate = ptr("user edit\x00 with NUL and \xff invalid UTF-8, ünïcode")
	withIntermediate.After = "agent \x00\xfe bytes"
	created := change(t, "t1", "c.go")
	created.Before, created.BeforeExists, created.Tool = "", false, "write"
	deleted := change(t, "t1", "d.go")
	deleted.After, deleted.AfterExists, deleted.SessionID = "", false, "s2"
	emptyIntermediate := change(t, "t1", "e.go")
	emptyIntermediate.Intermediate = ptr("") // set but empty must not read back as nil
	unclean := change(t, "t1", "f.go")       // stored cleaned, so found under the plain root
	unclean.Workspace += string(filepath.Separator)
	unclean.Path = filepath.Join(ws(t), "sub") + string(filepath.Separator) + ".." + string(filepath.Separator) + "f.go"

	want := []Change{plain, withIntermediate, created, deleted, emptyIntermediate, unclean}
	for i := range want {
		want[i].ID = mustRecord(t, s, want[i])
	}
	want[5].Workspace, want[5].Path = ws(t), file(t, "f.go")
	// Other turns and workspaces must not leak in.
	mustRecord(t, s, change(t, "t2", "a.go"))
	other := change(t, "t1", "a.go")
	other.Workspace = filepath.Join(ws(t), "other")
	mustRecord(t, s, other)

	got, err := s.TurnChanges(ctx, ws(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	// A trailing separator names the same workspace when reading too.
	if again, err := s.TurnChanges(ctx, ws(t)+string(filepath.Separator), "t1"); err != nil || len(again) != len(want) {
		t.Errorf("TurnChanges(root + separator) = %d changes, %v; want %d", len(again), err, len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("TurnChanges returned %d changes, want %d", len(got), len(want))
	}
	for i := range want {
		sameChange(t, got[i], want[i])
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID {
			t.Errorf("changes not in recording order: id %d after %d", got[i].ID, got[i-1].ID)
		}
	}
}

func TestRecordChangeDefaultsTime(t *testing.T) {
	s, _ := openTemp(t)
	c := change(t, "t1", "a.go")
	c.Time = time.Time{}
	before := time.Now()
	mustRecord(t, s, c)
	after := time.Now()
	got, err := s.TurnChanges(context.Background(), ws(t), "t1")
	if err != nil || len(got) != 1 {
		t.Fatalf("TurnChanges = %d changes, %v", len(got), err)
	}
	if got[0].Time.Before(before) || got[0].Time.After(after) {
		t.Errorf("Time = %v, want between %v and %v", got[0].Time, before, after)
	}
}

func TestRecordChangeRefuses(t *testing.T) {
	s, _ := openTemp(t)
	big := strings.Repeat("x", MaxContentBytes+1)
	tests := []struct {
		name   string
		modify func(*Change)
		want   string
	}{
		{"relative path", func(c *Change) { c.Path = "a.go" }, "not absolute"},
		{"relative workspace", func(c *Change) { c.Workspace = "w" }, "not an absolute path"},
		{"no turn", func(c *Change) { c.TurnID = "" }, "no turn id"},
		{"before content of a missing file", func(c *Change) { c.BeforeExists = false }, "did not exist"},
		{"after content of a deleted file", func(c *Change) { c.AfterExists = false }, "deleted file"},
		{"large before", func(c *Change) { c.Before = big }, "before content is 10485761 bytes"},
		{"large intermediate", func(c *Change) { c.Intermediate = &big }, "intermediate content is"},
		{"large after", func(c *Change) { c.After = big }, "after content is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := change(t, "t1", "a.go")
			tt.modify(&c)
			_, err := s.RecordChange(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RecordChange error = %v, want one containing %q", err, tt.want)
			}
			if strings.HasPrefix(tt.name, "large") && !errors.Is(err, ErrTooLarge) {
				t.Errorf("error %v is not ErrTooLarge", err)
			}
		})
	}
	if _, err := s.LastTurn(context.Background(), ws(t)); !errors.Is(err, ErrNoTurn) {
		t.Errorf("a refused change was stored: LastTurn error = %v, want ErrNoTurn", err)
	}

	// Exactly the limit is fine.
	c := change(t, "t1", "a.go")
	c.After = strings.Repeat("y", MaxContentBytes)
	mustRecord(t, s, c)
	got, err := s.TurnChanges(context.Background(), ws(t), "t1")
	if err != nil || len(got) != 1 || got[0].After != c.After {
		t.Fatalf("content at the limit not stored intact (%d changes, err %v)", len(got), err)
	}
}

func TestLastTurnAndMarkReverted(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, err := s.LastTurn(ctx, ws(t)); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("LastTurn on an empty store: err = %v, want ErrNoTurn", err)
	}

	t1a := mustRecord(t, s, change(t, "t1", "a.go"))
	t1b := mustRecord(t, s, change(t, "t1", "b.go"))
	t2 := mustRecord(t, s, change(t, "t2", "a.go"))
	other := change(t, "t3", "a.go") // later, but in another workspace
	other.Workspace = filepath.Join(ws(t), "other")
	mustRecord(t, s, other)

	wantLast := func(want string) {
		t.Helper()
		got, err := s.LastTurn(ctx, ws(t))
		if err != nil || got != want {
			t.Fatalf("LastTurn = %q, %v; want %q", got, err, want)
		}
	}
	wantLast("t2")

	// An unknown id fails the whole call and marks nothing.
	if err := s.MarkReverted(ctx, []int64{t2, 999999}); err == nil || !strings.Contains(err.Error(), "999999") {
		t.Fatalf("MarkReverted with an unknown id: err = %v, want one naming it", err)
	}
	wantLast("t2")
	if err := s.MarkReverted(ctx, nil); err != nil {
		t.Fatalf("MarkReverted(nil) = %v", err)
	}

	if err := s.MarkReverted(ctx, []int64{t2}); err != nil {
		t.Fatal(err)
	}
	wantLast("t1")
	got, err := s.TurnChanges(ctx, ws(t), "t2")
	if err != nil || len(got) != 1 || !got[0].Reverted {
		t.Fatalf("t2 after MarkReverted: %+v, %v; want one reverted change", got, err)
	}

	// A partly reverted turn is still the last turn.
	if err := s.MarkReverted(ctx, []int64{t1b}); err != nil {
		t.Fatal(err)
	}
	wantLast("t1")
	if err := s.MarkReverted(ctx, []int64{t1a}); err != nil {
		t.Fatal(err)
	}
	if turn, err := s.LastTurn(ctx, ws(t)); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("LastTurn with everything reverted = %q, %v; want ErrNoTurn", turn, err)
	}
	// The other workspace is untouched.
	if turn, err := s.LastTurn(ctx, other.Workspace); err != nil || turn != "t3" {
		t.Fatalf("LastTurn(other) = %q, %v; want t3", turn, err)
	}
}

func TestPlanRevert(t *testing.T) {
	p := func(name string) string { return file(t, name) }
	edit := func(id int64, name, before, after string) Change {
		return Change{ID: id, Path: p(name), Before: before, BeforeExists: true, After: after, AfterExists: true}
	}
	create := func(id int64, name, after string) Change {
		return Change{ID: id, Path: p(name), After: after, AfterExists: true}
	}
	remove := func(id int64, name, before string) Change {
		return Change{ID: id, Path: p(name), Before: before, BeforeExists: true}
	}
	withIntermediate := func(c Change, text string) Change { c.Intermediate = &text; return c }
	reverted := func(c Change) Change { c.Reverted = true; return c }
	now := func(text string) Current { return Current{Text: text, Exists: true} }
	gone := Current{}

	tests := []struct {
		name        string
		changes     []Change
		current     map[string]Current
		force       bool
		wantRestore []Restore
		wantSkipped []Skipped
	}{
		{
			name:        "single change",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{p("a"): now("v1")},
			wantRestore: []Restore{{Path: p("a"), Text: "v0", Exists: true, ChangeIDs: []int64{1}}},
		},
		{
			name:        "several changes to one file restore the first Before",
			changes:     []Change{edit(1, "a", "v0", "v1"), edit(2, "a", "v1", "v2"), edit(3, "a", "v2", "v3")},
			current:     map[string]Current{p("a"): now("v3")},
			wantRestore: []Restore{{Path: p("a"), Text: "v0", Exists: true, ChangeIDs: []int64{1, 2, 3}}},
		},
		{
			name:        "several changes: unchanged means equal to the last After",
			changes:     []Change{edit(1, "a", "v0", "v1"), edit(2, "a", "v1", "v2")},
			current:     map[string]Current{p("a"): now("v1")},
			wantSkipped: []Skipped{{Path: p("a"), Reason: "changed after the turn (not reverted; use force)"}},
		},
		{
			name:        "file created by the turn is deleted",
			changes:     []Change{create(1, "new", "hello")},
			current:     map[string]Current{p("new"): now("hello")},
			wantRestore: []Restore{{Path: p("new"), Exists: false, ChangeIDs: []int64{1}}},
		},
		{
			name:        "file deleted by the turn is recreated",
			changes:     []Change{remove(1, "old", "content")},
			current:     map[string]Current{p("old"): gone},
			wantRestore: []Restore{{Path: p("old"), Text: "content", Exists: true, ChangeIDs: []int64{1}}},
		},
		{
			name:        "file the turn deleted was created again",
			changes:     []Change{remove(1, "old", "content")},
			current:     map[string]Current{p("old"): now("user's")},
			wantSkipped: []Skipped{{Path: p("old"), Reason: "created again after the turn deleted it (not reverted; use force)"}},
		},
		{
			name:        "file changed after the turn is skipped",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{p("a"): now("v1 + user")},
			wantSkipped: []Skipped{{Path: p("a"), Reason: "changed after the turn (not reverted; use force)"}},
		},
		{
			name:        "file changed after the turn is restored with force",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{p("a"): now("v1 + user")},
			force:       true,
			wantRestore: []Restore{{Path: p("a"), Text: "v0", Exists: true, ChangeIDs: []int64{1}}},
		},
		{
			name:        "file missing now is skipped",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{p("a"): gone},
			wantSkipped: []Skipped{{Path: p("a"), Reason: "deleted after the turn (not reverted; use force)"}},
		},
		{
			name:        "file missing now is restored with force",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{p("a"): gone},
			force:       true,
			wantRestore: []Restore{{Path: p("a"), Text: "v0", Exists: true, ChangeIDs: []int64{1}}},
		},
		{
			name:        "created file missing now is skipped",
			changes:     []Change{create(1, "new", "hello")},
			current:     map[string]Current{p("new"): gone},
			wantSkipped: []Skipped{{Path: p("new"), Reason: "deleted after the turn (not reverted; use force)"}},
		},
		{
			name:        "intermediate: the user's edit before the change survives",
			changes:     []Change{withIntermediate(edit(1, "a", "v0", "v0+user+agent"), "v0+user"), edit(2, "a", "v0+user+agent", "v2")},
			current:     map[string]Current{p("a"): now("v2")},
			wantRestore: []Restore{{Path: p("a"), Text: "v0+user", Exists: true, ChangeIDs: []int64{1, 2}}},
		},
		{
			name:        "intermediate on a later change does not move the target",
			changes:     []Change{edit(1, "a", "v0", "v1"), withIntermediate(edit(2, "a", "v1", "v2"), "v1+user")},
			current:     map[string]Current{p("a"): now("v2")},
			wantRestore: []Restore{{Path: p("a"), Text: "v0", Exists: true, ChangeIDs: []int64{1, 2}}},
		},
		{
			name:        "intermediate on a created file: the user made it first",
			changes:     []Change{withIntermediate(create(1, "new", "agent"), "user")},
			current:     map[string]Current{p("new"): now("agent")},
			wantRestore: []Restore{{Path: p("new"), Text: "user", Exists: true, ChangeIDs: []int64{1}}},
		},
		{
			name:    "files are independent, in order of first change",
			changes: []Change{edit(1, "b", "b0", "b1"), edit(2, "a", "a0", "a1"), edit(3, "c", "c0", "c1"), edit(4, "b", "b1", "b2")},
			current: map[string]Current{p("a"): now("a1 + user"), p("b"): now("b2"), p("c"): now("c1")},
			wantRestore: []Restore{
				{Path: p("b"), Text: "b0", Exists: true, ChangeIDs: []int64{1, 4}},
				{Path: p("c"), Text: "c0", Exists: true, ChangeIDs: []int64{3}},
			},
			wantSkipped: []Skipped{{Path: p("a"), Reason: "changed after the turn (not reverted; use force)"}},
		},
		{
			name:        "unknown current state is skipped even with force",
			changes:     []Change{edit(1, "a", "v0", "v1")},
			current:     map[string]Current{},
			force:       true,
			wantSkipped: []Skipped{{Path: p("a"), Reason: "current content unknown (not reverted)"}},
		},
		{
			name:        "already reverted changes are left out",
			changes:     []Change{reverted(edit(1, "a", "v0", "v1")), edit(2, "b", "b0", "b1")},
			current:     map[string]Current{p("a"): now("v0"), p("b"): now("b1")},
			wantRestore: []Restore{{Path: p("b"), Text: "b0", Exists: true, ChangeIDs: []int64{2}}},
		},
		{
			name:        "created then deleted within the turn",
			changes:     []Change{create(1, "tmp", "x"), remove(2, "tmp", "x")},
			current:     map[string]Current{p("tmp"): gone},
			wantRestore: []Restore{{Path: p("tmp"), Exists: false, ChangeIDs: []int64{1, 2}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restores, skipped := PlanRevert(tt.changes, tt.current, tt.force)
			if len(restores) != len(tt.wantRestore) || (len(restores) > 0 && !reflect.DeepEqual(restores, tt.wantRestore)) {
				t.Errorf("restores:\n got %+v\nwant %+v", restores, tt.wantRestore)
			}
			if len(skipped) != len(tt.wantSkipped) || (len(skipped) > 0 && !reflect.DeepEqual(skipped, tt.wantSkipped)) {
				t.Errorf("skipped:\n got %+v\nwant %+v", skipped, tt.wantSkipped)
			}
		})
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agentls.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	c := change(t, "t1", "a.go")
	c.Intermediate = ptr("mid")
	c.ID = mustRecord(t, s, c)
	if err := s.RecordDecision(ctx, Decision{Workspace: ws(t), Tool: "bash", Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got, err := s.TurnChanges(ctx, ws(t), "t1")
	if err != nil || len(got) != 1 {
		t.Fatalf("after reopen TurnChanges = %d changes, %v; want 1", len(got), err)
	}
	sameChange(t, got[0], c)
	ds, err := s.Decisions(ctx, ws(t), 0)
	if err != nil || len(ds) != 1 || ds[0].Tool != "bash" {
		t.Fatalf("after reopen Decisions = %+v, %v", ds, err)
	}
	if id := mustRecord(t, s, change(t, "t2", "a.go")); id <= c.ID {
		t.Errorf("id after reopen = %d, want > %d", id, c.ID)
	}
}

func TestConcurrentRecordChange(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	const n = 20
	ids := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ids[i], errs[i] = s.RecordChange(ctx, change(t, "t1", fmt.Sprintf("f%02d.go", i)))
		})
	}
	wg.Wait()
	seen := map[int64]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if seen[ids[i]] {
			t.Errorf("id %d handed out twice", ids[i])
		}
		seen[ids[i]] = true
	}
	got, err := s.TurnChanges(ctx, ws(t), "t1")
	if err != nil || len(got) != n {
		t.Fatalf("TurnChanges = %d changes, %v; want %d", len(got), err, n)
	}
	paths := map[string]bool{}
	for _, c := range got {
		paths[c.Path] = true
	}
	if len(paths) != n {
		t.Errorf("%d distinct paths stored, want %d", len(paths), n)
	}
}

// TestTwoStoresShareOneFile stands in for two processes (an editor's
// server and `agentls run`): separate connections to one file, opened and
// written at the same time.
func TestTwoStoresShareOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agentls.db")
	const stores, writes = 2, 25
	ss := make([]*Store, stores)
	errs := make([]error, stores)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { ss[i], errs[i] = Open(ctx, path) })
	}
	wg.Wait()
	for i := range stores {
		if errs[i] != nil {
			t.Fatalf("concurrent Open %d: %v", i, errs[i])
		}
		defer ss[i].Close()
	}
	werrs := make([]error, stores*writes)
	for i := range stores {
		for j := range writes {
			wg.Go(func() {
				_, werrs[i*writes+j] = ss[i].RecordChange(ctx, change(t, "t1", fmt.Sprintf("s%d-%d", i, j)))
			})
		}
	}
	wg.Wait()
	for i, err := range werrs {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for i, s := range ss {
		got, err := s.TurnChanges(ctx, ws(t), "t1")
		if err != nil || len(got) != stores*writes {
			t.Fatalf("store %d sees %d changes, %v; want %d", i, len(got), err, stores*writes)
		}
	}
	var versions int
	if err := ss[0].db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil || versions != len(migrations()) {
		t.Fatalf("schema_migrations rows after concurrent Open = %d, %v; want %d", versions, err, len(migrations()))
	}
}

func TestSchemaVersion(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	versions := func(s *Store) []int {
		t.Helper()
		rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var vs []int
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return vs
	}
	if got := versions(s); !reflect.DeepEqual(got, []int{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("schema versions = %v, want [1 2 3 4 5 6]", got)
	}
	s.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(s); !reflect.DeepEqual(got, []int{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("schema versions after reopen = %v, want [1 2 3 4 5 6]", got)
	}
	// A database from a newer agentls is refused, not misread.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_ns) VALUES (?, 0)`, len(migrations())+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s2, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		if s2 != nil {
			s2.Close()
		}
		t.Fatalf("Open of a version-2 database: err = %v, want a 'newer' error", err)
	}
}

func TestConnectionSettings(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != busyTimeout.Milliseconds() {
		t.Errorf("busy_timeout = %d, %v; want %d", timeout, err, busyTimeout.Milliseconds())
	}
}

func TestOpenAwkwardPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b%20#c")
	if runtime.GOOS != "windows" {
		dir += "?x=y"
	}
	path := filepath.Join(dir, "agentls.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	defer s.Close()
	mustRecord(t, s, change(t, "t1", "a.go"))
	// SQLite itself must have opened this exact file (not, say, a name cut
	// at '?' or '#').
	var main string
	if err := s.db.QueryRowContext(context.Background(), `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&main); err != nil {
		t.Fatal(err)
	}
	if main != path {
		t.Errorf("SQLite opened %q, want %q", main, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("database not at %q: %v", path, err)
	}
	if runtime.GOOS != "windows" {
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("database mode = %o, want 600 (it holds file contents)", perm)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "agentls.db") {
			t.Errorf("unexpected file %q next to the database", e.Name())
		}
	}
}

func TestOpenEmptyPath(t *testing.T) {
	if s, err := Open(context.Background(), ""); err == nil {
		s.Close()
		t.Fatal("Open(\"\") succeeded")
	}
}

func TestDefaultPath(t *testing.T) {
	dir := filepath.Join("x", "agentls")
	if got, want := DefaultPath(dir), filepath.Join("x", "agentls", "agentls.db"); got != want {
		t.Errorf("DefaultPath = %q, want %q", got, want)
	}
}

func TestDecisions(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	base := time.Date(2025, 6, 1, 12, 0, 0, 123, time.UTC)
	var all []Decision
	for i := range 5 {
		d := Decision{
			Time: base.Add(time.Duration(i) * time.Minute), Workspace: ws(t), SessionID: "s1", TurnID: fmt.Sprintf("t%d", i),
			Tool: "bash", Capability: "exec", Action: fmt.Sprintf("go test ./%d", i), Scope: "workspace",
			Decision: "allow", Source: "rule", Rule: "Bash(go test:*)", Channel: "editor", Reason: fmt.Sprintf("reason %d", i),
		}
		if err := s.RecordDecision(ctx, d); err != nil {
			t.Fatal(err)
		}
		all = append(all, d)
	}
	if err := s.RecordDecision(ctx, Decision{Workspace: filepath.Join(ws(t), "other"), Tool: "edit"}); err != nil {
		t.Fatal(err)
	}

	check := func(limit int, want []Decision) {
		t.Helper()
		got, err := s.Decisions(ctx, ws(t), limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Decisions(limit %d) returned %d, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if !got[i].Time.Equal(want[i].Time) {
				t.Errorf("decision %d Time = %v, want %v", i, got[i].Time, want[i].Time)
			}
			g, w := got[i], want[i]
			g.Time, w.Time = time.Time{}, time.Time{}
			if g != w {
				t.Errorf("decision %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
	newestFirst := []Decision{all[4], all[3], all[2], all[1], all[0]}
	check(3, newestFirst[:3])
	check(0, newestFirst)
	check(100, newestFirst)

	// Zero time means now.
	before := time.Now()
	if err := s.RecordDecision(ctx, Decision{Workspace: ws(t), Tool: "view"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Decisions(ctx, ws(t), 1)
	if err != nil || len(got) != 1 || got[0].Tool != "view" || got[0].Time.Before(before) {
		t.Fatalf("latest decision = %+v, %v; want the view decision stamped now", got, err)
	}
}

// TestOpenNewDatabaseAtOnce opens one new database from several stores at
// the same moment, as two agentls processes started together do: each
// must open it (the loser of the race for the first write lock waits; it
// used to fail with SQLITE_BUSY and run without history).
func TestOpenNewDatabaseAtOnce(t *testing.T) {
	for round := range 20 {
		path := filepath.Join(t.TempDir(), "agentls.db")
		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := Open(context.Background(), path)
				if err == nil {
					err = s.Close()
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, store %d: %v", round, i, err)
			}
		}
	}
}

// TestLastSessionTurn: the last turn of one session, its subagents'
// changes included ("<session>-<call>"), never a later turn of another
// session, nor of a session whose id only starts the same.
func TestLastSessionTurn(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	rec := func(session, turn string) {
		c := change(t, turn, "a.go")
		c.SessionID = session
		mustRecord(t, s, c)
	}
	rec("s1", "s1-t1")
	rec("s1-call_1", "s1-t2") // a subagent of s1, in s1's turn 2
	rec("s2", "s2-t1")
	rec("s10", "s10-t1")
	for _, c := range []struct{ session, want string }{{"s1", "s1-t2"}, {"s2", "s2-t1"}, {"s10", "s10-t1"}} {
		if got, err := s.LastSessionTurn(ctx, ws(t), c.session); err != nil || got != c.want {
			t.Errorf("LastSessionTurn(%s) = %q, %v; want %q", c.session, got, err, c.want)
		}
	}
	if got, err := s.LastSessionTurn(ctx, ws(t), "s3"); !errors.Is(err, ErrNoTurn) {
		t.Errorf("LastSessionTurn of a session without changes = %q, %v; want ErrNoTurn", got, err)
	}
}

// The baseline of a workspace folder not used since a time goes, with the
// contents only it named; a folder used since keeps its own.
func TestPruneIndexesOfUnusedFolders(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	entry := func(text string) (map[string][]byte, map[string]IndexEntry) {
		h := HashOf([]byte(text))
		return map[string][]byte{h: []byte(text)}, map[string]IndexEntry{"f": {State: FileState{Kind: KindFile, Mode: 0o644, Size: int64(len(text)), Hash: h}}}
	}
	oldWS, newWS := ws(t), filepath.Join(ws(t), "other")
	blobs, set := entry("old folder's file")
	if err := s.SaveIndex(ctx, IndexUpdate{Workspace: oldWS, Blobs: blobs, Set: set}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	cutoff := time.Now()
	blobs, set = entry("new folder's file")
	if err := s.SaveIndex(ctx, IndexUpdate{Workspace: newWS, Blobs: blobs, Set: set}); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneIndexes(ctx, cutoff)
	if err != nil || n != 1 {
		t.Fatalf("PruneIndexes = %d, %v; want the old folder's", n, err)
	}
	if idx, _ := s.Index(ctx, oldWS); len(idx) != 0 {
		t.Errorf("the unused folder's index: %v", idx)
	}
	if idx, _ := s.Index(ctx, newWS); len(idx) != 1 {
		t.Errorf("the folder used since lost its index: %v", idx)
	}
	if _, err := s.Blob(ctx, HashOf([]byte("old folder's file"))); err == nil {
		t.Error("the content only the dropped index named is still kept")
	}
	if _, err := s.Blob(ctx, HashOf([]byte("new folder's file"))); err != nil {
		t.Errorf("the kept index's content: %v", err)
	}
}
