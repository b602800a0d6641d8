// Package confine decides whether a path lies inside the workspace roots
// the way the operating system will resolve it, not the way it reads.
//
// A path is inside when, after every symbolic link on the way has been
// followed (a ".." after a link climbs from the link's target, as the
// kernel does), it lies under one of the roots, themselves resolved. A
// regular file with more than one hard link counts as outside: its other
// names may live anywhere, so writing it may change a file elsewhere and
// reading it may read one. Both the file tools and the shell judge use
// these rules, so "outside" means one thing everywhere.
package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links followed while resolving one path,
// as the kernel does (ELOOP).
const maxLinks = 40

// Resolve returns p, made absolute against dir when relative, with every
// symbolic link in its existing prefix followed and ".." applied after the
// link it follows. Components that do not exist yet are appended as
// written (cleaned). ok is false when p is relative and dir is empty, or
// when links loop.
func Resolve(dir, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		if dir == "" || !filepath.IsAbs(dir) {
			return "", false
		}
		// Not filepath.Join: it would apply ".." lexically, before the
		// links it must follow.
		p = dir + string(filepath.Separator) + p
	}
	return walk(p)
}

// walk resolves an absolute path component by component.
func walk(p string) (string, bool) {
	vol := filepath.VolumeName(p)
	rest := strings.Split(filepath.ToSlash(p[len(vol):]), "/")
	cur := vol + string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		if processRelative(next) {
			// /proc/self/cwd, /proc/PID/root, /dev/fd/3: resolved here
			// they name agentls's own process; the program resolves them
			// in its own, so nothing here can say where they lead.
			return "", false
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there (yet): the rest cannot be a link; clean it lexically.
			tail := filepath.Join(append([]string{part}, rest...)...)
			return filepath.Join(cur, tail), true
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxLinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		target = filepath.ToSlash(target)
		if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
			tv := filepath.VolumeName(target)
			cur = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, true
}

// processRelative reports whether p is a path whose meaning depends on
// the process resolving it: a process's folder in /proc (self,
// thread-self, a process id) or a file descriptor's name (/dev/fd/N and
// the /dev/std* links to it).
func processRelative(p string) bool {
	p = filepath.ToSlash(p)
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		first, _, _ := strings.Cut(rest, "/")
		if first == "self" || first == "thread-self" {
			return true
		}
		for i := 0; i < len(first); i++ {
			if first[i] < '0' || first[i] > '9' {
				return false
			}
		}
		return first != ""
	}
	return p == "/dev/fd" || strings.HasPrefix(p, "/dev/fd/") || p == "/dev/stdin" || p == "/dev/stdout" || p == "/dev/stderr"
}

// Within reports whether p is root or lies under it (both already
// resolved and cleaned).
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Roots resolves workspace roots once, for repeated Inside checks.
func Roots(roots []string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if abs, ok := Resolve("", filepath.Clean(r)); ok {
			out = append(out, abs)
		}
	}
	return out
}

// Inside reports whether p (relative to dir) lies inside one of the
// resolved roots and is not a multiply linked regular file.
func Inside(resolvedRoots []string, dir, p string) bool {
	real, ok := Resolve(dir, p)
	if !ok {
		return false
	}
	in := false
	for _, r := range resolvedRoots {
		if Within(r, real) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	if fi, err := os.Stat(real); err == nil && MultiLinked(real, fi) {
		return false
	}
	return true
}

// MultiLinked reports whether the file at path, described by fi, is a
// regular file with more than one hard link, which counts as outside the
// workspace.
func MultiLinked(path string, fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	n, ok := LinkCount(fi, nil)
	if !ok {
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		defer f.Close()
		n, _ = LinkCount(fi, f)
	}
	return n > 1
}
