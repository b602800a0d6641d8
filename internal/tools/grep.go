package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed grep.md
var grepDescription string

const (
	// grepMaxMatches caps the matching lines returned by one grep.
	grepMaxMatches = 100
	// grepMaxLine cuts long matching lines (minified code) around the match.
	grepMaxLine = 500
	// grepLeadContext is how much of a cut line is kept before the match.
	grepLeadContext = 100
)

type grepInput struct {
	Pattern     string `json:"pattern" jsonschema:"Go (RE2) regular expression matched against each line, e.g. \"func \\\\w+Handler\" or \"(?i)todo\"; plain text when literal_text is true."`
	Path        string `json:"path,omitempty" jsonschema:"Folder or file to search: relative to the first workspace folder, or absolute. Default: the first workspace folder."`
	Include     string `json:"include,omitempty" jsonschema:"Glob on file names to search, e.g. \"*.go\" or \"*.{ts,tsx}\"; with a / it matches the path relative to path, e.g. \"src/**/*.go\"."`
	LiteralText bool   `json:"literal_text,omitempty" jsonschema:"Treat pattern as plain text, not a regular expression. Default false."`
}

var grepSchema = schemaFor[grepInput]()

// GrepTool searches file contents line by line. It reads through the
// workspace overlay, so matches and line numbers agree with what view
// shows and with the editor's unsaved buffers.
type GrepTool struct {
	ws *Workspace
}

// NewGrepTool returns the grep tool over ws.
func NewGrepTool(ws *Workspace) *GrepTool { return &GrepTool{ws: ws} }

// Spec describes grep: capability fs.grep, read-only.
func (t *GrepTool) Spec() Spec {
	return readSpec("grep", grepDescription, grepSchema(), "fs.grep")
}

func (t *GrepTool) parse(call Call) (grepInput, string, *lineMatcher, error) {
	var in grepInput
	if err := grepSchema().decode(call, "grep", &in); err != nil {
		return in, "", nil, err
	}
	if in.Pattern == "" {
		return in, "", nil, errors.New("grep: pattern is required")
	}
	expr := in.Pattern
	if in.LiteralText {
		expr = regexp.QuoteMeta(expr)
	}
	m, err := newLineMatcher(expr)
	if err != nil {
		return in, "", nil, fmt.Errorf("grep: invalid regular expression %q: %v. grep uses Go RE2 syntax (no lookaround or backreferences); escape special characters such as ( [ { . * + ? with \\, or set literal_text to true to search for the text as it is", in.Pattern, err)
	}
	if in.Include != "" && !doublestar.ValidatePattern(in.Include) {
		return in, "", nil, fmt.Errorf("grep: invalid include pattern %q: use a glob such as *.go or *.{ts,tsx}", in.Include)
	}
	abs, err := target(t.ws, in.Path, "path", true)
	if err != nil {
		return in, "", nil, fmt.Errorf("grep: %w", err)
	}
	return in, abs, m, nil
}

// Describe validates the input (including the regexp) and names the
// folder or file searched for the gate.
func (t *GrepTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, _, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.ws, abs, fmt.Sprintf("agentls wants to search for %q in %s", in.Pattern, display(t.ws, abs))), nil
}

// Run searches and returns matches grouped by file.
func (t *GrepTool) Run(ctx context.Context, call Call) (Result, error) {
	in, abs, m, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if !t.ws.Inside(abs) {
		return Errorf("%s", outsideMessage(t.ws, abs)), nil
	}
	given := in.Path
	if given == "" {
		given = abs
	}
	s := newGrepSearch(t.ws, m)
	fi, err := t.ws.statDisk(abs)
	var stats walkStats
	switch {
	case isNotExist(err):
		// An unsaved editor buffer has no file on disk yet.
		if _, rerr := t.ws.ReadFile(abs); rerr != nil {
			return notFound(t.ws, "Path", given, abs), nil
		}
		s.named(abs)
	case err != nil:
		return Errorf("Cannot search %s: %v", given, err), nil
	case !fi.IsDir():
		s.named(abs)
	default:
		stats, err = t.ws.walkParallel(ctx, abs, walkVisit{
			file: func(worker int, f walkFile) walkAction {
				if rel := f.rel(); includes(in.Include, rel, f.name) {
					s.walked(worker, f, rel)
				}
				return walkContinue
			},
			after: s.after,
		})
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, err
			}
			return Errorf("Cannot search %s: %v", given, err), nil
		}
	}
	return Result{Content: s.report(in, given, stats)}, nil
}

// includes applies the include glob: to the file name, or to the path
// relative to the search folder when the glob has a slash.
func includes(include, rel, name string) bool {
	switch {
	case include == "":
		return true
	case strings.Contains(include, "/"):
		return doublestar.MatchUnvalidated(include, rel)
	}
	return doublestar.MatchUnvalidated(include, name)
}

// matchWindow cuts a long line to grepMaxLine bytes around the match start,
// marking cuts with "...".
func matchWindow(line string, start int) string {
	if len(line) <= grepMaxLine {
		return line
	}
	from := 0
	if start > grepLeadContext {
		from = start - grepLeadContext
		for from < start && !utf8.RuneStart(line[from]) {
			from++
		}
	}
	out := cutLine(line[from:], grepMaxLine)
	if from > 0 {
		out = "..." + out
	}
	return out
}

func (s *grepSearch) report(in grepInput, given string, stats walkStats) string {
	o := s.outcome()
	var b strings.Builder
	if o.count == 0 {
		fmt.Fprintf(&b, "No matches found for %q in %s", in.Pattern, given)
		if in.Include != "" {
			fmt.Fprintf(&b, " (files matching %s)", in.Include)
		}
		b.WriteString(".")
	} else {
		if o.truncated {
			fmt.Fprintf(&b, "Found more than %d matches; showing the first %d, in %s.\n", grepMaxMatches, o.count, plural(len(o.files), "file"))
		} else {
			fmt.Fprintf(&b, "Found %s in %s.\n", plural(o.count, "match"), plural(len(o.files), "file"))
		}
		for _, f := range o.files {
			b.WriteString("\n" + f.path + ":\n" + strings.Join(f.lines, "\n") + "\n")
		}
		if o.truncated {
			fmt.Fprintf(&b, "\n(Results are truncated at %d matches. Narrow the search with a more specific pattern, path or include.)\n", grepMaxMatches)
		}
	}
	if o.tooLarge > 0 {
		fmt.Fprintf(&b, "\n(Skipped %d files over %d MiB.)", o.tooLarge, MaxReadSize>>20)
	}
	if o.outside > 0 {
		what := "entries"
		if o.outside == 1 {
			what = "entry"
		}
		fmt.Fprintf(&b, "\n(Skipped %d %s leading outside the workspace (symbolic links out, or files with several hard links): agentls reads only inside the workspace folders.)", o.outside, what)
	}
	if stats.limitHit {
		fmt.Fprintf(&b, "\n(Stopped after %d entries: results may be incomplete. Search a smaller folder with path.)", maxWalkEntries)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// plural formats a count with its noun: "1 file", "2 matches".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
