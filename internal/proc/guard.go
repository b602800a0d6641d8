package proc

import (
	"os"
	"path/filepath"
	"strings"
)

// Guard keeps a program's start clear of folders the person has not
// trusted: no program from them runs (package config/trust). A server
// started for an untrusted workspace folder gets a PATH without the
// folder's entries (CleanPath), and its program must resolve outside
// every such folder (Program).
type Guard struct {
	folders []string // cleaned, plus their link-resolved forms
}

// NewGuard guards the given untrusted folders.
func NewGuard(untrusted []string) Guard {
	var g Guard
	for _, f := range untrusted {
		f = filepath.Clean(f)
		g.folders = append(g.folders, f)
		if real, err := filepath.EvalSymlinks(f); err == nil && real != f {
			g.folders = append(g.folders, real)
		}
	}
	return g
}

// Inside reports whether p, or the file its links lead to, lies in a
// guarded folder. A relative path counts as inside: it would depend on
// the program's working folder, which may be the project.
func (g Guard) Inside(p string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	paths := []string{filepath.Clean(p)}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		paths = append(paths, real)
	}
	for _, p := range paths {
		for _, f := range g.folders {
			if rel, err := filepath.Rel(f, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// CleanPath drops from a PATH list the entries a repository could supply:
// empty and relative ones (they mean the working folder) and those inside
// a guarded folder.
func (g Guard) CleanPath(list string) string {
	var kept []string
	for _, dir := range filepath.SplitList(list) {
		if dir == "" || !filepath.IsAbs(dir) || g.Inside(dir) {
			continue
		}
		kept = append(kept, dir)
	}
	return strings.Join(kept, string(os.PathListSeparator))
}

// Program finds name: a path is taken as it is ("~/" expanded), a bare
// name is looked up in pathList; either way the file (and where its links
// lead) must lie outside every guarded folder. "" when there is none.
func (g Guard) Program(name, pathList string) string {
	name = ExpandHome(name)
	if strings.ContainsRune(name, filepath.Separator) {
		abs, err := filepath.Abs(name)
		if err != nil || !Executable(abs) || g.Inside(abs) {
			return ""
		}
		return abs
	}
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if Executable(p) && !g.Inside(p) {
			return p
		}
	}
	return ""
}

// Executable reports whether p is a file someone may execute.
func Executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// ExpandHome expands a leading "~/".
func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
