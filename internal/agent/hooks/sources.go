package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentls/agentls/internal/config/trust"
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
// Hooks of a workspace whose root is not trusted are skipped with a
// warning and never parsed: a cloned repository must not be able to run
// code. trusted is the user file's trusted_workspaces, read by the one
// trust rule of package trust (the folder itself, or a parent written
// "DIR/**"; links resolved).
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
		if s.Root != "" && !trust.Trusted(s.Root, trusted) {
			if !isEmpty(s.Hooks) {
				warnings = append(warnings, fmt.Sprintf(
					"ignoring the hooks in %s: workspace %s is not trusted; trust it with `agentls trust %s` to run them",
					s.Name, s.Root, s.Root))
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
