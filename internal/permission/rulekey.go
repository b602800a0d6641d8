package permission

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/netdest"
)

// RuleKey is a parsed rule key. The grammar is:
//
//	capability          fs.edit
//	prefix.*            mcp.github.*   (whole segments: not mcp.githubx.y)
//	*                   every capability
//	capability:scope    shell.exec:go test, fs.write:docs/**
//
// A scope is command words for shell.* capabilities and a doublestar path
// glob (relative to a root, or absolute) for every other capability.
type RuleKey struct {
	raw      string
	exact    Capability // set for an exact capability
	prefix   string     // wildcard prefix without ".*"
	any      bool       // "*"
	scope    string
	cmdScope bool
	// hostScope: net.* keys scope hosts ("net.fetch:docs.python.org",
	// "net.fetch:*.example.com"), kept in glob.
	hostScope bool
	words     []string // command scope
	glob      string   // path scope, slash-separated
	absGlob   bool
	spec      int // scope specificity: words, or literal characters of the glob
}

var capPrefixRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_][a-z0-9_-]*)*$`)

// ParseRuleKey parses and validates a rule, ask_always or parent-scope key.
// Errors say what is wrong and show a valid form.
func ParseRuleKey(key string) (RuleKey, error) {
	k := RuleKey{raw: key}
	capPart, scope, scoped := strings.Cut(key, ":")
	if capPart != strings.TrimSpace(capPart) || capPart == "" {
		return k, fmt.Errorf("rule key %q: the capability part must be non-empty with no spaces, e.g. \"fs.edit\" or \"shell.exec:go test\"", key)
	}
	switch {
	case capPart == "*":
		if scoped {
			return k, fmt.Errorf("rule key %q: \"*\" cannot take a scope; name a capability, e.g. \"fs.write:%s\"", key, scope)
		}
		k.any = true
	case strings.HasSuffix(capPart, ".*"):
		k.prefix = strings.TrimSuffix(capPart, ".*")
		if !capPrefixRE.MatchString(k.prefix) {
			return k, fmt.Errorf("rule key %q: %q is not a capability prefix; use lowercase dot-separated segments such as \"mcp.github.*\"", key, k.prefix)
		}
	case strings.Contains(capPart, "*"):
		return k, fmt.Errorf("rule key %q: a wildcard must be a whole last segment, e.g. \"mcp.github.*\"", key)
	default:
		if !Capability(capPart).Valid() {
			return k, fmt.Errorf("rule key %q: %q is not a capability id; use lowercase dot-separated segments such as \"fs.edit\" or \"mcp.github.create_issue\"", key, capPart)
		}
		k.exact = Capability(capPart)
	}
	if !scoped {
		return k, nil
	}
	first, _, _ := strings.Cut(capPart, ".")
	k.scope = scope
	if first == "shell" {
		k.cmdScope = true
		k.words = strings.Fields(scope)
		if len(k.words) == 0 {
			return k, fmt.Errorf("rule key %q: the scope is empty; give command words, e.g. \"shell.exec:go test\"", key)
		}
		k.spec = len(k.words)
		return k, nil
	}
	if first == "net" {
		h := strings.ToLower(strings.TrimSpace(scope))
		if h == "" || strings.ContainsAny(h, "/:@ ") || !doublestar.ValidatePattern(h) {
			return k, fmt.Errorf("rule key %q: the scope of a net capability is a host or a host glob, e.g. \"net.fetch:docs.python.org\" or \"net.fetch:*.example.com\"", key)
		}
		k.hostScope, k.glob = true, h
		for _, r := range h {
			if !strings.ContainsRune(`*?[]{}\`, r) {
				k.spec++
			}
		}
		return k, nil
	}
	g := filepath.ToSlash(strings.TrimSpace(scope))
	g = strings.TrimPrefix(g, "./")
	if g == "" {
		return k, fmt.Errorf("rule key %q: the scope is empty; give a path glob, e.g. \"%s:docs/**\"", key, capPart)
	}
	k.absGlob = path.IsAbs(g) || filepath.IsAbs(scope)
	if !k.absGlob && (g == ".." || strings.HasPrefix(g, "../")) {
		return k, fmt.Errorf("rule key %q: a relative glob is matched inside a root and cannot start with \"..\"; use an absolute path", key)
	}
	if !doublestar.ValidatePattern(g) {
		return k, fmt.Errorf("rule key %q: %q is not a valid glob", key, scope)
	}
	k.glob = g
	for _, r := range g {
		if !strings.ContainsRune(`*?[]{}\`, r) {
			k.spec++
		}
	}
	return k, nil
}

// String returns the key as written.
func (k RuleKey) String() string { return k.raw }

// Scoped reports whether the key has a scope.
func (k RuleKey) Scoped() bool { return k.scope != "" }

// PathScoped reports whether the key's scope is a relative path glob, the
// kind a workspace file's key must be anchored to its root.
func (k RuleKey) PathScoped() bool { return k.glob != "" && !k.absGlob }

// pattern is the capability part, the key of the rule index.
func (k *RuleKey) pattern() string {
	switch {
	case k.any:
		return "*"
	case k.prefix != "":
		return k.prefix + ".*"
	}
	return string(k.exact)
}

// coversCapability reports whether the capability part matches c.
func (k *RuleKey) coversCapability(c Capability) bool {
	switch {
	case k.any:
		return true
	case k.prefix != "":
		return len(c) > len(k.prefix)+1 && strings.HasPrefix(string(c), k.prefix) && c[len(k.prefix)] == '.'
	}
	return k.exact == c
}

// matches reports whether the key covers the request. strict is for keys
// that loosen (allow, allowed parent scope): every path must match and a
// command must be one grantable simple command. Otherwise (deny, ask) the
// key matches if any path or any command in the line matches.
func (k *RuleKey) matches(v *view, strict bool) bool {
	if !k.coversCapability(v.r.Capability) {
		return false
	}
	switch {
	case k.scope == "":
		return true
	case k.cmdScope:
		if strict {
			return k.allowsCommand(v)
		}
		return k.touchesCommand(v)
	case k.hostScope:
		return k.matchHosts(v.r.Destinations, strict)
	}
	if len(v.r.Paths) == 0 {
		return false
	}
	for _, p := range v.r.Paths {
		ok := k.matchPath(p, v.roots)
		if ok && !strict {
			return true
		}
		if !ok && strict {
			return false
		}
	}
	return strict
}

// matchHosts matches the hosts of a call's destinations: every one for a
// strict (loosening) key, any one otherwise.
func (k *RuleKey) matchHosts(dests []string, strict bool) bool {
	if len(dests) == 0 {
		return false
	}
	for _, d := range dests {
		ok, _ := doublestar.Match(k.glob, DestinationHost(d))
		if ok && !strict {
			return true
		}
		if !ok && strict {
			return false
		}
	}
	return strict
}

// DestinationHost is the lower-cased host a destination names: a URL's
// host, else the destination itself.
func DestinationHost(d string) string {
	if h := netdest.URLHost(d); h != "" {
		return strings.ToLower(h)
	}
	return strings.ToLower(d)
}

func (k *RuleKey) matchPath(p string, roots []string) bool {
	p = filepath.Clean(p)
	if k.absGlob {
		ok, _ := doublestar.Match(k.glob, filepath.ToSlash(p))
		return ok
	}
	for _, root := range roots {
		rel, ok := relInside(root, p)
		if !ok {
			continue
		}
		if m, _ := doublestar.Match(k.glob, rel); m {
			return true
		}
	}
	return false
}

// relInside returns p relative to root (slash-separated) when p is root or
// below it.
func relInside(root, p string) (string, bool) {
	root = filepath.Clean(root)
	if p == root {
		return ".", true
	}
	sep := string(filepath.Separator)
	if !strings.HasPrefix(p, strings.TrimSuffix(root, sep)+sep) {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// allowsCommand: the command is one grantable simple command whose
// fingerprint or leading words start with the scope words.
func (k *RuleKey) allowsCommand(v *view) bool {
	if v.r.Fingerprint == "" {
		return false
	}
	return hasWordPrefix(v.fpWords(), k.words, 0) || hasWordPrefix(v.singleArgv(), k.words, 0)
}

// touchesCommand: the scope words appear, in order, starting at any word of
// any command in the line. Deliberately generous: it is used by rules that
// tighten. Argvs are read only when there is no command text (they are
// derived from it, and the text's tokens are the wider reading).
func (k *RuleKey) touchesCommand(v *view) bool {
	if hasWordPrefix(v.fpWords(), k.words, 0) {
		return true
	}
	if v.r.Command == "" {
		for _, argv := range v.r.Argvs {
			for i := range argv {
				if hasWordPrefix(argv, k.words, i) {
					return true
				}
			}
		}
		return false
	}
	if !strings.Contains(v.r.Command, k.words[0]) {
		return false // cheap reject: the first word is not even in the text
	}
	toks := v.tokens()
	for i := range toks {
		if hasWordPrefix(toks, k.words, i) {
			return true
		}
	}
	return false
}
