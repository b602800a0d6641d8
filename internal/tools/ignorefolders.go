package tools

import (
	"os"
	"path/filepath"
)

// IgnoredFolders tells which folders of one workspace folder the ignore
// files hide, as the search tools decide (.rgignore, .ignore, .gitignore,
// .git/info/exclude, git's global excludes file): for a walk of agentls's
// own, such as the checkpoints', that should not spend its bounds on
// dependency trees and build output. Each folder's ignore files are read
// once, when a folder below it is first asked about, through the root:
// make a new one to see edits to them. It is not safe for concurrent use.
type IgnoredFolders struct {
	top    string
	root   *os.Root
	frames map[string]*ignoreFrame // the rules over a folder's entries, by folder
}

// NewIgnoredFolders decides for the workspace folder top, opened as root.
func NewIgnoredFolders(top string, root *os.Root) *IgnoredFolders {
	return &IgnoredFolders{top: top, root: root, frames: map[string]*ignoreFrame{}}
}

// Ignored reports whether the ignore files hide the folder rel (relative
// to the workspace folder, not "."), judged by its own name in its parent:
// a caller walking down asks about each folder on the way.
func (g *IgnoredFolders) Ignored(rel string) bool {
	rel = filepath.Clean(rel)
	if rel == "." {
		return false
	}
	parent := filepath.Dir(rel)
	return g.frame(parent).rules(filepath.Join(g.top, parent)).ignored(filepath.Base(rel), true)
}

// frame is the rules over the entries of the folder rel.
func (g *IgnoredFolders) frame(rel string) *ignoreFrame {
	if f, ok := g.frames[rel]; ok {
		return f
	}
	var up *ignoreFrame
	if rel == "." {
		if l := globalIgnores(g.top); l != nil {
			up = &ignoreFrame{lists: [ignKinds]*ignoreList{ignGlobal: l}}
		}
	} else {
		up = g.frame(filepath.Dir(rel))
	}
	f := up.push(lstatIgnores(g.root, rel), rootIgnores(g.root, rel, filepath.Join(g.top, rel)))
	g.frames[rel] = f
	return f
}
