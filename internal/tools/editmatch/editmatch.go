package editmatch

import (
	"errors"
	"fmt"
	"strings"
)

// Edit is one find-and-replace request as the model sent it.
type Edit struct {
	Old string // text to find (old_string); empty means "create a file"
	New string // replacement (new_string); empty deletes the match
	// ReplaceAll replaces every match instead of requiring exactly one.
	ReplaceAll bool
}

// LineRange is a span of 1-based lines in Result.Content, so a tool can
// show the model what it wrote. Last < First means lines were removed just
// before line First.
type LineRange struct {
	First, Last int
}

// Result is the edited file and how the edit was found.
type Result struct {
	Content string // the whole edited file
	// Fuzzy is set when old_string matched only after ignoring whitespace.
	Fuzzy bool
	// Note is for the model when Fuzzy is set: what was done, check it.
	Note         string
	Replacements int         // places replaced
	Changed      []LineRange // lines written by the edit, ascending
}

// ErrEmptyOld is returned for an empty old_string, which the tool treats as
// a request to create a file; matching cannot do anything with it.
var ErrEmptyOld = errors.New("old_string is empty: quote the exact text to replace " +
	"(an empty old_string is only for creating a new file)")

// ErrNoChange is wrapped by errors for edits that would not change the
// file, so the model learns its edit was a no-op.
var ErrNoChange = errors.New("no change")

// ErrNotFound is matched (errors.Is) by *NotFoundError.
var ErrNotFound = errors.New("old_string not found")

// ErrAmbiguous is matched (errors.Is) by *AmbiguousError.
var ErrAmbiguous = errors.New("old_string matches more than one place")

// ErrIndent is matched (errors.Is) by *IndentError.
var ErrIndent = errors.New("new_string's indentation cannot be adapted unambiguously")

// ErrBlankLines is matched (errors.Is) by *BlankLinesError.
var ErrBlankLines = errors.New("the file's blank lines cannot be placed unambiguously")

// BlankLinesError says old_string has a different number of blank lines
// than the file in one place, and new_string changes the lines next to
// them, so where the file's blank lines belong is unclear. The edit is
// refused rather than guessed.
type BlankLinesError struct {
	// FileLines are the file's blank lines there, 1-based; Last < First
	// means the file has none, just before line First.
	FileLines             LineRange
	FileBlanks, OldBlanks int
}

// Error tells the model what differs and how to fix old_string.
func (e *BlankLinesError) Error() string {
	where := fmt.Sprintf("%s blank %s at %s", countText(e.FileBlanks), plural(e.FileBlanks, "line", "lines"),
		linesText([]LineRange{e.FileLines}))
	if e.FileBlanks == 0 {
		where = fmt.Sprintf("no blank line just before line %d", e.FileLines.First)
	}
	return fmt.Sprintf("old_string matched the file only when ignoring blank lines: the file has %s, where old_string has %s, "+
		"and new_string changes the lines next to them, so where the file's blank lines belong is unclear. "+
		"Copy old_string from the file with its exact blank lines.", where, countText(e.OldBlanks))
}

// Is makes errors.Is(err, ErrBlankLines) hold.
func (e *BlankLinesError) Is(target error) bool { return target == ErrBlankLines }

// IndentError says old_string matched only ignoring whitespace and its
// indentation does not translate to the file's one way: the same
// indentation in old_string stands for different ones in the file. The
// edit is refused rather than guessed.
type IndentError struct {
	NewLine   int   // 1-based line of new_string that could not be placed
	FileLines []int // 1-based file lines indented differently
}

// Error tells the model why the edit was refused and how to fix it.
func (e *IndentError) Error() string {
	lines := make([]string, len(e.FileLines))
	for i, l := range e.FileLines {
		lines[i] = fmt.Sprint(l)
	}
	return fmt.Sprintf("old_string matched the file only when ignoring whitespace, and its indentation does not "+
		"translate to the file's: old_string indents the file's lines %s alike, but the file does not, so line %d of "+
		"new_string cannot be placed safely. Copy old_string from the file with its exact indentation.",
		strings.Join(lines, ", "), e.NewLine)
}

// Is makes errors.Is(err, ErrIndent) hold.
func (e *IndentError) Is(target error) bool { return target == ErrIndent }

// NotFoundError says old_string matched nowhere, even ignoring whitespace,
// and shows the closest lines of the file so the model can fix old_string.
type NotFoundError struct {
	// Closest is the most similar block of the file; zero if none.
	Closest   LineRange
	Diagnosis string
}

// Error is the not-found message followed by the diagnosis.
func (e *NotFoundError) Error() string {
	return "old_string was not found in the file, not even when ignoring whitespace differences.\n" + e.Diagnosis
}

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// AmbiguousError says old_string matched several places while replace_all
// was off; the places let the model pick context that makes it unique.
type AmbiguousError struct {
	Count int
	Fuzzy bool // the places matched only ignoring whitespace
	// BlankLines is set when the places matched only ignoring blank
	// lines as well.
	BlankLines bool
	Places     []LineRange // the first few places, 1-based lines
}

// Error names the places and asks for context or replace_all.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	switch {
	case e.BlankLines:
		fmt.Fprintf(&b, "old_string does not match the file exactly, and ignoring whitespace and blank lines it matches %d places", e.Count)
	case e.Fuzzy:
		fmt.Fprintf(&b, "old_string does not match the file exactly, and ignoring whitespace it matches %d places", e.Count)
	default:
		fmt.Fprintf(&b, "old_string matches %d places in the file", e.Count)
	}
	b.WriteString(" (" + linesText(e.Places))
	if len(e.Places) == maxPlaces && e.Count > maxPlaces {
		b.WriteString(", …")
	}
	b.WriteString("). Include more surrounding lines in old_string so that it matches exactly one place, " +
		"or set replace_all to true to replace every match.")
	return b.String()
}

// Is makes errors.Is(err, ErrAmbiguous) hold.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// EditError names the failing edit of ApplyAll (1-based Index); when it is
// returned no edit was applied.
type EditError struct {
	Index int
	Err   error
}

// Error names the edit and says that nothing was applied.
func (e *EditError) Error() string {
	return fmt.Sprintf("edit %d failed, so no edits were applied: %v", e.Index, e.Err)
}

// Unwrap exposes the edit's own error to errors.Is and errors.As.
func (e *EditError) Unwrap() error { return e.Err }

// String formats the range as a model reads it: "7" or "7-9".
func (r LineRange) String() string {
	if r.Last <= r.First {
		return fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// maxPlaces bounds the places listed in an AmbiguousError.
const maxPlaces = 10

// Apply applies one edit to content. It tries an exact match, then a
// whole-line match ignoring whitespace; see the package documentation.
func Apply(content string, e Edit) (Result, error) {
	res, _, err := apply(content, e)
	return res, err
}

// ApplyAll applies edits in order, each to the result of the previous
// one, for the multiedit tool. It is all or nothing: on failure it returns
// an *EditError naming the first failing edit and no content.
func ApplyAll(content string, edits []Edit) (Result, error) {
	if len(edits) == 0 {
		return Result{}, fmt.Errorf("%w: the list of edits is empty", ErrNoChange)
	}
	total := Result{Content: content}
	var notes []string
	for i, e := range edits {
		res, hunks, err := apply(total.Content, e)
		if err != nil {
			return Result{}, &EditError{Index: i + 1, Err: err}
		}
		total.Content = res.Content
		total.Replacements += res.Replacements
		total.Changed = mergeRanges(append(shiftRanges(total.Changed, hunks), res.Changed...))
		if res.Fuzzy {
			total.Fuzzy = true
			notes = append(notes, fmt.Sprintf("Edit %d: %s", i+1, res.Note))
		}
	}
	if total.Content == content {
		return Result{}, fmt.Errorf("%w: together the edits leave the file exactly as it was", ErrNoChange)
	}
	total.Note = strings.Join(notes, "\n")
	return total, nil
}

// apply is Apply that also reports the hunks, which ApplyAll needs to
// carry earlier changed ranges through later edits.
func apply(content string, e Edit) (Result, []hunk, error) {
	old, repl := cleanArg(e.Old), cleanArg(e.New)
	if old == "" {
		return Result{}, nil, ErrEmptyOld
	}
	if old == repl {
		return Result{}, nil, fmt.Errorf("%w: old_string and new_string are identical; "+
			"put the text you want in new_string", ErrNoChange)
	}
	bom, body := splitBOM(content)
	eol := majorityEOL(body)
	splices, err := exactSplices(body, old, repl, eol, e.ReplaceAll)
	fuzzy := false
	var t *text
	var why forgiven
	if err == nil && splices == nil {
		t = splitLines(body)
		splices, why, err = fuzzySplices(t, old, repl, eol, e.ReplaceAll)
		fuzzy = true
	}
	if err != nil {
		return Result{}, nil, err
	}
	if splices == nil {
		return Result{}, nil, diagnose(t, old)
	}
	out, hunks := applySplices(body, splices)
	if out == body {
		return Result{}, nil, fmt.Errorf("%w: the edit leaves the file exactly as it was "+
			"(new_string equals the matched text once indentation and line endings are adapted)", ErrNoChange)
	}
	res := Result{Content: bom + out, Fuzzy: fuzzy, Replacements: len(splices)}
	for _, h := range hunks {
		res.Changed = append(res.Changed, LineRange{h.newFirst, h.newFirst + h.newCount - 1})
	}
	res.Changed = mergeRanges(res.Changed)
	if fuzzy {
		res.Note = why.note(res.Changed)
	}
	return res, hunks, nil
}

// cleanArg drops what a model cannot mean to match: a leading byte order
// mark and the difference between CRLF and LF.
func cleanArg(s string) string {
	s = strings.TrimPrefix(s, bom)
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// linesText names places for the model: "line 4", "lines 2-3, 7".
func linesText(places []LineRange) string {
	parts := make([]string, 0, len(places))
	for i, p := range places {
		if i == maxPlaces {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, p.String())
	}
	if len(places) == 1 && places[0].Last <= places[0].First {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}
