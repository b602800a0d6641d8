package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrusted(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "src", "repo")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(base, "src")
	cases := []struct {
		folder  string
		entries []string
		want    bool
	}{
		{repo, []string{repo}, true},
		{repo, []string{repo + "/"}, true},
		{repo, []string{src}, false},                        // a parent is not trust for what is below it…
		{repo, []string{src + "/**"}, true},                 // …unless written parent/**
		{src, []string{src + "/**"}, true},                  // DIR/** trusts DIR too
		{filepath.Join(repo, "sub"), []string{repo}, false}, // exact means exact
		{repo, []string{repo + "x"}, false},                 // a prefix is not a parent
		{repo + "x", []string{repo + "/**"}, false},
		{link, []string{repo}, true}, // links are resolved on both sides
		{repo, []string{link}, true},
		{repo, []string{"src/repo"}, false}, // relative entries never match
		{"src/repo", []string{repo}, false},
		{repo, []string{"/**"}, true},
		{repo, nil, false},
	}
	for _, c := range cases {
		if got := Trusted(c.folder, c.entries); got != c.want {
			t.Errorf("Trusted(%s, %q) = %v, want %v", c.folder, c.entries, got, c.want)
		}
	}
	if by := By(repo, []string{src, repo, src + "/**"}); len(by) != 2 || by[0] != repo || by[1] != src+"/**" {
		t.Errorf("By = %q", by)
	}
}

func TestValidateAndEntry(t *testing.T) {
	for entry, bad := range map[string]string{
		"/home/me/src":       "",
		"/home/me/src/**":    "",
		"relative":           "not an absolute path",
		"relative/**":        "not an absolute path",
		"/home/*/src":        "no other wildcard",
		"/home/me/src/*":     "no other wildcard",
		"/home/me/src/**/x":  "no other wildcard",
		"/home/me/src[1]/**": "no other wildcard",
	} {
		err := Validate(entry)
		if bad == "" && err != nil || bad != "" && (err == nil || !strings.Contains(err.Error(), bad)) {
			t.Errorf("Validate(%q) = %v, want %q", entry, err, bad)
		}
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if e, err := Entry(".", false); err != nil || e != dir {
		t.Errorf("Entry(.) = %q, %v", e, err)
	}
	if e, err := Entry(dir+"/", true); err != nil || e != dir+"/**" || !Same(e, dir) {
		t.Errorf("Entry(dir, subfolders) = %q, %v", e, err)
	}
	if _, err := Entry(filepath.Join(dir, "missing"), false); err == nil {
		t.Error("a missing folder got an entry")
	}
}
