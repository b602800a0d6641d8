// Package trust is agentls's one rule for trusted workspace folders.
//
// A folder is trusted when the user config file's trusted_workspaces
// lists it exactly, or lists a folder above it written with a trailing
// "/**" ("/home/me/src/**" trusts /home/me/src and every folder below
// it). Both sides are compared cleaned and with symbolic links resolved.
// What a trusted folder may do — loosen permissions from its .agentls.json,
// run its hooks, name language servers, start the built-in servers in
// their full form (the repository's own TypeScript, build scripts, …) —
// is decided by this one function everywhere, so no setting has a rule of
// its own.
package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Subfolders is the suffix of an entry that trusts a folder and every
// folder below it.
const Subfolders = "/**"

// Trusted reports whether folder is trusted by entries (trusted_workspaces):
// an entry equal to it, or an entry "DIR/**" with folder at or below DIR.
// A relative folder or entry never matches.
func Trusted(folder string, entries []string) bool {
	return len(By(folder, entries)) > 0
}

// By returns the entries that trust folder, in their order.
func By(folder string, entries []string) []string {
	f := canonical(folder)
	if f == "" {
		return nil
	}
	var out []string
	for _, e := range entries {
		dir, below := Split(e)
		d := canonical(dir)
		if d == "" {
			continue
		}
		if f == d || below && inside(d, f) {
			out = append(out, e)
		}
	}
	return out
}

// Split cuts an entry into its folder and whether it also trusts the
// folders below it.
func Split(entry string) (dir string, subfolders bool) {
	entry = strings.TrimSpace(entry)
	if d, ok := strings.CutSuffix(entry, Subfolders); ok {
		if d == "" {
			d = "/"
		}
		return d, true
	}
	return entry, false
}

// Validate checks one trusted_workspaces entry: an absolute folder,
// optionally followed by "/**"; no other wildcard.
func Validate(entry string) error {
	dir, _ := Split(entry)
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("trusted_workspaces: %q is not an absolute path; write the full folder, e.g. \"/home/me/src/project\"", entry)
	}
	if strings.ContainsAny(dir, "*?[") {
		return fmt.Errorf("trusted_workspaces: %q: a folder is trusted exactly, or with every folder below it when it ends in \"/**\"; no other wildcard is allowed", entry)
	}
	return nil
}

// Entry is the trusted_workspaces entry for the folder dir: absolute,
// cleaned, links resolved, with "/**" when subfolders. dir must be an
// existing folder.
func Entry(dir string, subfolders bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w; give an existing folder", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", errors.New("trust " + dir + ": not a folder; give the workspace folder, not a file in it")
	}
	if subfolders {
		return strings.TrimSuffix(real, string(filepath.Separator)) + Subfolders, nil
	}
	return real, nil
}

// Same reports whether entry names the folder dir (with or without "/**").
func Same(entry, dir string) bool {
	d, _ := Split(entry)
	a, b := canonical(d), canonical(dir)
	return a != "" && a == b
}

// canonical is p cleaned and with links resolved, or "" when p is not
// absolute (a relative entry would depend on agentls's current folder).
func canonical(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// inside reports whether p lies below dir (not dir itself).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
