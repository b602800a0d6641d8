package tools

// The newest globMaxResults files of a glob, kept as the walk finds them
// (a heap of that many), so a pattern matching most of a huge tree holds
// no list of it.

import (
	"container/heap"
	"slices"
	"strings"
	"time"
)

// globMatch is one matching file.
type globMatch struct {
	path    string
	modTime time.Time
}

// newer orders matches newest first, then by path: the glob's order.
func newer(a, b globMatch) int {
	if c := b.modTime.Compare(a.modTime); c != 0 {
		return c
	}
	return strings.Compare(a.path, b.path)
}

// newestFiles keeps the first globMaxResults matches in the glob's order
// and counts them all. Each worker of the walk has its own (newestOf
// merges them), so adding takes no lock.
type newestFiles struct {
	kept  heapOf[globMatch] // the match that sorts last on top
	total int
}

func newNewestFiles() *newestFiles {
	return &newestFiles{kept: heapOf[globMatch]{less: func(a, b globMatch) bool { return newer(a, b) > 0 }}}
}

// add counts a match and keeps it if it is among the newest; path is
// asked for only then.
func (n *newestFiles) add(mod time.Time, path func() string) {
	n.total++
	if n.kept.Len() < globMaxResults {
		heap.Push(&n.kept, globMatch{path: path(), modTime: mod})
		return
	}
	if mod.Before(n.kept.items[0].modTime) {
		return
	}
	if m := (globMatch{path: path(), modTime: mod}); newer(m, n.kept.items[0]) < 0 {
		n.kept.items[0] = m
		heap.Fix(&n.kept, 0)
	}
}

// newestOf merges the workers' matches: the first globMaxResults in the
// glob's order, and how many matched in all.
func newestOf(all []*newestFiles) ([]globMatch, int) {
	var out []globMatch
	total := 0
	for _, n := range all {
		out = append(out, n.kept.items...)
		total += n.total
	}
	slices.SortFunc(out, newer)
	return out[:min(len(out), globMaxResults)], total
}
