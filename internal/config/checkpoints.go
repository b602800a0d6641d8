package config

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Checkpoints bounds what the checkpoints before the agent's steps keep
// (package checkpoint). Only the user config file sets them: they are the
// person's way back, which a repository's file must not switch off.
type Checkpoints struct {
	// Enabled is false to take none; nil means true.
	Enabled *bool `json:"enabled,omitempty"`
	// MaxFileBytes: a larger file's content is not kept (the checkpoint
	// says so). 0 means the default (4 MiB); -1 means no bound.
	MaxFileBytes int64 `json:"max_file_bytes,omitempty"`
	// MaxFiles bounds the paths tracked per workspace folder (default
	// 100,000; -1: no bound).
	MaxFiles int `json:"max_files,omitempty"`
	// MaxBytes bounds the content kept per workspace folder (default
	// 512 MiB; -1: no bound).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Keep and KeepBytes bound each session's checkpoints, oldest dropped
	// first (defaults 200 and 256 MiB; -1: no bound).
	Keep      int   `json:"keep,omitempty"`
	KeepBytes int64 `json:"keep_bytes,omitempty"`
	// Exclude are names of files or folders (patterns such as "*.log")
	// never checkpointed, beside .git, node_modules and the folders the
	// workspace's ignore files hide.
	Exclude []string `json:"exclude,omitempty"`
}

// IsZero reports whether nothing is set.
func (c Checkpoints) IsZero() bool {
	return c.Enabled == nil && c.MaxFileBytes == 0 && c.MaxFiles == 0 && c.MaxBytes == 0 && c.Keep == 0 &&
		c.KeepBytes == 0 && len(c.Exclude) == 0
}

// validate refuses bounds below -1 and patterns that do not parse.
func (c Checkpoints) validate() error {
	var errs []error
	for key, v := range map[string]int64{"max_file_bytes": c.MaxFileBytes, "max_files": int64(c.MaxFiles),
		"max_bytes": c.MaxBytes, "keep": int64(c.Keep), "keep_bytes": c.KeepBytes} {
		if v < -1 {
			errs = append(errs, fmt.Errorf("checkpoints.%s %d: give a number, 0 for the default or -1 for no bound", key, v))
		}
	}
	for _, p := range c.Exclude {
		if _, err := filepath.Match(p, ""); err != nil || p == "" {
			errs = append(errs, fmt.Errorf("checkpoints.exclude %q: give a name or a pattern such as \"*.log\"", p))
		}
	}
	return errors.Join(errs...)
}
