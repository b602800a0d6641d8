package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// Source is one place hooks are configured.
type Source struct {
	// Name says where the hooks were written, for messages: a file path or
	// "editor settings".
	Name string
	// Root is the workspace root a workspace file (.agentls.json) belongs
	// to. Empty for the person's own settings (user config file, editor
	// settings), which are always trusted.
	Root string
	// Hooks is the raw value of the source's "hooks" key.
	Hooks json.RawMessage
}

// Collect returns the hooks of sources, in source order, that may run.
// Hooks of a workspace whose root is not in trusted are skipped with a
// warning and never parsed: a cloned repository must not be able to run
// code. trusted holds absolute paths (trusted_workspaces), compared after
// cleaning and resolving symbolic links.
//
// A source that does not parse is an error naming it; the hooks of the
// other sources are still returned, so a server can show the error and
// keep the hooks that are fine, while a one-shot run should stop.
func Collect(sources []Source, trusted []string) ([]Config, []string, error) {
	var (
		hooks    []Config
		warnings []string
		errs     []error
	)
	for _, s := range sources {
		if s.Root != "" && !isTrusted(s.Root, trusted) {
			if !isEmpty(s.Hooks) {
				warnings = append(warnings, fmt.Sprintf(
					"ignoring the hooks in %s: workspace %s is not trusted; add it to trusted_workspaces in your user config to run them",
					s.Name, s.Root))
			}
			continue
		}
		list, err := Parse(s.Hooks)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
			continue
		}
		hooks = append(hooks, list...)
	}
	return hooks, warnings, errors.Join(errs...)
}

// isEmpty reports whether raw holds no hooks. Anything it cannot read
// counts as hooks, so an untrusted file is still warned about.
func isEmpty(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var list []json.RawMessage
	return json.Unmarshal(raw, &list) == nil && len(list) == 0
}

// isTrusted reports whether root is one of trusted. Only exact matches
// count: trusting a parent folder does not trust every repository below
// it.
func isTrusted(root string, trusted []string) bool {
	r := canonicalPath(root)
	if r == "" {
		return false
	}
	for _, t := range trusted {
		if canonicalPath(t) == r {
			return true
		}
	}
	return false
}

// canonicalPath is p cleaned and with links resolved, or "" when p is not
// absolute (a relative trust entry would depend on the server's directory).
func canonicalPath(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}
