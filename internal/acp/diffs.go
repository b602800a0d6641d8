package acp

import (
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// hunk is one hunk of a unified diff as ACP shows it: the old and new
// text of the lines it covers (context included), where it starts in the
// new file, and whether the file is new.
type hunk struct {
	path     string
	old, new strings.Builder
	newStart int
	created  bool
}

// parseDiff reads a unified diff of one or more files as the tools render
// it (tools.UnifiedDiff: "--- a/P", "+++ b/P", "@@ -l,n +l,n @@", lines
// prefixed " ", "-", "+", and "\ No newline at end of file"). A hunk's
// line counts say where it ends, so a removed line that reads "-- x" is
// not taken for a file header.
func parseDiff(diff string) []*hunk {
	var out []*hunk
	var cur *hunk
	path := ""
	remOld, remNew := 0, 0
	last := byte(0) // the kind of the previous line, for "\ No newline"
	for line := range strings.Lines(diff) {
		body := strings.TrimSuffix(line, "\n")
		if cur != nil && (remOld > 0 || remNew > 0) && body != "" && strings.ContainsRune(" -+", rune(body[0])) {
			rest := line[1:]
			switch line[0] {
			case ' ':
				cur.old.WriteString(rest)
				cur.new.WriteString(rest)
				remOld, remNew = remOld-1, remNew-1
			case '-':
				cur.old.WriteString(rest)
				remOld--
			case '+':
				cur.new.WriteString(rest)
				remNew--
			}
			last = line[0]
			continue
		}
		switch {
		case strings.HasPrefix(body, `\`):
			if cur != nil {
				trimLast(cur, last) // the previous line has no newline in its file
			}
		case strings.HasPrefix(body, "--- "):
			cur = nil
		case strings.HasPrefix(body, "+++ "):
			path = strings.TrimPrefix(strings.TrimPrefix(body, "+++ "), "b/")
			cur = nil
		case strings.HasPrefix(body, "@@"):
			cur = &hunk{path: path}
			var created bool
			cur.newStart, remOld, remNew, created = hunkHeader(body)
			cur.created = created
			out = append(out, cur)
		}
	}
	return out
}

// hunkHeader reads "@@ -a,b +c,d @@": the new side's first line (c), the
// old and new line counts (b and d; 1 when left out), and whether the old
// side is empty at line 0 (a file that did not exist).
func hunkHeader(header string) (newStart, oldCount, newCount int, created bool) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return 0, 0, 0, false
	}
	oldStart, oldCount := rangeOf(strings.TrimPrefix(f[1], "-"))
	newStart, newCount = rangeOf(strings.TrimPrefix(f[2], "+"))
	return newStart, oldCount, newCount, oldStart == 0 && oldCount == 0
}

// rangeOf reads "l,n" (or "l", meaning one line).
func rangeOf(s string) (start, count int) {
	l, n, ok := strings.Cut(s, ",")
	start, _ = strconv.Atoi(l)
	count = 1
	if ok {
		count, _ = strconv.Atoi(n)
	}
	return start, count
}

// trimLast removes the newline a diff line got from rendering, for a line
// that has none in the file.
func trimLast(h *hunk, kind byte) {
	cut := func(b *strings.Builder) {
		s := strings.TrimSuffix(b.String(), "\n")
		b.Reset()
		b.WriteString(s)
	}
	switch kind {
	case ' ':
		cut(&h.old)
		cut(&h.new)
	case '-':
		cut(&h.old)
	case '+':
		cut(&h.new)
	}
}

// diffContent is a diff as ACP tool-call content, one diff entry per hunk
// (oldText omitted for a new file), and the places it changed.
func (ss *session) diffContent(diff string) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var content []sdk.ToolCallContent
	var locs []sdk.ToolCallLocation
	seen := map[string]bool{}
	for _, h := range parseDiff(diff) {
		path := ss.resolve(h.path)
		if h.created {
			content = append(content, sdk.ToolDiffContent(path, h.new.String()))
		} else {
			content = append(content, sdk.ToolDiffContent(path, h.new.String(), h.old.String()))
		}
		if !seen[path] {
			seen[path] = true
			loc := sdk.ToolCallLocation{Path: path}
			if h.newStart > 0 {
				line := h.newStart
				loc.Line = &line
			}
			locs = append(locs, loc)
		}
	}
	return content, locs
}
