package tools

// Formatting of the lsp_* tools' results: locations as
// "path:line:column: text of the line", grouped by file and capped, and
// diagnostics, errors first.

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/langserver/client"
)

// lspLines reads line texts for results: files inside the roots only, as
// the agent sees them (buffers first).
type lspLines struct {
	ws    *Workspace
	files map[string][]string
}

func newLSPLines(ws *Workspace) *lspLines { return &lspLines{ws: ws, files: map[string][]string{}} }

func (c *lspLines) line(path string, n int) (string, bool) {
	lines, ok := c.files[path]
	if !ok {
		if filepath.IsAbs(path) && c.ws.Inside(path) {
			if f, err := c.ws.ReadFile(path); err == nil {
				lines = splitLines(f.Text)
			}
		}
		c.files[path] = lines
	}
	if n < 1 || n > len(lines) {
		return "", false
	}
	return strings.TrimSpace(cutLine(lines[n-1], 200)), true
}

// locLine is "path:line:col: text".
func (c *lspLines) locLine(l client.Location) string {
	s := fmt.Sprintf("%s:%d:%d", display(c.ws, l.Path), l.Line, l.Column)
	if text, ok := c.line(l.Path, l.Line); ok {
		return s + ": " + text
	}
	if filepath.IsAbs(l.Path) && !c.ws.Inside(l.Path) {
		return s + " (outside the workspace folders)"
	}
	return s
}

// formatLocations lists locations grouped by file (a blank line between
// files), at most limit of them, then "… N more".
func formatLocations(ws *Workspace, locs []client.Location, limit int) string {
	lines := newLSPLines(ws)
	var b strings.Builder
	prev := ""
	for i, l := range locs {
		if i == limit {
			files := map[string]bool{}
			for _, r := range locs[i:] {
				files[r.Path] = true
			}
			fmt.Fprintf(&b, "\n… %d more in %d file(s) not shown.", len(locs)-i, len(files))
			break
		}
		if i > 0 && l.Path != prev {
			b.WriteByte('\n')
		}
		prev = l.Path
		b.WriteString(lines.locLine(l) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func countFiles(locs []client.Location) int {
	files := map[string]bool{}
	for _, l := range locs {
		files[l.Path] = true
	}
	return len(files)
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sevRank orders severities: errors first.
func sevRank(s string) int {
	switch s {
	case "Error":
		return 0
	case "Warning":
		return 1
	case "Information":
		return 2
	}
	return 3
}

// formatDiagnostic is "path:line:col: error: message [source code]".
func formatDiagnostic(ws *Workspace, d client.Diagnostic) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(d.Message, "\n", " / ")), " ")
	if len(msg) > 400 {
		msg = cutUTF8(msg, 400) + "…"
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s", display(ws, d.Path), d.Line, d.Column, strings.ToLower(d.Severity), msg)
	src := strings.TrimSpace(d.Source + " " + d.Code)
	if src != "" {
		s += " [" + src + "]"
	}
	return s
}

// sortDiagnostics orders by severity, then file and position.
func sortDiagnostics(ds []client.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if ra, rb := sevRank(a.Severity), sevRank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// countSeverities says "2 errors, 1 warning".
func countSeverities(ds []client.Diagnostic) string {
	var errs, warns, other int
	for _, d := range ds {
		switch d.Severity {
		case "Error":
			errs++
		case "Warning":
			warns++
		default:
			other++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, countOf(errs, "error", "errors"))
	}
	if warns > 0 {
		parts = append(parts, countOf(warns, "warning", "warnings"))
	}
	if other > 0 {
		parts = append(parts, countOf(other, "hint", "hints/notes"))
	}
	if len(parts) == 0 {
		return "no diagnostics"
	}
	return strings.Join(parts, ", ")
}
