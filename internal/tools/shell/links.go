package shell

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/tools/confine"
)

// maxWalk bounds the entries the judge visits to find the links a
// recursive reader would follow; a larger tree cannot be judged before it
// runs (the sandbox then decides what the program may read).
const maxWalk = 50000

// walk records that a program reads the folder p recursively, following
// symbolic links (grep -R, rg -L, diff -r, ls -LR, find -L, du -L, tree -l).
func (e *effects) walk(p string) {
	if p != "" && p != "-" {
		e.walks = append(e.walks, p)
	}
}

// linksOut records, for a folder a program walks following links, what it
// would reach: every link below it (and below the folders inside the
// workspace those links lead to) whose target lies outside the roots is a
// read of that target. A tree too large to walk makes the command not
// read-only.
func (c *checker) linksOut(r *report, p string) {
	start, ok := c.place(p)
	if !ok {
		r.unplaced = true
		return
	}
	if c.roots == nil {
		r.note("the folders a recursive reader follows links into cannot be checked without the workspace roots")
		r.unplaced = true
		return
	}
	seen := map[string]bool{}
	visited := 0
	queue := []string{start}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		real, ok := confine.Resolve("", dir)
		if !ok || seen[real] {
			continue
		}
		seen[real] = true
		_ = filepath.WalkDir(real, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			visited++
			if visited > maxWalk {
				return filepath.SkipAll
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, ok := confine.Resolve("", q)
			switch {
			case !ok:
				c.addPath(r, &r.reads, q) // a loop or a /proc link: outside
			case !confine.Inside(c.roots, "", target):
				c.addPath(r, &r.reads, target)
			default:
				if fi, err := os.Stat(target); err == nil && fi.IsDir() {
					queue = append(queue, target)
				}
			}
			return nil
		})
		if visited > maxWalk {
			r.note("the tree a recursive reader would walk, following links, is too large to check before it runs")
			r.unplaced = true
			return
		}
	}
}
