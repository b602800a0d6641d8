package store

// Current is a file's state now, as the caller read it (from the editor's
// buffer for open documents, else from disk), for PlanRevert.
type Current struct {
	Text   string
	Exists bool
}

// Restore is one file a revert puts back: write Text, or delete the file
// when Exists is false (deleting an already missing file is success). After
// it is done, pass ChangeIDs to MarkReverted.
type Restore struct {
	Path   string
	Text   string
	Exists bool
	// ChangeIDs are the file's changes in the turn that this undoes.
	ChangeIDs []int64
}

// Skipped is a file a revert leaves alone, with why, for the user.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// PlanRevert decides, without I/O, what reverting changes (one turn's, in
// recording order as TurnChanges returns them) does given each file's
// current state. Files are independent and come out in the order they were
// first changed. Changes already reverted are ignored.
//
// A file is restored to its state just before the turn's first change to
// it: the Intermediate content if the user had changed it since agentls read
// it (so the user's own edit survives the revert), else Before. It is only
// restored if it is as the turn's last change left it; a file changed since
// is skipped, unless force. A file missing from current is always skipped:
// its state is unknown and restoring blindly could destroy work.
func PlanRevert(changes []Change, current map[string]Current, force bool) ([]Restore, []Skipped) {
	type file struct {
		first, last Change
		ids         []int64
	}
	var (
		order  []string
		byPath = map[string]*file{}
	)
	for _, c := range changes {
		if c.Reverted {
			continue
		}
		f := byPath[c.Path]
		if f == nil {
			f = &file{first: c}
			byPath[c.Path] = f
			order = append(order, c.Path)
		}
		f.last = c
		f.ids = append(f.ids, c.ID)
	}

	var (
		restores []Restore
		skipped  []Skipped
	)
	for _, path := range order {
		f := byPath[path]
		cur, ok := current[path]
		if !ok {
			skipped = append(skipped, Skipped{Path: path, Reason: "current content unknown (not reverted)"})
			continue
		}
		if reason := changedSince(f.last, cur); reason != "" && !force {
			skipped = append(skipped, Skipped{Path: path, Reason: reason + " (not reverted; use force)"})
			continue
		}
		r := Restore{Path: path, Text: f.first.Before, Exists: f.first.BeforeExists, ChangeIDs: f.ids}
		if f.first.Intermediate != nil {
			r.Text, r.Exists = *f.first.Intermediate, true
		}
		restores = append(restores, r)
	}
	return restores, skipped
}

// changedSince says how cur differs from what last left, or "" when it
// does not.
func changedSince(last Change, cur Current) string {
	switch {
	case last.AfterExists && !cur.Exists:
		return "deleted after the turn"
	case !last.AfterExists && cur.Exists:
		return "created again after the turn deleted it"
	case last.AfterExists && cur.Text != last.After:
		return "changed after the turn"
	}
	return ""
}
