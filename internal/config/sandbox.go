package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/sandbox"
)

// Sandbox configures the kernel sandbox every program agentls starts runs
// in (package sandbox). Only the user config file sets it: a workspace
// file or the editor's settings could otherwise widen what a repository's
// programs reach.
type Sandbox struct {
	// Mode is "auto" (confine where the system can; the default),
	// "required" (refuse to run a program that cannot be confined) or
	// "off".
	Mode string `json:"mode,omitempty"`
	// Readable and Writable add folders or files (absolute, or ~/…) that
	// confined programs may read, or also write.
	Readable []string `json:"readable,omitempty"`
	Writable []string `json:"writable,omitempty"`
	// Env adds variables (NAME, or NAME* for a prefix) programs may
	// receive besides the built-in allow-list; it may name credentials.
	Env []string `json:"env,omitempty"`
}

// IsZero reports whether nothing is set.
func (s Sandbox) IsZero() bool {
	return s.Mode == "" && len(s.Readable)+len(s.Writable)+len(s.Env) == 0
}

// validate checks the mode and that every path is absolute or starts
// with ~/.
func (s Sandbox) validate() error {
	if !sandbox.Mode(s.Mode).Valid() {
		return fmt.Errorf("sandbox.mode %q: use \"auto\", \"required\" or \"off\"", s.Mode)
	}
	for key, list := range map[string][]string{"readable": s.Readable, "writable": s.Writable} {
		for _, p := range list {
			if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
				return fmt.Errorf("sandbox.%s %q: give an absolute path or one starting with ~/", key, p)
			}
		}
	}
	for _, e := range s.Env {
		if e == "" || strings.ContainsAny(e, "= ") {
			return fmt.Errorf("sandbox.env %q: give a variable name, or a prefix ending in *", e)
		}
	}
	return nil
}
