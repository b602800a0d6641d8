// Package treetest reads a folder as data, for the checkpoint tests that
// compare a tree before a step and after its restore byte for byte,
// modes and link targets included.
package treetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Tree is the folder at root as data: every path below it (.git
// skipped) mapped to its kind, mode and content or link target.
func Tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %04o", fi.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %04o %q", fi.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Diff says how tree b differs from tree a, one sorted line a path
// ("- gone", "+ new", "~ changed"); "" when they are the same.
func Diff(a, b map[string]string) string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "- "+k+": "+v)
		} else if w != v {
			d = append(d, "~ "+k+": "+v+" → "+w)
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "+ "+k+": "+v)
		}
	}
	slices.Sort(d)
	return strings.Join(d, "\n")
}

// Write makes the file rel below root with content and exactly mode
// (whatever the umask), and its folders.
func Write(t testing.TB, root, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
