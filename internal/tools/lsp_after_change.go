package tools

// Diagnostics after a change: every tool that changes files (edit,
// multiedit, write, lsp_rename, lsp_replace_symbol) ends its result with
// the servers' fresh diagnostics of the changed files.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/langserver/client"
)

const (
	// lspBufferWait bounds how long diagnostics after a change wait for
	// the editor's didChange of a buffer the change was applied to.
	lspBufferWait = time.Second
	// lspEditDiagWait bounds how long an edit waits for diagnostics
	// (starting the server included) before returning without them.
	lspEditDiagWait = 15 * time.Second
)

// lspAfterChange is what the language servers report on the files a tool
// just changed (path → new text), for the tool's result; "" without
// language servers (see afterChange).
func (w *Workspace) lspAfterChange(ctx context.Context, changed map[string]string) string {
	w.mu.RLock()
	fn := w.afterChange
	w.mu.RUnlock()
	if fn == nil || len(changed) == 0 {
		return ""
	}
	return fn(ctx, changed)
}

// setAfterChange makes fn report on every change the workspace's tools
// make (NewLSPEnv).
func (w *Workspace) setAfterChange(fn func(ctx context.Context, changed map[string]string) string) {
	w.mu.Lock()
	w.afterChange = fn
	w.mu.Unlock()
}

// afterChange tells the servers about files the agent just changed
// (path → new text) and returns their fresh errors and warnings for the
// tool result, errors first and capped; "" when no server handles them.
func (e *LSPEnv) afterChange(ctx context.Context, changed map[string]string) string {
	w := e.ws
	m, err := e.Manager()
	if err != nil {
		return ""
	}
	paths := slices.Sorted(maps.Keys(changed))
	for _, p := range paths {
		// A change applied to an editor buffer reaches the overlay with
		// the editor's didChange; wait (briefly) until it has.
		if ov, ok := w.overlay.(OverlayWaiter); ok && e.isOpen(p) {
			wctx, cancel := context.WithTimeout(ctx, lspBufferWait)
			ov.WaitDocument(wctx, p, func(d Document, open bool) bool { return !open || d.Text == changed[p] })
			cancel()
		}
		m.DidWrite(ctx, p)
	}
	type result struct {
		diags []client.Diagnostic
		err   error
		none  bool // no server for the file
	}
	results := make([]result, len(paths))
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := e.clientFor(ctx, p)
				if err != nil {
					results[i] = result{none: client.Unavailable(err), err: err}
					return
				}
				d, err := c.SettledDiagnostics(ctx, p)
				results[i] = result{diags: d, err: err}
			}()
		}
		wg.Wait()
	}()
	t := time.NewTimer(lspEditDiagWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return fmt.Sprintf("\n\n(The language server's diagnostics were not ready after %s; call lsp_diagnostics to see them.)", lspEditDiagWait)
	case <-ctx.Done():
		return ""
	}
	var all []client.Diagnostic
	var checked []string
	var failed []string
	for i, r := range results {
		switch {
		case r.none:
		case r.err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", display(w, paths[i]), r.err))
		default:
			checked = append(checked, display(w, paths[i]))
			for _, d := range r.diags {
				if d.Severity == "Error" || d.Severity == "Warning" {
					all = append(all, d)
				}
			}
		}
	}
	var b strings.Builder
	switch {
	case len(checked) == 0 && len(failed) == 0:
		return ""
	case len(checked) > 0 && len(all) == 0:
		fmt.Fprintf(&b, "\n\nLanguage server: no errors or warnings in %s.", strings.Join(checked, ", "))
	case len(all) > 0:
		sortDiagnostics(all)
		fmt.Fprintf(&b, "\n\nLanguage server diagnostics after the change (%s):", countSeverities(all))
		const limit = 10
		for i, d := range all {
			if i == limit {
				fmt.Fprintf(&b, "\n… %d more: call lsp_diagnostics for all.", len(all)-i)
				break
			}
			b.WriteString("\n" + formatDiagnostic(w, d))
		}
	}
	for _, f := range failed {
		b.WriteString("\n(No diagnostics for " + f + ")")
	}
	return b.String()
}
