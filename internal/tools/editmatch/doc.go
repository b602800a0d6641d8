// Package editmatch decides where a model's find-and-replace edit lands in
// a file and produces the edited text, for the edit and multiedit tools.
//
// Models quote files imperfectly: tabs become spaces, indentation shifts,
// trailing blanks vanish, blank lines are dropped, collapsed or added, CRLF
// becomes LF. Apply therefore looks for an exact match first; only when
// there is none, for a whole-line match that ignores whitespace
// differences; and only when there is none either, for one that also
// ignores blank lines (still whole lines, still unique). new_string is then
// mapped onto the file line by line: lines it keeps from old_string are the
// file's own bytes (indentation, trailing blanks, line break), blank lines
// included; changed and added lines are re-indented to the file's style.
// The Result carries a note saying what was forgiven and asking the model
// to check it.
// When nothing matches, the error shows the closest lines of the file with
// invisible characters made visible, so the model can correct itself.
//
// Whatever happens, bytes outside the matched text are never changed: an
// edit either produces exactly the requested text or returns an error.
//
// Decisions on the questionable cases (each one has a testdata fixture):
//
//   - Exact means byte-exact, except that CRLF and LF are treated as the
//     same line break and a leading U+FEFF in old or new is dropped.
//   - An exact match is taken literally, including a trailing newline in
//     old_string or new_string, with one exception: an empty new_string
//     for whole lines deletes the lines with their line break, so no empty
//     line is left behind (a fuzzy delete does the same).
//   - A fuzzy match covers whole lines: a trailing newline of old_string
//     is optional, pairs with one in new_string, and the matched block
//     keeps its own final line break. new_string's last line is never
//     joined to the next line; a final newline in new_string alone adds an
//     empty line, as it would in an exact match.
//   - Line breaks written by an edit use the file's majority ending (CRLF
//     when most lines end in CRLF); lines outside the match keep theirs.
//   - A byte order mark stays in place and is never part of a match.
//   - A missing final newline stays missing and an existing one stays,
//     unless an exact old_string/new_string pair explicitly changes it.
//   - Mixed tab/space files: each match is re-indented in the style of its
//     own lines, and lines new_string copies unchanged from old_string come
//     back exactly as the file has them.
//   - A line new_string keeps is found by a common subsequence of old and
//     new lines, trailing blanks aside; a line quoted with other blanks
//     inside but indented alike also counts, and keeps the file's bytes if
//     it comes out unchanged. Written lines never carry trailing blanks.
//   - Blank lines: where old_string has as many as the file, they pair one
//     for one. Where it has another number, the file's blank lines stay
//     as a whole where new_string keeps them, next to the line new_string
//     keeps when the other neighbour changes, and go when both neighbours
//     go. Where that place is unclear (a line added exactly there, two
//     equal lines of which either was dropped, blank lines kept among
//     changed lines in another number), the edit fails with a
//     BlankLinesError instead of guessing.
//   - When old_string's indentation maps to the file's in more than one
//     way (one model indentation for differently indented file lines) and
//     new_string needs it, the edit fails with an IndentError instead of
//     guessing.
//   - An ambiguous fuzzy match is an AmbiguousError with the count and the
//     places, never a "not found".
//   - ApplyAll is all or nothing, unlike Crush's partial multiedit: a
//     half-applied list of edits is harder for a model to reason about.
package editmatch
