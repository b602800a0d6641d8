package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// systemDirs are the operating system's own folders: deleting in them is
// never the agent's job.
var systemDirs = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
	"/opt", "/proc", "/sbin", "/sys", "/usr", "/var", "/snap", "/nix", "/System", "/Library",
	"/Applications", "/private", "/Windows", "/Program Files", "/Program Files (x86)"}

// homeParents hold the users' home folders.
var homeParents = []string{"/home", "/Users", "/root"}

// Catastrophic says why deleting (or moving away) target would be a
// catastrophe — the root, a system folder or anything in one, the home
// folder, a folder holding it, its direct contents, or another user's
// home folder — or "" when it is not. target must be absolute and already
// expanded (globs, ~, variables, symbolic links resolved by the caller);
// home "" means the current user's.
func Catastrophic(target, home string) string {
	if target == "" {
		return ""
	}
	t := clean(target)
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	h := ""
	if home != "" {
		h = clean(home)
	}
	switch {
	case t == "/" || t == filepath.VolumeName(t)+`\` || (filepath.VolumeName(t) != "" && t == filepath.VolumeName(t)):
		return "it is the root of the file system"
	case h != "" && t == h:
		return "it is the home folder"
	case h != "" && under(h, t):
		return "the home folder is inside it"
	case h != "" && filepath.Dir(t) == h:
		return "it is directly in the home folder"
	}
	for _, s := range systemDirs {
		if t == s || under(t, s) {
			return "it is a system folder or inside one"
		}
	}
	for _, p := range homeParents {
		if t == p || filepath.Dir(t) == p {
			return "it is a home folder or the folder holding them"
		}
	}
	return ""
}

func clean(p string) string {
	c := filepath.ToSlash(filepath.Clean(p))
	if c != "/" {
		c = strings.TrimSuffix(c, "/")
	}
	return c
}

// under reports whether p lies strictly inside dir (both cleaned).
func under(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}
