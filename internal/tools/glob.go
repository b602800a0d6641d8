package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed glob.md
var globDescription string

// globMaxResults caps the paths returned by one glob.
const globMaxResults = 100

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern matched against file paths relative to path, e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\", \"*.md\" (top level only)."`
	Path    string `json:"path,omitempty" jsonschema:"Folder to search: relative to the first workspace folder, or absolute. Default: the first workspace folder."`
}

var globSchema = schemaFor[globInput]()

// GlobTool finds files by path pattern, newest first, so the model can
// locate files by name without listing whole trees.
type GlobTool struct {
	ws *Workspace
}

// NewGlobTool returns the glob tool over ws.
func NewGlobTool(ws *Workspace) *GlobTool { return &GlobTool{ws: ws} }

// Spec describes glob: capability fs.glob, read-only.
func (t *GlobTool) Spec() Spec {
	return readSpec("glob", globDescription, globSchema(), "fs.glob")
}

// globQuery is a parsed glob call: search names the folder the model
// asked for; walk is search plus the pattern's literal leading folders,
// and pattern is the rest, matched against paths relative to walk.
type globQuery struct {
	in      globInput
	search  string
	walk    string
	pattern string
}

func (t *GlobTool) parse(call Call) (globQuery, error) {
	var q globQuery
	if err := globSchema().decode(call, "glob", &q.in); err != nil {
		return q, err
	}
	pattern, path := q.in.Pattern, q.in.Path
	if pattern == "" {
		return q, fmt.Errorf("glob: pattern is required, e.g. \"**/*.go\"")
	}
	if filepath.IsAbs(pattern) {
		if path != "" {
			return q, fmt.Errorf("glob: pattern %q is absolute but path is also set: make the pattern relative to path", pattern)
		}
		path, pattern = doublestar.SplitPattern(filepath.ToSlash(pattern))
	}
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	if !doublestar.ValidatePattern(pattern) {
		return q, fmt.Errorf("glob: invalid pattern %q: check that brackets [ ] and braces { } are closed", q.in.Pattern)
	}
	search, err := target(t.ws, path, "path", true)
	if err != nil {
		return q, fmt.Errorf("glob: %w", err)
	}
	// Start the walk below the pattern's literal folders ("src/**/*.go"
	// walks src): faster, and it finds files in a folder .gitignore hides
	// when the model names that folder.
	sub, rest := doublestar.SplitPattern(pattern)
	q.search, q.walk, q.pattern = search, filepath.Join(search, filepath.FromSlash(sub)), rest
	return q, nil
}

// Describe validates the input and names the folder searched for the gate.
func (t *GlobTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	q, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.ws, q.walk, fmt.Sprintf("agentls wants to find files matching %s in %s", q.in.Pattern, display(t.ws, q.search))), nil
}

// Run walks the folder and returns matching files, newest first.
func (t *GlobTool) Run(ctx context.Context, call Call) (Result, error) {
	q, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	for _, p := range []string{q.search, q.walk} {
		if !t.ws.Inside(p) {
			return Errorf("%s", outsideMessage(t.ws, p)), nil
		}
	}
	given := q.in.Path
	if given == "" {
		given = q.search
	}
	fi, err := t.ws.statDisk(q.search)
	switch {
	case isNotExist(err):
		return notFound(t.ws, "Folder", given, q.search), nil
	case err != nil:
		return Errorf("Cannot search %s: %v", given, err), nil
	case !fi.IsDir():
		return Errorf("%s is a file, not a folder: give a folder as path.", given), nil
	}

	newest := make([]*newestFiles, walkWorkers())
	for i := range newest {
		newest[i] = newNewestFiles()
	}
	var stats walkStats
	if wi, err := t.ws.statDisk(q.walk); err == nil && wi.IsDir() {
		kind, lit := classifyGlob(q.pattern)
		stats, err = t.ws.walkParallel(ctx, q.walk, walkVisit{file: func(worker int, f walkFile) walkAction {
			rel := "" // made only for the patterns that need it
			if kind == rulePath || kind == ruleGlob {
				rel = f.rel()
			}
			if matchGlob(kind, q.pattern, lit, rel, f.name) {
				mod, _ := f.dir.h.modTime(f.name)
				newest[worker].add(mod, f.abs)
			}
			return walkContinue
		}})
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, err
			}
			return Errorf("Cannot search %s: %v", given, err), nil
		}
	}
	matches, total := newestOf(newest)
	if total == 0 {
		msg := fmt.Sprintf("No files found matching %q in %s.", q.in.Pattern, given)
		if !strings.Contains(q.in.Pattern, "/") {
			msg += fmt.Sprintf(" A pattern without / matches only directly in the folder: use \"**/%s\" to search subfolders too.", q.in.Pattern)
		}
		return Result{Content: msg}, nil
	}
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(display(t.ws, m.path) + "\n")
	}
	if total > globMaxResults {
		fmt.Fprintf(&b, "\n(Results are truncated: showing the %d most recently modified of %d matching files. Use a more specific pattern or path.)\n", globMaxResults, total)
	}
	if stats.limitHit {
		fmt.Fprintf(&b, "\n(Stopped after %d entries: results may be incomplete. Search a smaller folder with path.)\n", maxWalkEntries)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}, nil
}
