package tools

// Git's global excludes file (core.excludesFile), found as ripgrep finds
// it: set in ~/.gitconfig, else in $XDG_CONFIG_HOME/git/config, else
// $XDG_CONFIG_HOME/git/ignore ($XDG_CONFIG_HOME defaulting to
// ~/.config). It is the person's own file, outside the workspace, read by
// agentls itself to decide which workspace files the tools skip; its
// rules are relative to the workspace folder walked.

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// globalIgnores returns the rules of git's global excludes file relative
// to dir, or nil when there is none.
func globalIgnores(dir string) *ignoreList {
	path := globalExcludesPath()
	if path == "" {
		return nil
	}
	data, err := readSmallFile(path)
	if err != nil {
		return nil
	}
	return ignoreListFrom(data, dir)
}

// globalExcludesPath is the path of git's global excludes file ("" when
// no home folder is known).
func globalExcludesPath() string {
	home, _ := os.UserHomeDir()
	config := os.Getenv("XDG_CONFIG_HOME")
	if config == "" && home != "" {
		config = filepath.Join(home, ".config")
	}
	var configs []string
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if config != "" {
		configs = append(configs, filepath.Join(config, "git", "config"))
	}
	for _, c := range configs {
		data, err := readSmallFile(c)
		if err != nil {
			continue
		}
		if p := excludesFileSetting(string(data)); p != "" {
			if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
				p = filepath.Join(home, rest)
			}
			return p
		}
	}
	if config == "" {
		return ""
	}
	return filepath.Join(config, "git", "ignore")
}

// excludesFileSetting finds excludesFile in a git config file's text, in
// any section as ripgrep reads it (the key is rarely anywhere but core).
func excludesFileSetting(config string) string {
	for line := range strings.Lines(config) {
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			return strings.Trim(strings.TrimSpace(value), `"`)
		}
	}
	return ""
}

// readSmallFile reads a regular file of at most maxIgnoreFileSize bytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openReadFlag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return io.ReadAll(io.LimitReader(f, maxIgnoreFileSize))
}
