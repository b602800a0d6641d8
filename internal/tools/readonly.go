package tools

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/textclip"

	"github.com/agentls/agentls/internal/permission"
)

// ReadOnlyTools returns view, ls, glob and grep over ws: the tools that
// only look at the workspace, which the gate lets run without asking
// inside the roots.
func ReadOnlyTools(ws *Workspace) []Tool {
	return []Tool{NewViewTool(ws), NewLSTool(ws), NewGlobTool(ws), NewGrepTool(ws)}
}

// target resolves a model-given path. An empty path means the first root
// when def is set (ls, glob, grep), and is an error otherwise.
func target(ws *Workspace, p, param string, def bool) (string, error) {
	if p == "" {
		if !def {
			return "", fmt.Errorf("%s is required", param)
		}
		roots := ws.Roots()
		if len(roots) == 0 {
			return "", fmt.Errorf("no workspace folder is open: give an absolute %s", param)
		}
		return roots[0], nil
	}
	abs, err := ws.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", param, err)
	}
	return abs, nil
}

// readRequest is the permission request every read-only tool makes.
//
// The file tools never read outside the workspace (their reads go through
// the workspace folders' os.Root), so a path outside is blocked here with
// the way to read it that can be asked: bash.
func readRequest(s Spec, ws *Workspace, abs, summary string) permission.Request {
	r := permission.Request{
		Tool:         s.Name,
		Capability:   s.Capability,
		Action:       permission.ActionRead,
		ReadOnly:     true,
		Paths:        []string{abs},
		OutsideRoots: !ws.Inside(abs),
		Summary:      summary,
	}
	if r.OutsideRoots {
		r.Blocked = outsideMessage(ws, abs) + " To read it anyway, use bash (cat, ls, grep), which asks the person first."
	}
	return r
}

// readSpec fills in what the four read-only tools share.
func readSpec(name, desc string, schema *inputSchema, c permission.Capability) Spec {
	return Spec{
		Name:        name,
		Description: desc,
		Schema:      schema.JSON,
		Capability:  c,
		Action:      permission.ActionRead,
		ReadOnly:    true,
	}
}

// display shows abs the way the model should pass it back: relative to the
// first root (where relative paths start), else absolute.
func display(ws *Workspace, abs string) string {
	roots := ws.Roots()
	if len(roots) > 0 && within(roots[0], abs) {
		if rel, err := filepath.Rel(roots[0], abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutUTF8(s string, n int) string { return textclip.Prefix(s, n) }

// cutLine shortens a line longer than max bytes, marking the cut with "...".
func cutLine(s string, max int) string { return textclip.Bytes(s, max, "...") }

// notFound is the error for a missing file or folder, naming up to three
// similar entries of its parent folder (closest first) so the model can
// correct a typo.
func notFound(ws *Workspace, what, given, abs string) Result {
	dir, base := filepath.Dir(abs), strings.ToLower(filepath.Base(abs))
	entries, err := ws.readDirDisk(dir)
	if err != nil {
		return Errorf("%s not found: %s (its folder %s does not exist either). Use ls or glob to find it.", what, given, display(ws, dir))
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	type candidate struct {
		name string
		dist int
	}
	var similar []candidate
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		d := editDistance(name, base)
		if d <= 2 || strings.Contains(name, base) || strings.Contains(base, name) ||
			(stem != "" && strings.TrimSuffix(name, filepath.Ext(name)) == stem) {
			similar = append(similar, candidate{e.Name(), d})
		}
	}
	if len(similar) == 0 {
		return Errorf("%s not found: %s. Use ls or glob to find it.", what, given)
	}
	slices.SortStableFunc(similar, func(a, b candidate) int { return a.dist - b.dist })
	var lines []string
	for _, c := range similar[:min(3, len(similar))] {
		lines = append(lines, display(ws, filepath.Join(dir, c.name)))
	}
	return Errorf("%s not found: %s\n\nDid you mean one of these?\n%s", what, given, strings.Join(lines, "\n"))
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
