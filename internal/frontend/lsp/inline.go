package lsp

// Inline completion (LSP 3.18 textDocument/inlineCompletion): ghost text
// from the completion model (completion.model), filled in the middle of
// the editor's unsaved buffer at the cursor. It writes nothing — the
// editor inserts the text when the person accepts it — so nothing passes
// the permission gate; what it sends is bounded to the text around the
// cursor, and nothing of a file the person excluded
// (tools.Workspace.Excluded).
//
// The model also gets the signatures of the symbols used near the
// cursor, from the file's language server when one runs (inlinectx.go).
//
// Stale work is dropped at once: $/cancelRequest ends the request's
// context, which ends the model's HTTP request; a newer request for the
// same document supersedes the older one, which is answered null (no
// late ghost text). Automatic requests wait completion.debounce_ms for
// typing to stop; answers are cached per prefix, so text the person types
// that matches the ghost text needs no new model call.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// The text around the cursor sent to the model, in bytes: enough for the
// function being written and its neighbours, little enough to keep the
// model's prompt (and its time to first token) small.
const (
	maxPrefixBytes = 6000
	maxSuffixBytes = 2000
)

// defaultDebounce is how long an automatic request waits for typing to
// stop when completion.debounce_ms is unset.
const defaultDebounce = 50 * time.Millisecond

// maxCachedCompletions bounds the per-prefix cache of answers.
const maxCachedCompletions = 32

// inlineState is the server's inline completion: the completer made from
// the settings, remade when they change.
type inlineState struct {
	mu    sync.Mutex
	c     *completer
	stale bool // the editor's settings changed since c was made
	gen   int  // the user config file generation c was made with
	// declared: initialize declared inlineCompletionProvider, so with a
	// wrapped server the requests are agentls's (wrapRoute).
	declared bool
}

// isDeclared reports whether initialize declared the capability.
func (st *inlineState) isDeclared() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.declared
}

// markStale makes the next request read the settings again.
func (st *inlineState) markStale() {
	st.mu.Lock()
	st.stale = true
	st.mu.Unlock()
}

// completer answers inline completion requests with one model.
type completer struct {
	filler    fim.Filler // nil: no completion.model
	maxTokens int
	debounce  time.Duration

	mu      sync.Mutex
	running map[string]*running // by document path
	cache   []cached            // most recent last
	lastErr string              // the model's last error shown, so it is shown once
}

// running is a document's request in flight.
type running struct {
	cancel     context.CancelFunc
	superseded bool // cancelled by a newer request, not by the client
}

// cached is one answer: the text after prefix, before suffix.
type cached struct {
	path, prefix, suffix, text string
}

func newCompleter(f fim.Filler, c config.Completion) *completer {
	d := defaultDebounce
	if c.DebounceMS != nil {
		d = time.Duration(*c.DebounceMS) * time.Millisecond
	}
	return &completer{filler: f, maxTokens: c.MaxTokens, debounce: d, running: map[string]*running{}}
}

// inlineCapability says whether initialize declares inlineCompletionProvider:
// only when a completion model is configured where initialize can see it
// (the user file, initializationOptions, a trusted workspace file), since
// a client that sees the capability asks on every pause in typing.
func (s *Server) inlineCapability(editor config.Config) bool {
	set, err := s.env.Settings(editor)
	ok := err == nil && set.Config.Completion.Model != ""
	s.inline.mu.Lock()
	s.inline.declared = ok
	s.inline.mu.Unlock()
	return ok
}

// inlineCompleter is the completer for the current settings, made on
// first use and again after the editor's or the user file's settings
// change.
func (s *Server) inlineCompleter() (*completer, error) {
	_, gen, _ := s.opts.App.UserConfig()
	st := &s.inline
	st.mu.Lock()
	c, fresh := st.c, !st.stale && gen == st.gen
	st.mu.Unlock()
	if c != nil && fresh {
		return c, nil
	}
	s.mu.Lock()
	editor, wantConf := s.editor, s.caps.Workspace.Configuration
	s.mu.Unlock()
	editor = config.Merge(editor, s.clientConfiguration(wantConf))
	set, err := s.env.Settings(editor)
	if err != nil {
		return nil, err
	}
	f, err := s.env.Filler(set)
	if err != nil {
		return nil, err
	}
	c = newCompleter(f, set.Config.Completion)
	st.mu.Lock()
	st.c, st.stale, st.gen = c, false, gen
	st.mu.Unlock()
	if f != nil {
		s.log.Info("inline completion", "model", f.Name())
	}
	return c, nil
}

// inlineCompletion answers textDocument/inlineCompletion. A null result
// means "superseded, keep what you show"; an empty list means nothing to
// offer here.
func (s *Server) inlineCompletion(ctx context.Context, params json.RawMessage) (any, error) {
	var p inlineCompletionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	none := inlineCompletionList{Items: []inlineCompletionItem{}}
	path, err := overlay.URIToPath(string(p.TextDocument.URI))
	if err != nil {
		return none, nil
	}
	c, err := s.inlineCompleter()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls: inline completion: %v", err)
	}
	if c.filler == nil {
		return none, nil
	}
	text, version, open := s.docs.Get(path)
	if !open {
		return none, nil
	}
	if why, excluded := s.ws.Excluded(path); excluded {
		s.log.Debug("no inline completion: the file is excluded", "path", path, "why", why)
		return none, nil
	}
	off := overlay.Offset(text, overlay.Position{Line: p.Position.Line, Character: p.Position.Character})
	prefix, suffix := around(text, off)
	ctx, superseded, release := c.begin(ctx, path)
	defer release()
	uri := string(p.TextDocument.URI)
	answer := func(insert string, next *nextEdit) any {
		list := inlineCompletionList{Items: []inlineCompletionItem{}}
		if insert != "" {
			at := p.Position
			list.Items = append(list.Items, inlineCompletionItem{InsertText: insert, Range: &protocol.Range{Start: at, End: at}, Command: acceptedCommand(uri)})
		}
		if next != nil {
			list.Items = append(list.Items, inlineCompletionItem{InsertText: next.NewText, Range: &next.Range, Command: acceptedCommand(uri)})
		}
		return list
	}
	hit, isHit := c.lookup(path, prefix, suffix)
	var symbols *symbolLookup
	if !isHit {
		// Looked up during the debounce (inlinectx.go).
		first := strings.Count(text[:off-len(prefix)], "\n")
		last := first + strings.Count(prefix, "\n") + strings.Count(suffix, "\n")
		symbols = s.startSymbols(path, version, text, off, first, last)
	}
	next, nextKnown, fetch, edits := s.next.cached(path, text)
	needNext := !nextKnown && (fetch != nil || len(edits) > 0)
	if (!isHit || needNext) && p.Context.TriggerKind != inlineInvoked && c.debounce > 0 {
		t := time.NewTimer(c.debounce)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil // superseded: null; cancelled: handle answers RequestCancelled
		}
	}
	// The next edit (nextedit.go) is asked beside the text at the cursor,
	// as the document's: the text at the cursor never waits for it. An
	// answer with text carries the next edit only when it is ready by
	// then (a later request finds it); an answer without any waits for
	// it. The ask ends when every request waiting for it was cancelled
	// before one answered (nextEditState.let), or the document changes.
	if needNext && fetch == nil {
		fetch, _ = s.fetchNextEdit(c, path, text, false)
	}
	if fetch != nil {
		s.next.hold(fetch)
		// Runs before release cancels ctx.
		defer func() { s.next.let(fetch, ctx.Err() != nil) }()
	}
	nextFor := func(insert string) *nextEdit {
		if fetch == nil {
			return next
		}
		if insert != "" {
			select {
			case <-fetch.done:
			default:
				return nil
			}
		} else {
			select {
			case <-fetch.done:
			case <-ctx.Done():
				return nil
			}
		}
		sug, _, _, _ := s.next.cached(path, text)
		return sug
	}
	if isHit {
		next := nextFor(hit)
		if ctx.Err() != nil {
			return nil, nil
		}
		return answer(hit, next), nil
	}
	near := s.awaitSymbols(ctx, path, symbols)
	ans, err := c.filler.Fill(ctx, fim.Request{Path: s.ws.Rel(path), Prefix: prefix, Suffix: suffix, MaxTokens: c.maxTokens, Context: near})
	if ctx.Err() != nil {
		if !superseded() {
			s.log.Debug("inline completion cancelled", "path", path)
		}
		return nil, nil
	}
	if err != nil {
		s.inlineFailed(c, err)
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls: inline completion from %s: %v", c.filler.Name(), err)
	}
	c.mu.Lock()
	c.lastErr = ""
	c.mu.Unlock()
	ans = tidy(ans, suffix)
	c.store(cached{path: path, prefix: prefix, suffix: suffix, text: ans})
	next = nextFor(ans)
	if ctx.Err() != nil {
		return nil, nil
	}
	return answer(ans, next), nil
}

// inlineFailed shows the model's error once (until it answers again or
// fails differently): the editor may only log the error reply, and a
// person left without ghost text should learn why.
func (s *Server) inlineFailed(c *completer, err error) {
	msg := fmt.Sprintf("agentls: inline completion from %s failed: %v", c.filler.Name(), err)
	c.mu.Lock()
	show := msg != c.lastErr
	c.lastErr = msg
	c.mu.Unlock()
	s.log.Warn("inline completion failed", "model", c.filler.Name(), "error", err)
	if show {
		s.showMessage(s.base, 2, msg)
	}
}

// begin registers a request for path, superseding (cancelling) the one in
// flight. superseded reports whether a newer request ended this one;
// release unregisters it.
func (c *completer) begin(ctx context.Context, path string) (_ context.Context, superseded func() bool, release func()) {
	ctx, cancel := context.WithCancel(ctx)
	r := &running{cancel: cancel}
	c.mu.Lock()
	if old := c.running[path]; old != nil {
		old.superseded = true
		old.cancel()
	}
	c.running[path] = r
	c.mu.Unlock()
	superseded = func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return r.superseded
	}
	release = func() {
		c.mu.Lock()
		if c.running[path] == r {
			delete(c.running, path)
		}
		c.mu.Unlock()
		cancel()
	}
	return ctx, superseded, release
}

// lookup finds a cached answer for the cursor: one made at this prefix,
// or at a shorter one whose answer the person has been typing since (the
// rest of it is the answer now).
func (c *completer) lookup(path, prefix, suffix string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.cache) - 1; i >= 0; i-- {
		e := c.cache[i]
		if e.path != path || e.suffix != suffix || !strings.HasPrefix(prefix, e.prefix) {
			continue
		}
		typed := prefix[len(e.prefix):]
		if strings.HasPrefix(e.text, typed) && (typed == "" || len(typed) < len(e.text)) {
			return e.text[len(typed):], true
		}
	}
	return "", false
}

// store keeps an answer, dropping the oldest beyond the bound.
func (c *completer) store(e cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cache = append(c.cache, e)
	if len(c.cache) > maxCachedCompletions {
		c.cache = append(c.cache[:0], c.cache[len(c.cache)-maxCachedCompletions:]...)
	}
}

// around cuts the bounded prefix and suffix at off: the prefix starts at
// a line start, the suffix ends at a line end, when the bound cuts a
// line.
func around(text string, off int) (prefix, suffix string) {
	return window(text, off, maxPrefixBytes, maxSuffixBytes)
}

// window cuts at most before bytes before off and after bytes after it,
// at line boundaries where the bounds cut a line.
func window(text string, off, before, after int) (prefix, suffix string) {
	start := max(0, off-before)
	if start > 0 {
		if i := strings.IndexByte(text[start:off], '\n'); i >= 0 {
			start += i + 1
		}
		for start < off && !utf8.RuneStart(text[start]) {
			start++
		}
	}
	end := min(len(text), off+after)
	if end < len(text) {
		if i := strings.LastIndexByte(text[off:end], '\n'); i >= 0 {
			end = off + i + 1
		}
		for end > off && end < len(text) && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	return text[start:off], text[off:end]
}

// tidy fits the model's answer to the text after the cursor: no trailing
// blank lines before a suffix that starts a new line, and no repeat of
// the rest of the cursor's line that the model wrote again.
func tidy(ans, suffix string) string {
	rest, _, _ := strings.Cut(suffix, "\n")
	if strings.TrimSpace(rest) == "" {
		return strings.TrimRight(ans, " \t\r\n")
	}
	if r := strings.TrimSpace(rest); strings.HasSuffix(strings.TrimRight(ans, " \t"), r) {
		return strings.TrimSuffix(strings.TrimRight(ans, " \t"), r)
	}
	return ans
}
