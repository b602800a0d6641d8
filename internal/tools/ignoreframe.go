package tools

// Which ignore files apply in a folder, and which of them decides, as
// ripgrep decides: .rgignore files first (the deepest that has a matching
// rule), then .ignore files, then .gitignore files up to the nearest
// folder holding .git (a nested repository does not inherit its parent's
// .gitignore), then that folder's .git/info/exclude, then git's global
// excludes file. Within one file the last matching rule wins. Unlike
// ripgrep, .gitignore applies outside a git repository too (a project
// copied without its .git keeps its ignores), and hidden files are
// walked.

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The kinds of ignore file, in the order they decide.
const (
	ignRg      = iota // .rgignore
	ignIgnore         // .ignore
	ignGit            // .gitignore
	ignExclude        // .git/info/exclude
	ignGlobal         // git's core.excludesFile
	ignKinds
)

// ignoreFileNames are the ignore files read from each folder, by kind.
var ignoreFileNames = [...]string{ignRg: ".rgignore", ignIgnore: ".ignore", ignGit: ".gitignore"}

// ignoreFrame is what one folder adds to the ignore rules of its parent:
// its ignore files, and whether it holds .git.
type ignoreFrame struct {
	parent *ignoreFrame
	lists  [ignKinds]*ignoreList
	hasGit bool
}

// folderRules is the ignore lists that apply to the entries of one
// folder, in the order they decide, each with the folder's path relative
// to the list's.
type folderRules struct {
	lists []*ignoreList
	rels  []string
}

// rules returns what applies in the folder dir (absolute: the frame's
// folder or one below it), worked out once for all its entries.
func (f *ignoreFrame) rules(dir string) folderRules {
	var r folderRules
	for k := range ignKinds {
		for n := f; n != nil; n = n.parent {
			if l := n.lists[k]; l != nil {
				if rel, ok := folderRel(l.dir, dir); ok {
					r.lists = append(r.lists, l)
					r.rels = append(r.rels, rel)
				}
			}
			if n.hasGit && (k == ignGit || k == ignExclude) {
				break // a repository's root: .gitignore above it does not apply
			}
		}
	}
	return r
}

// ignored decides the entry name of the folder.
func (r folderRules) ignored(name string, isDir bool) bool {
	for i, l := range r.lists {
		if ign, decided := l.match(r.rels[i], name, isDir); decided {
			return ign
		}
	}
	return false
}

// folderRel returns the folder p relative to the folder dir with forward
// slashes ("" for dir itself), or ok false when p is not dir or below it.
func folderRel(dir, p string) (string, bool) {
	if p == dir {
		return "", true
	}
	return relTo(dir, p)
}

// folderIgnores says which ignore files a folder has: found reports a
// name in it and whether that entry is a folder.
type folderIgnores func(name string) (found, isDir bool)

// ignoreReader reads the ignore file at the path elements below a
// folder, as rules relative to that folder (nil: none, or no rules).
type ignoreReader func(elems ...string) *ignoreList

// push returns the frame of a folder below f: has tells which ignore
// files and .git it holds, read reads them. A folder without either adds
// no frame.
func (f *ignoreFrame) push(has folderIgnores, read ignoreReader) *ignoreFrame {
	n := &ignoreFrame{parent: f}
	some := false
	for k, name := range ignoreFileNames {
		if ok, isDir := has(name); ok && !isDir {
			n.lists[k] = read(name)
			some = some || n.lists[k] != nil
		}
	}
	if ok, isDir := has(".git"); ok {
		n.hasGit, some = true, true
		if isDir {
			n.lists[ignExclude] = read(".git", "info", "exclude")
		}
	}
	if !some {
		return f
	}
	return n
}

// rootIgnores reads the ignore files of the folder rel of r, whose
// absolute path is dir.
func rootIgnores(r *os.Root, rel, dir string) ignoreReader {
	return func(elems ...string) *ignoreList {
		return loadIgnoreFile(r, filepath.Join(append([]string{rel}, elems...)...), dir)
	}
}

// lstatIgnores answers folderIgnores for the folder rel of r by looking
// each name up (for the folders above a walk, which are not listed).
func lstatIgnores(r *os.Root, rel string) folderIgnores {
	return func(name string) (bool, bool) {
		fi, err := r.Lstat(filepath.Join(rel, name))
		return err == nil, err == nil && fi.IsDir()
	}
}

// loadIgnoreFile reads the ignore file rel of r, whose rules are relative
// to the folder dir (absolute); a missing, empty or unreadable one gives
// nil. Only regular files are read, through the root: a symlink could
// point outside the roots, and a FIFO would block.
func loadIgnoreFile(r *os.Root, rel, dir string) *ignoreList {
	if fi, err := r.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|openReadFlag, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	return readIgnoreList(f, dir)
}

// readIgnoreList reads an open ignore file: nil for one that is not a
// regular file or cannot be read.
func readIgnoreList(f *os.File, dir string) *ignoreList {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileSize))
	if err != nil {
		return nil
	}
	return ignoreListFrom(data, dir)
}

// ignoreListFrom compiles an ignore file's first maxIgnoreFileSize bytes
// (nil when it has no rules); invalid lines are skipped.
func ignoreListFrom(data []byte, dir string) *ignoreList {
	data = data[:min(len(data), maxIgnoreFileSize)]
	l, _ := newIgnoreList(dir, strings.Split(string(data), "\n"), true)
	if len(l.rules) == 0 {
		return nil
	}
	return l
}

// ignoreChain returns the frames that apply above the walk base baseRel
// (relative to the folder of p): git's global excludes file, then every
// folder from the workspace folder down to base's parent. base's own
// ignore files are read by the walk. Ignore files above the workspace
// folder are not read: agentls reads only inside the roots.
func ignoreChain(p place, baseRel string) *ignoreFrame {
	var f *ignoreFrame
	if l := globalIgnores(p.top); l != nil {
		f = &ignoreFrame{lists: [ignKinds]*ignoreList{ignGlobal: l}}
	}
	if baseRel == "." {
		return f
	}
	dir := "."
	for _, part := range splitRel(baseRel) {
		f = f.push(lstatIgnores(p.root, dir), rootIgnores(p.root, dir, filepath.Join(p.top, dir)))
		dir = filepath.Join(dir, part)
	}
	return f
}
