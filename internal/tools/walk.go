package tools

// The breadth-first directory walker behind ls and the language servers'
// discovery; grep and glob walk in parallel (tools/pwalk.go). Both honour
// the ignore files as ripgrep does (tools/ignoreframe.go) and skip
// version-control and dependency folders, so the tools agree on what "the
// project's files" are.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		ign               *ignoreFrame
	}
	var stats walkStats
	p, baseRel, err := w.walkBase(base)
	if err != nil {
		return stats, err
	}
	defer p.release()
	top := filepath.Join(p.top, baseRel)
	queue := []folder{{abs: top, rootRel: baseRel, ign: ignoreChain(p, baseRel)}}
	visited := 0
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		d := queue[0]
		queue = queue[1:]
		entries, err := ReadDirIn(p.root, d.rootRel)
		if err != nil {
			if d.rel == "" {
				return stats, fmt.Errorf("read folder %s: %w", base, p.named(err))
			}
			continue
		}
		ign := d.ign.push(listedIgnores(entries), rootIgnores(p.root, d.rootRel, d.abs))
		rules := ign.rules(d.abs)
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
			if excluded(extra, rules, d.rel, e.Name(), isDir) {
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

// walkBase holds the workspace folder of a walk's base (release it) and
// returns the base relative to it without links, so every folder below
// is reached through real folders only: a folder swapped for a link
// meanwhile is refused, not followed out.
func (w *Workspace) walkBase(base string) (place, string, error) {
	p, err := w.place(base)
	if err != nil {
		return p, "", fmt.Errorf("read folder %s: %w", base, err)
	}
	baseRel, err := p.resolveLinks(p.rel, true)
	if err != nil {
		p.release()
		return p, "", fmt.Errorf("read folder %s: %w", base, p.named(err))
	}
	return p, baseRel, nil
}

// excluded applies the tool's patterns first (so "!vendor" can re-include
// what a .gitignore hides), then the .gitignore chain.
// The entry is name in the folder dirRel below the walk base.
func excluded(extra *ignoreList, rules folderRules, dirRel, name string, isDir bool) bool {
	if extra != nil {
		if ignored, decided := extra.match(dirRel, name, isDir); decided {
			return ignored
		}
	}
	return rules.ignored(name, isDir)
}

// listedIgnores answers folderIgnores from a folder's entries.
func listedIgnores(entries []fs.DirEntry) folderIgnores {
	return func(name string) (bool, bool) {
		for _, e := range entries {
			if e.Name() == name {
				return true, e.IsDir()
			}
		}
		return false, false
	}
}

// isNotExist reports a missing file, including a missing parent folder.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}
