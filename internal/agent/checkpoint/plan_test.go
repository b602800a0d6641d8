package checkpoint

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/agent/store"
)

func TestPlanRestore(t *testing.T) {
	file := func(h string, mode uint32) store.FileState {
		return store.FileState{Kind: store.KindFile, Mode: mode, Hash: h, Size: int64(len(h))}
	}
	notKept := store.FileState{Kind: store.KindFile, Mode: 0o644, Size: 99, NotKept: "too large"}
	dir := store.FileState{Kind: store.KindDir, Mode: 0o755}
	link := func(to string) store.FileState { return store.FileState{Kind: store.KindLink, Target: to} }
	none := store.FileState{}
	cp := func(id int64, files ...store.CheckpointFile) store.Checkpoint {
		return store.Checkpoint{ID: id, Files: files}
	}
	ch := func(before, after store.FileState) store.CheckpointFile {
		return store.CheckpointFile{Path: "/w/p", Before: before, After: after}
	}
	for _, tc := range []struct {
		name     string
		cps      []store.Checkpoint
		current  map[string]store.FileState
		actions  []action
		conflict string // reason of the one conflict, "" for none
		skipped  string
	}{
		{name: "modified back", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("b", 0o644)}, actions: []action{{"/w/p", file("b", 0o644), file("a", 0o644)}}},
		{name: "mode back", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("a", 0o755)))},
			current: map[string]store.FileState{"/w/p": file("a", 0o755)}, actions: []action{{"/w/p", file("a", 0o755), file("a", 0o644)}}},
		{name: "created, removed", cps: []store.Checkpoint{cp(1, ch(none, file("a", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("a", 0o644)}, actions: []action{{"/w/p", file("a", 0o644), none}}},
		{name: "deleted folder back", cps: []store.Checkpoint{cp(1, ch(dir, none))},
			current: map[string]store.FileState{"/w/p": none}, actions: []action{{"/w/p", none, dir}}},
		{name: "link back", cps: []store.Checkpoint{cp(1, ch(link("x"), link("y")))},
			current: map[string]store.FileState{"/w/p": link("y")}, actions: []action{{"/w/p", link("y"), link("x")}}},
		{name: "two steps: the first's before, once", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644))), cp(2, ch(file("b", 0o644), file("c", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("c", 0o644)}, actions: []action{{"/w/p", file("c", 0o644), file("a", 0o644)}}},
		{name: "already as it was", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("a", 0o644)}},
		{name: "changed since: conflict", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("person", 0o644)}, conflict: "changed after the agent's step"},
		{name: "deleted since: conflict", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": none}, conflict: "changed after the agent's step"},
		{name: "chmod since: conflict", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("b", 0o600)}, conflict: "changed after the agent's step"},
		{name: "someone between the steps", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644))), cp(2, ch(file("person", 0o644), file("c", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("c", 0o644)}, actions: []action{{"/w/p", file("c", 0o644), file("person", 0o644)}},
			conflict: "changed by someone else between the agent's steps: put back to that version, not to the checkpoint's"},
		{name: "not in a folder", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), file("b", 0o644)))},
			current: map[string]store.FileState{}, skipped: "not in an open workspace folder"},
		{name: "after not kept", cps: []store.Checkpoint{cp(1, ch(file("a", 0o644), notKept))},
			current: map[string]store.FileState{"/w/p": notKept}, skipped: "its content after the agent's step was not kept (too large), so whether it changed since cannot be told"},
		{name: "before not kept", cps: []store.Checkpoint{cp(1, ch(notKept, file("b", 0o644)))},
			current: map[string]store.FileState{"/w/p": file("b", 0o644)}, skipped: "its content before the step was not kept: too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := map[string]pathNow{}
			for p, st := range tc.current {
				now[p] = pathNow{view: st, disk: st}
			}
			pl := planRestore(tc.cps, now)
			if !reflect.DeepEqual(pl.actions, tc.actions) {
				t.Errorf("actions = %+v, want %+v", pl.actions, tc.actions)
			}
			var conflict, skipped string
			if len(pl.conflicts) > 1 || len(pl.skipped) > 1 {
				t.Fatalf("conflicts %+v, skipped %+v", pl.conflicts, pl.skipped)
			}
			if len(pl.conflicts) == 1 {
				conflict = pl.conflicts[0].reason
				if want := tc.cps[0].Files[0].Before; pl.conflicts[0].checkpoint != want {
					t.Errorf("conflict's checkpoint version = %+v, want %+v", pl.conflicts[0].checkpoint, want)
				}
			}
			if len(pl.skipped) == 1 {
				skipped = pl.skipped[0].Reason
			}
			if conflict != tc.conflict || skipped != tc.skipped {
				t.Errorf("conflict %q, skipped %q; want %q, %q", conflict, skipped, tc.conflict, tc.skipped)
			}
		})
	}
}

// "As it was" needs both the editor's buffer and the disk as they were: a
// buffer holding the old text over a disk that lost the file, or holds
// the agent's text, is not.
func TestPlanRestoreBufferAndDisk(t *testing.T) {
	a := store.FileState{Kind: store.KindFile, Mode: 0o644, Hash: "a", Size: 1}
	b := store.FileState{Kind: store.KindFile, Mode: 0o644, Hash: "b", Size: 1}
	none := store.FileState{}
	deleted := []store.Checkpoint{{ID: 1, Files: []store.CheckpointFile{{Path: "/w/p", Before: a, After: none}}}}
	if pl := planRestore(deleted, map[string]pathNow{"/w/p": {view: none, disk: none}}); len(pl.actions) != 1 || pl.actions[0].to != a {
		t.Errorf("deleted, buffer gone: %+v", pl)
	}
	modified := []store.Checkpoint{{ID: 1, Files: []store.CheckpointFile{{Path: "/w/p", Before: a, After: b}}}}
	pl := planRestore(modified, map[string]pathNow{"/w/p": {view: a, disk: b}})
	if len(pl.actions) != 0 || len(pl.conflicts) != 1 {
		t.Errorf("buffer as it was, disk the agent's: %+v, want a conflict (the buffer's unsaved text is the person's)", pl)
	}
	pl = planRestore(modified, map[string]pathNow{"/w/p": {view: b, disk: a}})
	if len(pl.actions) != 1 || pl.actions[0].from != b || pl.actions[0].to != a {
		t.Errorf("buffer the agent's unsaved edit, disk as it was: %+v, want the buffer put back", pl)
	}
}
