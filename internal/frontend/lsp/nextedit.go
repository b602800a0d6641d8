package lsp

// Next-edit suggestions: after the person edits a document (typing, or
// accepting an inline completion), the change that likely comes next
// elsewhere in it — a renamed parameter's other uses — from the
// completion model (fim.NextEdit). It is offered two ways: as an inline
// completion item whose range is that change (LSP 3.18's
// InlineCompletionItem.range; Neovim 0.12 shows and accepts it where it
// is), and as a code action with the edit, for editors whose inline
// completion replaces only at the cursor (VS Code) or that have none.
// Like inline completion it writes nothing — the editor applies the
// edit when the person accepts it — so nothing passes the permission
// gate, and nothing of an excluded file is sent.
//
// What is sent: the recent edits of the document (maxRecentEdits, each
// clipped to maxEditBytes) and the unsaved buffer around the latest
// (maxEditWindow). A suggestion is kept for the text it was made for;
// the next change drops it. An accepted item or action runs
// agentls.inlineAccepted, which asks for the following edit at once
// instead of at the next request.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// CommandInlineAccepted tells agentls that the person accepted one of
// its inline completion items or next edits (the item's, or the code
// action's, command): agentls asks the model for the following edit
// then. Its argument is InlineAcceptedArgs.
const CommandInlineAccepted = "agentls.inlineAccepted"

// InlineAcceptedArgs is the argument of agentls.inlineAccepted.
type InlineAcceptedArgs struct {
	URI string `json:"uri"`
}

// Bounds of what a next edit is predicted from.
const (
	maxRecentEdits = 5
	maxEditBytes   = 1000
	// maxEditWindow is the buffer around the latest edit, half before.
	maxEditWindow = 8000
	// maxTrackedText: no edits are kept for a larger buffer (no diff of
	// it on every keystroke).
	maxTrackedText = 1 << 20
)

// nextEditState is every open document's recent edits and suggestion.
type nextEditState struct {
	mu   sync.Mutex
	docs map[string]*editDoc // by path
}

// editDoc is one document's.
type editDoc struct {
	edits []fim.Edit // oldest first
	// text is the text the suggestion (sug, nil: none) was made for,
	// when known.
	text  string
	known bool
	sug   *nextEdit
	// fetch is the suggestion being asked for by agentls.inlineAccepted.
	fetch *prefetch
}

// prefetch is a suggestion being asked for ahead of a request.
type prefetch struct {
	text   string
	done   chan struct{}
	cancel context.CancelFunc
	// holders counts the inline requests waiting for it or answered
	// without it; kept says the document keeps it whatever they do (asked
	// on accept, or a request answered while it ran). Both under
	// nextEditState.mu.
	holders int
	kept    bool
	doc     *editDoc // whose ask it is
}

// hold counts a request as one of f's.
func (st *nextEditState) hold(f *prefetch) {
	st.mu.Lock()
	f.holders++
	st.mu.Unlock()
}

// let ends a request's hold on f: a request that answered hands f to the
// document; when the last holder left cancelled (superseded, or
// $/cancelRequest) and nothing kept it, the model's request ends.
func (st *nextEditState) let(f *prefetch, cancelled bool) {
	st.mu.Lock()
	f.holders--
	if !cancelled {
		f.kept = true
	}
	stop := f.holders == 0 && !f.kept
	if stop && f.doc.fetch == f {
		f.doc.fetch = nil // the next request asks anew
	}
	st.mu.Unlock()
	if stop {
		f.cancel()
	}
}

// nextEdit is a suggestion located in the document: Range becomes
// NewText.
type nextEdit struct {
	Range   protocol.Range
	NewText string
	// Title says what it changes, for the code action.
	Title string
}

// doc returns path's state, made on first use. st.mu is held.
func (st *nextEditState) doc(path string) *editDoc {
	if st.docs == nil {
		st.docs = map[string]*editDoc{}
	}
	d := st.docs[path]
	if d == nil {
		d = &editDoc{}
		st.docs[path] = d
	}
	return d
}

// record notes the change of path from before to after: one hunk of
// whole lines, merged into the latest edit when it changes the lines
// that edit made (typing a word is one edit), dropped when it undoes it.
// The suggestion made for before is stale now.
func (st *nextEditState) record(path, before, after string) {
	if before == after || len(before) > maxTrackedText || len(after) > maxTrackedText {
		return
	}
	e := hunk(before, after)
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.doc(path)
	d.known, d.sug = false, nil
	if d.fetch != nil && d.fetch.text != after {
		d.fetch.cancel()
		d.fetch = nil
	}
	if n := len(d.edits); n > 0 {
		if m, ok := merge(d.edits[n-1], e); ok {
			if m.Old == m.New {
				d.edits = d.edits[:n-1]
			} else {
				d.edits[n-1] = m
			}
			return
		}
	}
	d.edits = append(d.edits, e)
	if len(d.edits) > maxRecentEdits {
		d.edits = append(d.edits[:0], d.edits[len(d.edits)-maxRecentEdits:]...)
	}
}

// forget drops a closed document's state.
func (st *nextEditState) forget(path string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if d := st.docs[path]; d != nil && d.fetch != nil {
		d.fetch.cancel()
	}
	delete(st.docs, path)
}

// hunk is the change from before to after as whole lines: the lines of
// before that differ, from the first to the last, and what replaced them.
func hunk(before, after string) fim.Edit {
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	q := 0
	for q < len(before)-p && q < len(after)-p && before[len(before)-1-q] == after[len(after)-1-q] {
		q++
	}
	start := strings.LastIndexByte(before[:p], '\n') + 1 // a line start of both
	end := len(before) - q
	// Whole lines: the change ends at a line start on both sides (lines
	// added or removed), or at the end of its line.
	atLineStart := func(t string, i int) bool { return i == 0 || t[i-1] == '\n' }
	if end < len(before) && !(atLineStart(before, end) && atLineStart(after, len(after)-q)) {
		if i := strings.IndexByte(before[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(before)
		}
	}
	newEnd := len(after) - (len(before) - end)
	return fim.Edit{Line: strings.Count(before[:start], "\n"), Old: before[start:end], New: after[start:newEnd]}
}

// splitLines splits whole-line text keeping each line's end.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// merge folds e into last when e changes only lines last made.
func merge(last, e fim.Edit) (fim.Edit, bool) {
	made := splitLines(last.New)
	old := splitLines(e.Old)
	from := e.Line - last.Line
	if from < 0 || from+len(old) > len(made) {
		return fim.Edit{}, false
	}
	out := strings.Join(made[:from], "") + e.New + strings.Join(made[from+len(old):], "")
	return fim.Edit{Line: last.Line, Old: last.Old, New: out}, true
}

// clipEdit bounds one edit for the prompt.
func clipEdit(e fim.Edit) fim.Edit {
	clip := func(s string) string {
		if len(s) <= maxEditBytes {
			return s
		}
		s = s[:maxEditBytes]
		for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
		if i := strings.LastIndexByte(s, '\n'); i > 0 {
			s = s[:i+1]
		}
		return s + "…\n"
	}
	return fim.Edit{Line: e.Line, Old: clip(e.Old), New: clip(e.New)}
}

// cached returns the suggestion known for text, or the prefetch under
// way for it, or the recent edits when the latest calls for a next edit
// (changesText).
func (st *nextEditState) cached(path, text string) (sug *nextEdit, known bool, fetch *prefetch, edits []fim.Edit) {
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.docs[path]
	if d == nil {
		return nil, false, nil, nil
	}
	if d.known && d.text == text {
		return d.sug, true, nil, nil
	}
	if d.fetch != nil && d.fetch.text == text {
		return nil, false, d.fetch, nil
	}
	if n := len(d.edits); n == 0 || !changesText(d.edits[n-1]) {
		return nil, false, nil, nil
	}
	return nil, false, nil, append([]fim.Edit(nil), d.edits...)
}

// changesText says whether an edit changed text that was there — a
// renamed name, a changed signature — rather than only adding to a line
// or cutting its end, or adding lines: what calls for edits elsewhere.
// Plain typing asks for no next edit (only an accepted item does,
// prefetchNextEdit), so the model is not asked twice per pause.
func changesText(e fim.Edit) bool {
	old := strings.TrimRight(e.Old, " \t\r\n")
	now := strings.TrimRight(e.New, " \t\r\n")
	return strings.TrimSpace(old) != "" && !strings.HasPrefix(now, old) && !strings.HasPrefix(old, now)
}

// store keeps the suggestion made for text, unless the text changed.
func (st *nextEditState) store(path, text, now string, sug *nextEdit) {
	if text != now {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if d := st.docs[path]; d != nil {
		d.text, d.known, d.sug = text, true, sug
	}
}

// nextEditAsk is the suggestion for path's text when it is known, else
// the document's ask for it (fetchNextEdit, started now with keep when
// the latest edit calls for one); nil and nil: none.
func (s *Server) nextEditAsk(c *completer, path, text string, keep bool) (*nextEdit, *prefetch) {
	sug, known, fetch, edits := s.next.cached(path, text)
	if known || fetch != nil {
		return sug, fetch
	}
	if len(edits) == 0 {
		return nil, nil // no edit that calls for another (changesText)
	}
	if fetch, _ = s.fetchNextEdit(c, path, text, keep); fetch == nil {
		sug, _, _, _ = s.next.cached(path, text)
	}
	return sug, fetch
}

// nextEditFor is the suggestion for path's text, the document's ask
// waited for with ctx, so that an inline request for the same text shares
// the one model request. Nil: none (no recent edits, an excluded file, no
// completion model, or the model saw none).
func (s *Server) nextEditFor(ctx context.Context, c *completer, path, text string) (*nextEdit, error) {
	if c.filler == nil {
		return nil, nil
	}
	sug, fetch := s.nextEditAsk(c, path, text, false)
	if fetch == nil {
		return sug, nil
	}
	s.next.hold(fetch)
	select {
	case <-fetch.done:
		s.next.let(fetch, false)
		sug, _, _, _ = s.next.cached(path, text)
		return sug, nil
	case <-ctx.Done():
		s.next.let(fetch, true)
		return nil, ctx.Err()
	}
}

// nextEditReady is the suggestion for path's text when it is known now;
// otherwise it has it asked for in the background (the document's ask,
// kept as after an accepted item) and is nil: the caller never waits on
// the model.
func (s *Server) nextEditReady(c *completer, path, text string) *nextEdit {
	if c.filler == nil {
		return nil
	}
	sug, fetch := s.nextEditAsk(c, path, text, true)
	if fetch == nil {
		return sug
	}
	select {
	case <-fetch.done:
		sug, _, _, _ = s.next.cached(path, text)
		return sug
	default:
		return nil
	}
}

// askNextEdit asks the model for the edit that follows edits in path's
// text, and keeps the answer for text.
func (s *Server) askNextEdit(ctx context.Context, c *completer, path, text string, edits []fim.Edit) (*nextEdit, error) {
	if len(edits) == 0 {
		return nil, nil
	}
	if why, excluded := s.ws.Excluded(path); excluded {
		s.log.Debug("no next edit: the file is excluded", "path", path, "why", why)
		return nil, nil
	}
	for i, e := range edits {
		edits[i] = clipEdit(e)
	}
	last := edits[len(edits)-1]
	off := lineOffset(text, last.Line)
	before, after := window(text, off, maxEditWindow/2, maxEditWindow/2)
	ans, err := fim.NextEdit(ctx, c.filler, fim.EditRequest{Path: s.ws.Rel(path), Edits: edits, Text: before + after})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	avoid := [2]int{last.Line, last.Line + max(1, len(splitLines(last.New)))}
	ne := locate(text, ans, avoid)
	now, _, _ := s.docs.Get(path)
	s.next.store(path, text, now, ne)
	return ne, nil
}

// prefetchNextEdit asks for the document's next edit now (the person
// accepted an item), so the next request finds it ready. A change of the
// document ends it.
func (s *Server) prefetchNextEdit(path string) {
	c, err := s.inlineCompleter()
	if err != nil || c.filler == nil {
		return
	}
	if text, _, open := s.docs.Get(path); open {
		s.fetchNextEdit(c, path, text, true)
	}
}

// fetchNextEdit has the model asked for the edit that follows path's
// recent edits in text, in the background: the document's, not a
// request's, so a change of the document ends it (record) and any request
// for the same text may wait for it. It returns the ask under way for
// text — started by this call (started) or before — or nil when the
// suggestion is known already or there are no recent edits.
func (s *Server) fetchNextEdit(c *completer, path, text string, keep bool) (f *prefetch, started bool) {
	s.next.mu.Lock()
	d := s.next.doc(path)
	switch {
	case d.fetch != nil:
		f = d.fetch
		if f.text != text {
			s.next.mu.Unlock()
			return nil, false
		}
		f.kept = f.kept || keep
		s.next.mu.Unlock()
		return f, false
	case (d.known && d.text == text) || len(d.edits) == 0:
		s.next.mu.Unlock()
		return nil, false
	}
	ctx, cancel := context.WithCancel(s.base)
	f = &prefetch{text: text, done: make(chan struct{}), cancel: cancel, kept: keep, doc: d}
	d.fetch = f
	edits := append([]fim.Edit(nil), d.edits...)
	s.next.mu.Unlock()
	go func() {
		defer close(f.done)
		defer cancel()
		if _, err := s.askNextEdit(ctx, c, path, text, edits); err != nil && ctx.Err() == nil {
			s.log.Warn("next edit failed", "model", c.filler.Name(), "error", err)
		}
		s.next.mu.Lock()
		if d.fetch == f {
			d.fetch = nil
		}
		s.next.mu.Unlock()
	}()
	return f, true
}

// inlineAccepted runs agentls.inlineAccepted.
func (s *Server) inlineAccepted(a InlineAcceptedArgs) (any, error) {
	if path, err := overlay.URIToPath(a.URI); err == nil {
		s.prefetchNextEdit(path)
	}
	return nil, nil
}

// acceptedCommand is the command an item or action carries.
func acceptedCommand(uri string) *protocol.Command {
	return &protocol.Command{Title: "accepted", Command: CommandInlineAccepted, Arguments: []any{InlineAcceptedArgs{URI: uri}}}
}

// locate finds the suggestion's search text in text — the occurrence
// nearest the latest edit, outside its lines [avoid[0], avoid[1]) — and
// narrows it to what changes. Nil when it is not there.
func locate(text string, sg fim.Suggestion, avoid [2]int) *nextEdit {
	if sg.Search == "" {
		return nil
	}
	best, bestDist := -1, 0
	for from := 0; ; {
		i := strings.Index(text[from:], sg.Search)
		if i < 0 {
			break
		}
		at := from + i
		from = at + 1
		first := strings.Count(text[:at], "\n")
		last := first + strings.Count(sg.Search, "\n")
		if last >= avoid[0] && first < avoid[1] {
			continue
		}
		dist := avoid[0] - last
		if first >= avoid[1] {
			dist = first - avoid[1]
		}
		if best < 0 || dist < bestDist {
			best, bestDist = at, dist
		}
	}
	if best < 0 {
		return nil
	}
	old, repl := sg.Search, sg.Replace
	p := 0
	for p < len(old) && p < len(repl) && old[p] == repl[p] {
		p++
	}
	for p > 0 && ((p < len(old) && !utf8.RuneStart(old[p])) || (p < len(repl) && !utf8.RuneStart(repl[p]))) {
		p--
	}
	q := 0
	for q < len(old)-p && q < len(repl)-p && old[len(old)-1-q] == repl[len(repl)-1-q] {
		q++
	}
	for q > 0 && !utf8.RuneStart(old[len(old)-q]) {
		q--
	}
	start, end := best+p, best+len(old)-q
	return &nextEdit{
		Range:   protocol.Range{Start: positionAt(text, start), End: positionAt(text, end)},
		NewText: repl[p : len(repl)-q],
		Title:   fmt.Sprintf("agentls: next edit: line %d: %s → %s", strings.Count(text[:best], "\n")+1, firstLine(strings.TrimSpace(old), 40), firstLine(strings.TrimSpace(repl), 40)),
	}
}

// positionAt is the LSP position (UTF-16 column) of byte offset off.
func positionAt(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return protocol.Position{Line: uint32(line), Character: uint32(overlay.UTF16Len(text[start:off]))}
}

// lineOffset is the byte offset of a zero-based line's start (the end
// of text past its last line).
func lineOffset(text string, line int) int {
	off := 0
	for ; line > 0; line-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}
