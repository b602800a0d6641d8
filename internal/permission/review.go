package permission

import "context"

// A change to one file that must be asked about can be reviewed instead:
// the person sees the whole proposal and may accept part of it or edit it.
// The gate knows nothing of hunks; it carries the proposal to a reviewing
// asker and the person's revision back to the caller, which writes it.

// Change is a proposed change of one file, set on a Request by the tool
// that would make it (edit, multiedit, write).
type Change struct {
	// Path is the file's absolute path.
	Path string
	// Old is the text the tool read (the editor's buffer when open);
	// Exists is false for a file the change creates.
	Old    string
	Exists bool
	// New is the proposed text.
	New string
}

// Revision is what a person made of a reviewed change when it is not the
// proposal itself: the text to write and a note telling the model what
// was rejected or changed.
type Revision struct {
	// Old is the text the review started from: the caller writes Text only
	// if the file still holds it.
	Old  string
	Text string
	Note string
}

// Reviewer is an Asker that can show a Change for review. The gate calls
// Review instead of Ask for a question whose request has a Change. A nil
// Revision with an allowing answer means the change as proposed.
type Reviewer interface {
	Asker
	Review(ctx context.Context, q Question) (Answer, *Revision, error)
}
