package tools

// The one directory walker behind ls, glob and grep. It honours .gitignore
// files (nested ones too, plus .git/info/exclude at the root) and skips
// version-control and dependency folders, so the three tools agree on what
// "the project's files" are.
//
// .gitignore patterns are matched with doublestar rather than
// github.com/sabhiram/go-gitignore: that library turns patterns into
// regular expressions without escaping them ("a+b" matches "aab"), treats
// "?" as a literal and does not anchor patterns with an inner slash
// ("docs/build" matches "x/docs/build"), which would hide or show the wrong
// files.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	// maxWalkEntries bounds one walk so a huge tree cannot stall a turn.
	maxWalkEntries = 200_000
	// maxIgnoreFileSize bounds how much of one .gitignore is read.
	maxIgnoreFileSize = 1 << 20
)

// skipDirName reports folders the walker never enters below the walk base:
// version-control metadata and dependency or cache folders that are
// almost never what the model is looking for, even when no .gitignore
// lists them. Naming one as the tool's path still lists or searches it.
func skipDirName(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".jj", ".bzr",
		"node_modules", "__pycache__", ".venv", ".tox",
		".mypy_cache", ".pytest_cache", ".ruff_cache":
		return true
	}
	return false
}

// ignoreRule is one .gitignore line turned into a doublestar pattern.
type ignoreRule struct {
	glob    string // relative to the folder of the ignore file
	negate  bool   // "!pattern" re-includes
	dirOnly bool   // "pattern/" matches folders only
	// inside is set for "dir/**": it matches below dir, not dir itself.
	inside string
}

// ignoreList is the rules of one ignore file (or of a tool's ignore
// parameter), relative to dir.
type ignoreList struct {
	dir   string
	rules []ignoreRule
}

// parseIgnoreLine turns one gitignore line into a rule. ok is false for
// blank lines and comments; err is set for a pattern doublestar rejects.
func parseIgnoreLine(line string) (r ignoreRule, ok bool, err error) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return r, false, nil
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false, nil
	}
	// A slash at the start or in the middle anchors the pattern to the
	// ignore file's folder; otherwise it matches at any depth.
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	line = escapeBraces(line)
	if !anchored && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	if !doublestar.ValidatePattern(line) {
		return r, false, fmt.Errorf("invalid pattern %q", line)
	}
	if strings.HasSuffix(line, "/**") {
		r.inside = strings.TrimSuffix(line, "/**")
	}
	r.glob = line
	return r, true, nil
}

// escapeBraces makes { and } literal: gitignore has no alternation.
func escapeBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		case c == '{' || c == '}':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// newIgnoreList compiles lines relative to dir. Invalid lines are skipped
// when lenient (a project's .gitignore); otherwise they are an error (a
// pattern the model passed).
func newIgnoreList(dir string, lines []string, lenient bool) (*ignoreList, error) {
	l := &ignoreList{dir: dir}
	for _, line := range lines {
		r, ok, err := parseIgnoreLine(line)
		if err != nil && !lenient {
			return nil, err
		}
		if ok {
			l.rules = append(l.rules, r)
		}
	}
	return l, nil
}

// match decides rel (slash-separated, relative to l.dir). decided is false
// when no rule matches; otherwise the last matching rule wins.
func (l *ignoreList) match(rel string, isDir bool) (ignored, decided bool) {
	for i := len(l.rules) - 1; i >= 0; i-- {
		r := l.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.inside != "" && doublestar.MatchUnvalidated(r.inside, rel) {
			continue // "dir/**" does not match dir itself
		}
		if doublestar.MatchUnvalidated(r.glob, rel) {
			return !r.negate, true
		}
	}
	return false, false
}

// relTo returns p relative to dir with forward slashes, or ok false when
// p is not strictly below dir. Both must be clean; it runs for every
// walked entry, so it avoids filepath.Rel.
func relTo(dir, p string) (string, bool) {
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if len(p) <= len(prefix) || !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return filepath.ToSlash(p[len(prefix):]), true
}

// ignoreStack is the chain of ignore lists that apply in one folder,
// deepest first: a deeper .gitignore overrides a shallower one.
type ignoreStack struct {
	list   *ignoreList
	parent *ignoreStack
}

func (s *ignoreStack) push(l *ignoreList) *ignoreStack {
	if l == nil || len(l.rules) == 0 {
		return s
	}
	return &ignoreStack{list: l, parent: s}
}

func (s *ignoreStack) ignored(abs string, isDir bool) bool {
	for n := s; n != nil; n = n.parent {
		rel, ok := relTo(n.list.dir, abs)
		if !ok {
			continue
		}
		if ign, decided := n.list.match(rel, isDir); decided {
			return ign
		}
	}
	return false
}

// loadIgnoreFile reads the ignore file rel of r, whose rules are relative
// to the folder dir (absolute); a missing or unreadable one gives nil.
// Only regular files are read, through the root: a symlink could point
// outside the roots, and a FIFO would block.
func loadIgnoreFile(r *os.Root, rel, dir string) *ignoreList {
	if fi, err := r.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|openReadFlag, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileSize))
	if err != nil {
		return nil
	}
	l, _ := newIgnoreList(dir, strings.Split(string(data), "\n"), true)
	return l
}

// ignoreChain returns the ignore lists that apply above the walk base
// baseRel (relative to the folder of p): the folder's .git/info/exclude
// and every .gitignore from the folder down to base's parent. base's own
// .gitignore is read by the walk. Files above the workspace folder are
// not read: agentls reads only inside the roots.
func ignoreChain(p place, baseRel string) *ignoreStack {
	var s *ignoreStack
	s = s.push(loadIgnoreFile(p.root, filepath.Join(".git", "info", "exclude"), p.top))
	if baseRel == "." {
		return s
	}
	dir := "."
	parts := splitRel(baseRel)
	for _, part := range parts[:len(parts)-1] {
		s = s.push(loadIgnoreFile(p.root, filepath.Join(dir, ".gitignore"), filepath.Join(p.top, dir)))
		dir = filepath.Join(dir, part)
	}
	return s.push(loadIgnoreFile(p.root, filepath.Join(dir, ".gitignore"), filepath.Join(p.top, dir)))
}

// walkEntry is one file or folder found by walk.
type walkEntry struct {
	abs   string
	rel   string // slash-separated, relative to the walk base
	isDir bool   // a real folder; a symlink to one is not (walk never follows links)
	entry fs.DirEntry
	// root and rootRel reach the entry through its workspace folder.
	root    *os.Root
	rootRel string
}

// info stats the entry itself (a link is not followed) through its
// workspace folder; entry.Info would stat it by path, outside the root.
func (e walkEntry) info() (fs.FileInfo, error) { return e.root.Lstat(e.rootRel) }

// walkAction tells walk what to do after an entry.
type walkAction int

const (
	walkContinue walkAction = iota
	walkStop                // end the walk
)

// walkStats reports how a walk ended.
type walkStats struct {
	// limitHit is set when maxWalkEntries stopped the walk.
	limitHit bool
}

// walk visits the files and folders below base breadth-first, each
// folder's entries in name order, so a walk cut short has covered the
// shallow levels. Entries ignored by .gitignore files, by extra (patterns
// relative to base, overriding .gitignore) or by skipDirName are not
// visited. Symlinks are reported, never followed. Every folder is read
// through the workspace folder's root, so one swapped for a link that
// leads out during the walk is skipped, not read. Unreadable sub-folders
// are skipped; an unreadable base is an error.
func (w *Workspace) walk(ctx context.Context, base string, extra *ignoreList, fn func(walkEntry) walkAction) (walkStats, error) {
	type folder struct {
		abs, rel, rootRel string
		ign               *ignoreStack
	}
	var stats walkStats
	p, err := w.place(base)
	if err != nil {
		return stats, fmt.Errorf("read folder %s: %w", base, err)
	}
	defer p.release()
	// The base without links, so every folder below is reached through
	// real folders only: a folder swapped for a link meanwhile is refused
	// by the root, not followed out.
	baseRel, err := p.resolveLinks(p.rel, true)
	if err != nil {
		return stats, fmt.Errorf("read folder %s: %w", base, p.named(err))
	}
	top := filepath.Join(p.top, baseRel)
	queue := []folder{{abs: top, rootRel: baseRel, ign: ignoreChain(p, baseRel)}}
	visited := 0
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		d := queue[0]
		queue = queue[1:]
		entries, err := readDirIn(p.root, d.rootRel)
		if err != nil {
			if d.rel == "" {
				return stats, fmt.Errorf("read folder %s: %w", base, p.named(err))
			}
			continue
		}
		ign := d.ign.push(loadIgnoreFile(p.root, filepath.Join(d.rootRel, ".gitignore"), d.abs))
		for _, e := range entries {
			isDir := e.IsDir()
			if isDir && skipDirName(e.Name()) {
				continue
			}
			abs := filepath.Join(d.abs, e.Name())
			rel := e.Name()
			if d.rel != "" {
				rel = d.rel + "/" + e.Name()
			}
			if excluded(extra, ign, abs, rel, isDir) {
				continue
			}
			if visited++; visited > maxWalkEntries {
				stats.limitHit = true
				return stats, nil
			}
			rootRel := filepath.Join(d.rootRel, e.Name())
			if fn(walkEntry{abs: abs, rel: rel, isDir: isDir, entry: e, root: p.root, rootRel: rootRel}) == walkStop {
				return stats, nil
			}
			if isDir {
				queue = append(queue, folder{abs: abs, rel: rel, rootRel: rootRel, ign: ign})
			}
		}
	}
	return stats, nil
}

// excluded applies the tool's patterns first (so "!vendor" can re-include
// what a .gitignore hides), then the .gitignore chain.
func excluded(extra *ignoreList, ign *ignoreStack, abs, rel string, isDir bool) bool {
	if extra != nil {
		if ignored, decided := extra.match(rel, isDir); decided {
			return ignored
		}
	}
	return ign.ignored(abs, isDir)
}

// isNotExist reports a missing file, including a missing parent folder.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}
