package client

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"go.lsp.dev/protocol"
)

// Diagnostic is one error, warning or hint, at 1-based code-point
// positions.
type Diagnostic struct {
	Path      string
	Line      int
	Column    int
	EndLine   int
	EndColumn int
	// Severity is "Error", "Warning", "Information" or "Hint"; a server
	// that gives none means Error.
	Severity string
	Source   string
	Code     string
	Message  string
	// Tags are "unnecessary" and/or "deprecated".
	Tags []string
}

// published is the last publishDiagnostics for one file.
type published struct {
	version *int32
	items   []diagnostic
	at      time.Time
}

// Diagnostics returns path's diagnostics computed on its latest text
// (Sync runs first). A server that offers pull diagnostics is asked
// (textDocument/diagnostic); otherwise the client waits until the server
// has published for the latest text and gone quiet for 300 ms (a server
// that does not republish unchanged diagnostics costs 1 s after a change,
// up to 5 s after opening a file).
func (c *Client) Diagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	var out []Diagnostic
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		var items []diagnostic
		var err error
		if s.pulls() {
			items, err = s.pull(ctx, d)
		} else {
			items, err = s.waitPublished(ctx, d)
		}
		if err != nil {
			return err
		}
		out = convertDiagnostics(s.converter(d), d.path, items)
		return nil
	})
	return out, err
}

// AllDiagnostics returns, without waiting, the diagnostics the server has
// reported so far for every file, by path.
func (c *Client) AllDiagnostics(ctx context.Context) (map[string][]Diagnostic, error) {
	out := map[string][]Diagnostic{}
	err := c.do(ctx, "", func(ctx context.Context, s *session, _ docState) error {
		cv := s.converter()
		s.diagMu.Lock()
		raw := make(map[string][]diagnostic, len(s.pushed)+len(s.pulled))
		for path, p := range s.pushed {
			raw[path] = p.items
		}
		for path, r := range s.pulled {
			raw[path] = r.Items
		}
		s.diagMu.Unlock()
		for path, items := range raw {
			if len(items) > 0 {
				out[path] = convertDiagnostics(cv, path, items)
			}
		}
		return nil
	})
	return out, err
}

// Confirming the diagnostics of a server that does not version its
// publications (see SettledDiagnostics).
const (
	// settleQuiet is how long its publications for the file must stay
	// unchanged.
	settleQuiet = 600 * time.Millisecond
	// settleMax bounds the confirmation.
	settleMax = 3 * time.Second
)

// versionsDiagnostics reports the servers known to put the document
// version in publishDiagnostics (or to answer pull diagnostics), whose
// results Diagnostics can tell fresh from stale.
func versionsDiagnostics(server string) bool {
	switch server {
	case "gopls", "pyright", "basedpyright", "clangd", "rust-analyzer":
		return true
	}
	return false
}

// SettledDiagnostics is Diagnostics, confirmed for a server that does not
// version its publications: typescript-language-server publishes per
// kind, unversioned, about 370 ms after a change, so a publication
// computed on the old text can arrive after the change, which the 300 ms
// quiet period of Diagnostics then takes as fresh. Its result is
// confirmed by watching the server's publications for the file until none
// changed them for 600 ms (at most 3 s).
func (c *Client) SettledDiagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	ds, err := c.Diagnostics(ctx, path)
	if err != nil || versionsDiagnostics(c.name) {
		return ds, err
	}
	if s := c.current(); s != nil {
		ds = s.settle(ctx, filepath.Clean(path), ds, settleQuiet, settleMax)
	}
	return ds, nil
}

// settle returns path's reported diagnostics once they have not changed
// for quiet, starting from ds, waiting at most limit: it wakes on every
// publication, never on a poll.
func (s *session) settle(ctx context.Context, path string, ds []Diagnostic, quiet, limit time.Duration) []Diagnostic {
	deadline := time.Now().Add(limit)
	last := time.Now()
	timer := time.NewTimer(quiet)
	defer timer.Stop()
	for {
		s.diagMu.Lock()
		wake := s.diagWake
		items := s.reportedLocked(path)
		s.diagMu.Unlock()
		var cur []Diagnostic
		if len(items) > 0 {
			cur = convertDiagnostics(s.converter(), path, items)
		}
		if !sameDiagnostics(cur, ds) {
			ds, last = cur, time.Now()
		}
		until := last.Add(quiet)
		if until.After(deadline) {
			until = deadline
		}
		wait := time.Until(until)
		if wait <= 0 {
			return ds
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ds
		case <-s.ctx.Done():
			return ds
		case <-wake:
		case <-timer.C:
		}
	}
}

// reportedLocked is what the server last reported for path: its pull
// result, else its publication. diagMu is held.
func (s *session) reportedLocked(path string) []diagnostic {
	if r, ok := s.pulled[path]; ok {
		return r.Items
	}
	if p, ok := s.pushed[path]; ok {
		return p.items
	}
	return nil
}

// sameDiagnostics compares two results by place, severity, message and
// code.
func sameDiagnostics(a, b []Diagnostic) bool {
	return slices.EqualFunc(a, b, func(x, y Diagnostic) bool {
		return x.Line == y.Line && x.Column == y.Column && x.EndLine == y.EndLine && x.EndColumn == y.EndColumn &&
			x.Severity == y.Severity && x.Message == y.Message && x.Code == y.Code
	})
}

// pulls reports whether the server offers textDocument/diagnostic.
func (s *session) pulls() bool {
	if s.c.m.noPull {
		return false
	}
	return provided(s.caps.DiagnosticProvider) || s.registered("textDocument/diagnostic")
}

// pull asks for the document's diagnostics, retrying while the server
// says the document changed under it or asks for a retrigger.
func (s *session) pull(ctx context.Context, d docState) ([]diagnostic, error) {
	var opts struct {
		Identifier string `json:"identifier"`
	}
	_ = json.Unmarshal(s.caps.DiagnosticProvider, &opts)
	s.diagMu.Lock()
	prev := s.pulled[d.path]
	s.diagMu.Unlock()
	for attempt := 0; ; attempt++ {
		params := documentDiagnosticParams{TextDocument: docID{URI: d.uri}, Identifier: opts.Identifier}
		if prev != nil {
			params.PreviousResultID = prev.ResultID
		}
		var rep documentDiagnosticReport
		err := s.request(ctx, s.c.m.timeout, "textDocument/diagnostic", params, &rep)
		var se *ServerError
		if errors.As(err, &se) && (se.Code == codeServerCancelled || se.Code == codeContentModified) && attempt < 5 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if rep.Kind == "unchanged" {
			if prev != nil && prev.ResultID == rep.ResultID {
				return prev.Items, nil
			}
			// Unchanged relative to a result we do not hold: ask afresh.
			prev = nil
			continue
		}
		s.diagMu.Lock()
		s.pulled[d.path] = &rep
		s.diagMu.Unlock()
		return rep.Items, nil
	}
}

// waitPublished returns the published diagnostics once they are fresh
// for the text the server has (d):
//
//   - fresh means published for d's version (servers that version their
//     publications) or published after d was sent (those that do not);
//   - once fresh, wait until no new publication came for settle, since
//     servers often publish in stages (syntax, then types);
//   - a server that does not republish when nothing changed is waited
//     for changeWait after the last change, openWait after an open
//     that it has not published for yet; then the last publication
//     stands.
//
// The whole wait is bounded by the request timeout and ctx.
func (s *session) waitPublished(ctx context.Context, d docState) ([]diagnostic, error) {
	m := s.c.m
	deadline := time.Now().Add(m.timeout)
	// Go 1.23+ timers: Reset discards a pending tick, Stop needs no drain.
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.diagMu.Lock()
		p, wake := s.pushed[d.path], s.diagWake
		s.diagMu.Unlock()
		now := time.Now()
		var wait time.Duration
		fresh := p != nil && (p.version != nil && *p.version >= d.version || p.version == nil && p.at.After(d.sent))
		switch {
		case fresh:
			quiet := now.Sub(p.at)
			if quiet >= m.settle {
				return p.items, nil
			}
			wait = m.settle - quiet
		default:
			window := m.changeWait
			if p == nil || p.at.Before(d.opened) {
				window = m.openWait
			}
			if since := now.Sub(d.sent); since < window {
				wait = window - since
			} else if p != nil {
				return p.items, nil
			} else {
				return nil, nil
			}
		}
		if left := deadline.Sub(now); left <= 0 {
			if p != nil {
				return p.items, nil
			}
			return nil, nil
		} else if wait > left {
			wait = left
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.ctx.Done():
			return nil, kindErrorf(errExited, "%s exited while computing diagnostics (%s); it restarts on next use", s.name, s.proc.ExitStatus())
		case <-wake:
		case <-timer.C:
		}
	}
}

// convertDiagnostics converts one file's diagnostics, sorted by position.
func convertDiagnostics(cv *converter, path string, items []diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(items))
	for _, it := range items {
		d := Diagnostic{Path: path, Source: it.Source, Code: codeString(it.Code), Message: it.Message, Severity: "Error"}
		if it.Severity >= 1 && it.Severity <= 4 {
			d.Severity = protocol.DiagnosticSeverity(it.Severity).String()
		}
		d.Line, d.Column = cv.pos(path, it.Range.Start)
		d.EndLine, d.EndColumn = cv.pos(path, it.Range.End)
		for _, t := range it.Tags {
			switch t {
			case 1:
				d.Tags = append(d.Tags, "unnecessary")
			case 2:
				d.Tags = append(d.Tags, "deprecated")
			}
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}
