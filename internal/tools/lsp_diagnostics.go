package tools

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_diagnostics.md
var lspDiagnosticsDescription string

type lspDiagnosticsInput struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"File to check: relative to the first workspace folder, or absolute. Default: a summary of the workspace."`
}

var lspDiagnosticsSchema = schemaFor[lspDiagnosticsInput]()

const (
	lspDiagLimit        = 100
	lspSummaryFiles     = 30
	lspSummaryErrors    = 20
	lspSummaryOpenFiles = 20
)

// LSPDiagnosticsTool reports the language servers' errors and warnings.
type LSPDiagnosticsTool struct{ env *LSPEnv }

// NewLSPDiagnosticsTool returns lsp_diagnostics over env.
func NewLSPDiagnosticsTool(env *LSPEnv) *LSPDiagnosticsTool { return &LSPDiagnosticsTool{env: env} }

// Spec describes lsp_diagnostics: capability lsp.diagnostics, read-only.
func (t *LSPDiagnosticsTool) Spec() Spec {
	return readSpec("lsp_diagnostics", lspDiagnosticsDescription, lspDiagnosticsSchema(), "lsp.diagnostics")
}

func (t *LSPDiagnosticsTool) parse(call Call) (lspDiagnosticsInput, string, error) {
	var in lspDiagnosticsInput
	if err := lspDiagnosticsSchema().decode(call, "lsp_diagnostics", &in); err != nil {
		return in, "", err
	}
	abs, err := t.env.pathArg(in.FilePath)
	return in, abs, errWith("lsp_diagnostics", err)
}

// Describe names the file (or the first root) for the gate.
func (t *LSPDiagnosticsTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	summary := "agentls wants to check " + in.FilePath + " for errors"
	if in.FilePath == "" {
		summary = "agentls wants to list the workspace's errors and warnings"
	}
	return readRequest(t.Spec(), t.env.ws, abs, summary), nil
}

// Run checks one file, or summarizes the workspace.
func (t *LSPDiagnosticsTool) Run(ctx context.Context, call Call) (Result, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if in.FilePath == "" {
		return t.summary(ctx)
	}
	if !t.env.ws.Inside(abs) {
		return Errorf("%s", outsideMessage(t.env.ws, abs)), nil
	}
	c, err := t.env.clientFor(ctx, abs)
	if err != nil {
		return Errorf("lsp_diagnostics: %v", err), nil
	}
	diags, err := c.SettledDiagnostics(ctx, abs)
	if err != nil {
		return Errorf("lsp_diagnostics: %v", err), nil
	}
	shown := display(t.env.ws, abs)
	if len(diags) == 0 {
		return Result{Content: fmt.Sprintf("%s reports no errors or warnings in %s.", c.Name(), shown)}, nil
	}
	sortDiagnostics(diags)
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (%s):\n", countSeverities(diags), shown, c.Name())
	for i, d := range diags {
		if i == lspDiagLimit {
			fmt.Fprintf(&b, "… %d more not shown.\n", len(diags)-i)
			break
		}
		b.WriteString(formatDiagnostic(t.env.ws, d) + "\n")
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

// summary merges what every server reported so far with fresh results
// for the documents open in the editor.
func (t *LSPDiagnosticsTool) summary(ctx context.Context) (Result, error) {
	clients, err := t.env.discoverClients(ctx)
	if err != nil {
		return Errorf("lsp_diagnostics: %v", err), nil
	}
	byPath := map[string][]client.Diagnostic{}
	var mu sync.Mutex
	var names []string
	for _, c := range clients {
		all, err := c.AllDiagnostics(ctx)
		if err != nil {
			continue
		}
		names = append(names, c.Name())
		for p, ds := range all {
			if t.env.ws.Inside(p) {
				byPath[p] = ds
			}
		}
	}
	open := t.env.editor.Open()
	if len(open) > lspSummaryOpenFiles {
		open = open[:lspSummaryOpenFiles]
	}
	var wg sync.WaitGroup
	for _, p := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := t.env.clientFor(ctx, p)
			if err != nil {
				return
			}
			if ds, err := c.SettledDiagnostics(ctx, p); err == nil {
				mu.Lock()
				byPath[p] = ds
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(names) == 0 {
		return Result{Content: "No language server is running for this workspace, and none handles its files. Give file_path to check one file."}, nil
	}
	var all []client.Diagnostic
	for p, ds := range byPath {
		if len(ds) == 0 {
			delete(byPath, p)
			continue
		}
		all = append(all, ds...)
	}
	scope := "(" + strings.Join(slices.Compact(slices.Sorted(slices.Values(names))), ", ") + "; files the servers have analyzed: open files and, for some servers, the whole project)"
	if len(all) == 0 {
		return Result{Content: "No errors or warnings reported " + scope + "."}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s %s.\n", countSeverities(all), countOf(len(byPath), "file", "files"), scope)
	paths := slices.Sorted(maps.Keys(byPath))
	slices.SortStableFunc(paths, func(a, b string) int { return errCount(byPath[b]) - errCount(byPath[a]) })
	b.WriteString("\nBy file:\n")
	for i, p := range paths {
		if i == lspSummaryFiles {
			fmt.Fprintf(&b, "… %d more files\n", len(paths)-i)
			break
		}
		fmt.Fprintf(&b, "%s: %s\n", display(t.env.ws, p), countSeverities(byPath[p]))
	}
	sortDiagnostics(all)
	if sevRank(all[0].Severity) <= 1 {
		b.WriteString("\nFirst problems:\n")
	}
	for i, d := range all {
		if i == lspSummaryErrors || sevRank(d.Severity) > 1 {
			break
		}
		b.WriteString(formatDiagnostic(t.env.ws, d) + "\n")
	}
	b.WriteString("\nCall lsp_diagnostics with file_path for a file's full, fresh list.")
	return Result{Content: b.String()}, nil
}

func errCount(ds []client.Diagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Severity == "Error" {
			n++
		}
	}
	return n
}
