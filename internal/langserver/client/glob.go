package client

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

// watcher is one compiled file watcher a server registered.
type watcher struct {
	base string // folder a relative pattern is relative to; "" for a plain pattern
	re   *regexp.Regexp
	kind int // WatchKind bits: 1 create, 2 change, 4 delete
}

// newWatcher compiles a FileSystemWatcher: a glob string, or a relative
// pattern {baseUri, pattern} whose base is a URI or a workspace folder.
func newWatcher(fw fileSystemWatcher) (watcher, error) {
	w := watcher{kind: 7}
	if fw.Kind != nil {
		w.kind = *fw.Kind
	}
	var pattern string
	if json.Unmarshal(fw.GlobPattern, &pattern) != nil {
		var rel struct {
			BaseURI json.RawMessage `json:"baseUri"`
			Pattern string          `json:"pattern"`
		}
		if err := json.Unmarshal(fw.GlobPattern, &rel); err != nil {
			return w, err
		}
		var uri string
		if json.Unmarshal(rel.BaseURI, &uri) != nil {
			var folder struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(rel.BaseURI, &folder); err != nil {
				return w, err
			}
			uri = folder.URI
		}
		base, err := overlay.URIToPath(uri)
		if err != nil {
			return w, err
		}
		w.base, pattern = base, rel.Pattern
	}
	if pattern == "" {
		return w, errors.New("empty glob pattern")
	}
	re, err := globRegexp(pattern)
	if err != nil {
		return w, err
	}
	w.re = re
	return w, nil
}

// matches reports whether the watcher wants to hear of a change of type
// typ (1 created, 2 changed, 3 deleted) to abs. A plain pattern is tried
// against the absolute path and the path relative to root.
func (w watcher) matches(abs, root string, typ int) bool {
	if w.kind&(1<<(typ-1)) == 0 {
		return false
	}
	if w.base != "" {
		rel, ok := relPath(w.base, abs)
		return ok && w.re.MatchString(rel)
	}
	if w.re.MatchString(filepath.ToSlash(abs)) {
		return true
	}
	rel, ok := relPath(root, abs)
	return ok && w.re.MatchString(rel)
}

// relPath is abs relative to base, with forward slashes, if inside it.
func relPath(base, abs string) (string, bool) {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// globRegexp compiles an LSP glob: `*` within a path segment, `**` across
// segments, `?` one character, `{a,b}` alternatives, `[a-z]` and `[!a-z]`
// character ranges.
func globRegexp(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			if i+1 < len(pat) && pat[i+1] == '*' {
				i++
				if i+1 < len(pat) && pat[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth > 0 {
				depth--
				b.WriteString(")")
			} else {
				b.WriteString(`\}`)
			}
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j <= 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+1+j]
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case '\\':
			if i+1 < len(pat) {
				i++
				b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteString(")")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
