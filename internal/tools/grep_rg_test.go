package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGrepMatchesRipgrepOnGoroot compares grep's matching lines with
// rg -n's on the Go source tree for patterns of each kind the prefilter
// handles (a plain literal, a literal inside a regexp, case variants,
// alternatives, none to look for), chosen to match fewer than 100 lines
// in Go 1.26's tree (with more, grep's 100 must be among rg's) and to
// read alike in Go's and ripgrep's regexp syntax.
func TestGrepMatchesRipgrepOnGoroot(t *testing.T) {
	ws, src := gorootWorkspace(t)
	for _, in := range []grepInput{
		{Pattern: `func NewReader\(`, Include: "*.go"},
		{Pattern: `func \(z \*Reader\) [A-Z][a-z]+\(`, Include: "*.go", Path: "compress"},
		{Pattern: `(?i)newreadersize`, Include: "*.go", Path: "bufio"},
		{Pattern: `ErrShortWrite|ErrShortBuffer`, Include: "*.go", Path: "io"},
		{Pattern: `^[0-9]{6,}$`, Include: "*.go", Path: "internal"},
		{Pattern: `^[A-Z]{6,}$`, Include: "*.go", Path: "cmd/vendor"},
		{Pattern: `(a+b)*c`, LiteralText: true, Path: "go"},
	} {
		pattern := in.Pattern
		if in.LiteralText {
			pattern = "-F" + pattern
		}
		args := []string{"-n", "--hidden", "--no-require-git", "-e", in.Pattern}
		if in.LiteralText {
			args = []string{"-n", "--hidden", "--no-require-git", "-F", "-e", in.Pattern}
		}
		if in.Include != "" {
			args = append(args, "-g", in.Include)
		}
		if in.Path != "" {
			args = append(args, in.Path)
		}
		want := rgList(t, src, args...)
		content := callTool(t, NewGrepTool(ws), in).Content
		var got []string
		file := ""
		for _, line := range strings.Split(content, "\n") {
			if p, ok := strings.CutSuffix(line, ":"); ok && !strings.HasPrefix(line, " ") {
				file = p
			} else if rest, ok := strings.CutPrefix(line, "  Line "); ok {
				n, text, _ := strings.Cut(rest, ": ")
				got = append(got, fmt.Sprintf("%s:%s:%s", file, n, text))
			}
		}
		slices.Sort(got)
		switch {
		case len(want) >= grepMaxMatches:
			// Another Go's tree: grep shows 100 of them.
			if extra := missing(want, got); len(got) != grepMaxMatches || len(extra) > 0 {
				t.Errorf("%s: rg found %d lines, grep showed %d, %q not among rg's", pattern, len(want), len(got), extra)
			}
		case !slices.Equal(got, want):
			t.Errorf("%s: grep and rg -n differ:\n only agentls: %q\n only rg:      %q", pattern, missing(want, got), missing(got, want))
		}
	}
}
