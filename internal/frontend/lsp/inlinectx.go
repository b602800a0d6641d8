package lsp

// The symbols near the cursor that inline completion sends beside the
// buffer: for the identifiers in the lines around the cursor, the
// signature the file's language server shows on hover, when the
// identifier is declared outside the text sent — in another file of the
// package, or far off in this one. A model that sees `Add(` then knows
// Add's parameters.
//
// Only a server already running for the file's language is asked (the
// editor's documents start it; under serve --wrap it is the shared
// server): a completion never waits for a server to start. The lookup
// starts as the request arrives, so it runs during the debounce, and the
// fill waits for it at most symbolsWait beyond that; a lookup not ready by
// then goes on (within symbolsBudget) for the next request, and the
// document's last finished one serves meanwhile. Lookups are kept per
// document version and cursor line. Nothing comes from a file
// tools.Workspace.Excluded names, checked again whenever a lookup is used.

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/langserver/client"
)

const (
	// symbolLinesBefore and symbolLinesAfter are the lines around the
	// cursor whose identifiers are looked up.
	symbolLinesBefore = 8
	symbolLinesAfter  = 2
	// maxSymbolIdents bounds the identifiers looked up for one request
	// (a definition request each, and a hover for those declared away).
	maxSymbolIdents = 12
	// maxSymbols and maxSymbolBytes bound the signatures sent: how many,
	// and the bytes of one; maxContextBytes bounds them all.
	maxSymbols      = 8
	maxSymbolBytes  = 400
	maxContextBytes = 1500
	// symbolsWait is how long the fill waits for the lookup beyond the
	// debounce: the ghost text is late by at most this much.
	symbolsWait = 40 * time.Millisecond
	// symbolsBudget bounds a lookup: a server slower than this adds
	// nothing.
	symbolsBudget = time.Second
)

// symbolSource is what the lookup asks of a language server
// (*client.Client).
type symbolSource interface {
	Definition(ctx context.Context, path string, line, col int) ([]client.Location, error)
	Hover(ctx context.Context, path string, line, col int) (string, error)
}

// symbolLookups are the lookups of the documents, the latest started and
// the latest finished of each.
type symbolLookups struct {
	mu   sync.Mutex
	docs map[string]*symbolDoc
}

type symbolDoc struct {
	cur   *symbolLookup // the latest started
	ready *symbolLookup // the latest finished
}

// symbolLookup is one document version's lookup at one cursor line.
type symbolLookup struct {
	version int32
	line    int // the cursor's, 0-based
	cancel  context.CancelFunc
	done    chan struct{}
	found   []foundSymbol // set before done closes
}

// foundSymbol is one signature and the file it comes from.
type foundSymbol struct {
	path, rel, sig string
}

// startSymbols starts the lookup for the cursor at off in a document
// version, or returns the one started for it already. The lines from
// first to last (0-based) are the text sent: what is declared there the
// model sees anyway.
func (s *Server) startSymbols(path string, version int32, text string, off, first, last int) *symbolLookup {
	line := strings.Count(text[:off], "\n")
	st := &s.symbols
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.docs == nil {
		st.docs = map[string]*symbolDoc{}
	}
	d := st.docs[path]
	if d == nil {
		d = &symbolDoc{}
		st.docs[path] = d
	}
	if c := d.cur; c != nil && c.version == version && c.line == line {
		return c
	}
	if d.cur != nil {
		d.cur.cancel() // a keystroke made it stale
	}
	ctx, cancel := context.WithTimeout(s.base, symbolsBudget)
	l := &symbolLookup{version: version, line: line, cancel: cancel, done: make(chan struct{})}
	d.cur = l
	go func() {
		defer cancel()
		began := time.Now()
		found := s.lookUpSymbols(ctx, path, text, off, first, last)
		s.log.Debug("symbols near the cursor", "path", path, "version", version, "found", len(found), "took", time.Since(began), "ended", ctx.Err())
		st.mu.Lock()
		l.found = found
		if ctx.Err() == nil || len(found) > 0 {
			if d.ready == nil || d.ready.version <= l.version {
				d.ready = l
			}
		}
		st.mu.Unlock()
		close(l.done)
	}()
	return l
}

// forgetSymbols drops a closed document's lookups.
func (s *Server) forgetSymbols(path string) {
	st := &s.symbols
	st.mu.Lock()
	defer st.mu.Unlock()
	if d := st.docs[path]; d != nil && d.cur != nil {
		d.cur.cancel()
	}
	delete(st.docs, path)
}

// awaitSymbols is the context for the fill: l's signatures when they are
// ready within symbolsWait (or ctx's end), else those of the document's
// last finished lookup near the same line; none of a file excluded now.
func (s *Server) awaitSymbols(ctx context.Context, path string, l *symbolLookup) string {
	t := time.NewTimer(symbolsWait)
	defer t.Stop()
	use := l
	select {
	case <-l.done:
	case <-ctx.Done():
		return ""
	case <-t.C:
		s.symbols.mu.Lock()
		use = nil
		if d := s.symbols.docs[path]; d != nil && d.ready != nil && abs(d.ready.line-l.line) <= symbolLinesBefore {
			use = d.ready
		}
		s.symbols.mu.Unlock()
		if use == nil {
			return ""
		}
	}
	s.symbols.mu.Lock()
	found := use.found
	s.symbols.mu.Unlock()
	var b strings.Builder
	for _, f := range found {
		if _, excluded := s.ws.Excluded(f.path); excluded {
			continue
		}
		entry := f.rel + ": " + f.sig + "\n"
		if b.Len()+len(entry) > maxContextBytes {
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// lookUpSymbols asks the file's running language server where the
// identifiers near the cursor are declared, and for the signatures of
// those declared outside the lines sent, in files that may be sent.
func (s *Server) lookUpSymbols(ctx context.Context, path, text string, off, first, last int) []foundSymbol {
	src, ok := s.symbolSource(path)
	if !ok {
		return nil
	}
	// A server that dies during the lookup is not restarted for it.
	ctx = client.RunningOnly(ctx)
	idents := identsNear(text, off, fim.LineComment(path))
	found := make([]foundSymbol, len(idents))
	var wg sync.WaitGroup
	for i, id := range idents {
		wg.Go(func() {
			locs, err := src.Definition(ctx, path, id.line+1, id.col+1)
			if err != nil || len(locs) == 0 {
				return
			}
			loc := locs[0]
			if loc.Path == path && loc.Line-1 >= first && loc.Line-1 <= last {
				return // in the text sent
			}
			if _, excluded := s.ws.Excluded(loc.Path); excluded {
				return
			}
			md, err := src.Hover(ctx, path, id.line+1, id.col+1)
			if err != nil {
				return
			}
			// A module (pyright: "(module) helpers") declares nothing
			// the model could use.
			if sig := signature(md); sig != "" && !strings.HasPrefix(sig, "(module) ") {
				found[i] = foundSymbol{path: loc.Path, rel: s.ws.Rel(loc.Path), sig: sig}
			}
		})
	}
	wg.Wait()
	out := make([]foundSymbol, 0, maxSymbols)
	for _, f := range found {
		if f.sig == "" || slices.ContainsFunc(out, func(o foundSymbol) bool { return o.sig == f.sig }) {
			continue
		}
		if out = append(out, f); len(out) == maxSymbols {
			break
		}
	}
	return out
}

// symbolSource is the language server running for path, if any.
func (s *Server) symbolSource(path string) (symbolSource, bool) {
	if s.lsp == nil {
		return nil, false
	}
	c, ok := s.lsp.Running(path)
	if !ok {
		return nil, false
	}
	return c, true
}

// ident is an identifier at a 0-based line and code-point column.
type ident struct {
	name      string
	line, col int
}

// commonWords are keywords and built-in names of common languages:
// looking them up would only crowd out the identifiers worth it.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if import
		interface map package range return select struct switch type var nil true false iota
		bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
		uint uint8 uint16 uint32 uint64 uintptr any append cap clear close copy delete len make max min new panic print println recover
		and as assert async await class def del elif except finally from global in is lambda not or pass raise try while with yield None True False self
		catch do export extends function instanceof let of static super this throw typeof void null undefined
		fn impl mut pub use mod crate enum trait where match loop Self public private protected`) {
		commonWords[w] = true
	}
}

// identsNear lists the identifiers of the lines around the cursor at off,
// nearest first — the cursor's line, then the lines above it, then those
// below — each name once, without the word being typed at the cursor,
// keywords or single letters, nor what is on comment lines (comment is
// the language's line comment, "" when unknown).
func identsNear(text string, off int, comment string) []ident {
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	cur := strings.Count(text[:lineStart], "\n")
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	var out []ident
	add := func(line int, ids []ident) {
		for _, id := range ids {
			if len(out) == maxSymbolIdents {
				return
			}
			if seen[id.name] || commonWords[id.name] || utf8.RuneCountInString(id.name) < 2 {
				continue
			}
			seen[id.name] = true
			id.line = line
			out = append(out, id)
		}
	}
	// The cursor's line: before the cursor backwards, then after it.
	cursorCol := utf8.RuneCountInString(text[lineStart:off])
	var before, after []ident
	for _, id := range lineIdents(lines[cur], comment) {
		end := id.col + utf8.RuneCountInString(id.name)
		switch {
		case end < cursorCol:
			before = append(before, id)
		case id.col > cursorCol:
			after = append(after, id)
		} // else: the word being typed
	}
	slices.Reverse(before)
	add(cur, append(before, after...))
	for l := cur - 1; l >= max(0, cur-symbolLinesBefore); l-- {
		ids := lineIdents(lines[l], comment)
		slices.Reverse(ids)
		add(l, ids)
	}
	for l := cur + 1; l < min(len(lines), cur+symbolLinesAfter+1); l++ {
		add(l, lineIdents(lines[l], comment))
	}
	return out
}

// lineIdents lists a line's identifiers with their code-point columns;
// none on a comment line.
func lineIdents(line, comment string) []ident {
	if comment != "" && strings.HasPrefix(strings.TrimSpace(line), comment) {
		return nil
	}
	var out []ident
	col, start, startCol := 0, -1, 0
	for i, r := range line + " " {
		word := r == '_' || unicode.IsLetter(r) || start >= 0 && unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start, startCol = i, col
		case !word && start >= 0:
			out = append(out, ident{name: line[start:i], col: startCol})
			start = -1
		}
		col++
	}
	return out
}

// signature is the declaration a hover shows: its first code block, else
// its first paragraph, at most maxSymbolBytes in whole lines.
func signature(md string) string {
	sig := ""
	if i := strings.Index(md, "```"); i >= 0 {
		rest := md[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
			if j := strings.Index(rest, "```"); j >= 0 {
				sig = rest[:j]
			}
		}
	}
	if sig == "" {
		sig, _, _ = strings.Cut(strings.TrimSpace(md), "\n\n")
	}
	sig = joinParams(strings.TrimSpace(sig))
	if len(sig) <= maxSymbolBytes {
		return sig
	}
	sig = sig[:maxSymbolBytes]
	if i := strings.LastIndexByte(sig, '\n'); i > 0 {
		return sig[:i]
	}
	return ""
}

// joinParams puts a parameter list a server laid out one parameter a line
// (pyright: "def scale(\n    value: int,\n    factor: int\n) -> int") back
// on one line: a line that ends with "(" or "," is joined to the next.
// Other layouts (a struct's fields) stay as they are.
func joinParams(sig string) string {
	lines := strings.Split(sig, "\n")
	if len(lines) == 1 {
		return sig
	}
	var b strings.Builder
	open := false // inside a parameter list being joined
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if i > 0 {
			prev := strings.TrimRight(lines[i-1], " \t")
			switch {
			case strings.HasSuffix(prev, "("):
				open = true
			case open && strings.HasPrefix(trimmed, ")"):
				open = false
			case open && strings.HasSuffix(prev, ","):
				b.WriteByte(' ')
			default:
				open = false
				b.WriteByte('\n')
				trimmed = strings.TrimRight(l, " \t")
			}
		} else {
			trimmed = strings.TrimRight(l, " \t")
		}
		b.WriteString(trimmed)
	}
	return b.String()
}
