package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// rgFixture is a repository whose ignore files exercise ripgrep's rules:
// nested .gitignore files with negations, .ignore and .rgignore beating
// .gitignore, .git/info/exclude, a nested repository (a .git folder) and
// a submodule-like .git file that stop the parent's .gitignore, hidden
// files and folders, and patterns with ?, [], +, #, trailing spaces, **
// and dir/**. Every file holds "needle". One rule is left out on purpose:
// ripgrep reads "{x,y}.txt" as x.txt or y.txt, where git (and agentls)
// read it as the name itself (TestIgnoreListMatch).
var rgFixture = map[string]string{
	".git/HEAD":         "ref: refs/heads/main\n",
	".git/info/exclude": "excluded-by-info.txt\n/anchored-info.txt\n",
	".gitignore": "*.log\n!important.log\nbuild/\n/top-only.txt\ndocs/**/draft*\ncache/**\n!cache/keep.txt\n" +
		"*.bak\nfile?.tmp\n[ab].dat\na+b.txt\n\\#hash.txt\nspaced.txt   \nnested-ignored/\n" +
		"!nested-ignored/back.txt\n**/gen/*.go\n.hidden-ignored/\n!keep.swp\n# a comment\n\n",
	".ignore":   "by-dotignore/\n!keep-by-dotignore.bak\n*.secret\n",
	".rgignore": "rg-only.txt\n",

	"excluded-by-info.txt": "", "anchored-info.txt": "", "sub/anchored-info.txt": "",
	"top-only.txt": "", "sub/top-only.txt": "",
	"app.log": "", "important.log": "",
	"build/out.o": "", "sub/build/x.o": "", "other/build": "",
	"docs/a/draft1.md": "", "docs/draft2.md": "", "docs/final.md": "",
	"cache/x.txt": "", "cache/keep.txt": "",
	"x.bak": "", "keep-by-dotignore.bak": "",
	"file1.tmp": "", "file12.tmp": "",
	"a.dat": "", "c.dat": "",
	"a+b.txt": "", "aab.txt": "",
	"#hash.txt": "", "spaced.txt": "", "{x,y}.txt": "", "x.txt": "", "with space.txt": "",
	"nested-ignored/a.txt": "", "nested-ignored/back.txt": "",
	"src/gen/a.go": "", "gen/b.go": "", "src/gen/sub/c.go": "",
	".hidden-ignored/x": "", ".env": "", ".config/app.yml": "", "sub/.hidden": "",
	"by-dotignore/x.txt": "", "rg-only.txt": "", "k.secret": "",

	"sub/.gitignore": "!app.log\nlocal/\n*.txt\n!keep.txt\n",
	"sub/app.log":    "", "sub/local/y.go": "", "other/local/w.go": "", "sub/a.txt": "", "sub/keep.txt": "",
	"sub/deeper/.ignore": "!*.txt\n",
	"sub/deeper/z.txt":   "",

	"vendor/lib/.git/HEAD":  "ref: refs/heads/main\n",
	"vendor/lib/.gitignore": "*.tmp\n",
	"vendor/lib/x.log":      "", "vendor/lib/y.tmp": "", "vendor/lib/c.swp": "", "vendor/lib/k.secret": "",
	"mod/.git":  "gitdir: ../.git/modules/mod\n",
	"mod/m.log": "",

	"a.swp": "", "sub/b.swp": "", "keep.swp": "", ".DS_Store": "", "global-dir/g.txt": "",
}

// globalExcludes is the fixture's git global excludes file.
const globalExcludes = "*.swp\n.DS_Store\nglobal-dir/\n"

// writeRgFixture writes rgFixture below a new workspace; every file but
// the ignore files and .git's holds "needle".
func writeRgFixture(t *testing.T) (*Workspace, string) {
	t.Helper()
	ws, root := newTestWS(t, nil)
	files := map[string]string{}
	for rel, content := range rgFixture {
		if content == "" {
			content = "a needle in " + rel + "\n"
		}
		files[rel] = content
	}
	writeFiles(t, root, files)
	return ws, root
}

// rgList runs ripgrep in root with args and returns the paths it prints,
// sorted, leaving out .git folders and files (which agentls never
// walks).
func rgList(t *testing.T, root string, args ...string) []string {
	t.Helper()
	requireProgram(t, "rg")
	cmd := exec.Command("rg", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil && len(out) > 0 {
		t.Fatalf("rg %q: %v", args, err)
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p != "" && !slices.Contains(strings.Split(p, "/"), ".git") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}

// withoutGit drops paths with a .git element, sorted.
func withoutGit(paths []string) []string {
	paths = slices.DeleteFunc(paths, func(p string) bool { return slices.Contains(strings.Split(p, "/"), ".git") })
	slices.Sort(paths)
	return paths
}

// agentlsFiles lists the files each walker of agentls finds below root.
func agentlsFiles(t *testing.T, ws *Workspace, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	_, err := ws.walk(context.Background(), root, nil, func(e walkEntry) walkAction {
		if !e.isDir {
			out["walk (ls)"] = append(out["walk (ls)"], e.rel)
		}
		return walkContinue
	})
	if err != nil {
		t.Fatal(err)
	}
	out["walkParallel (grep, glob)"] = parallelFiles(t, ws, root)
	for k, v := range out {
		out[k] = withoutGit(v)
	}
	return out
}

// TestSameFilesAsRipgrep compares the files agentls's walkers, glob and
// grep find with `rg --files --hidden` and `rg -l --hidden`, with git's
// global excludes file found either way ripgrep finds it.
func TestSameFilesAsRipgrep(t *testing.T) {
	requireProgram(t, "rg")
	for _, where := range []string{"xdg config", "core.excludesFile"} {
		t.Run(where, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			if where == "xdg config" {
				config := t.TempDir()
				t.Setenv("XDG_CONFIG_HOME", config)
				writeFiles(t, config, map[string]string{"git/ignore": globalExcludes})
			} else {
				t.Setenv("XDG_CONFIG_HOME", "")
				writeFiles(t, home, map[string]string{
					".gitconfig":  "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my-excludes\n",
					"my-excludes": globalExcludes,
				})
			}
			ws, root := writeRgFixture(t)
			want := rgList(t, root, "--files", "--hidden")
			if len(want) < 25 || slices.Contains(want, "a.swp") || !slices.Contains(want, "vendor/lib/x.log") {
				t.Fatalf("ripgrep did not read the fixture as expected (global excludes, nested repository): %q", want)
			}
			for name, got := range agentlsFiles(t, ws, root) {
				if !slices.Equal(got, want) {
					t.Errorf("%s differs from rg --files --hidden:\n only agentls: %q\n only rg:      %q", name, missing(want, got), missing(got, want))
				}
			}

			res := callTool(t, NewGlobTool(ws), globInput{Pattern: "**/*"})
			if got := withoutGit(strings.Split(res.Content, "\n")); !slices.Equal(got, want) {
				t.Errorf("glob **/* differs from rg --files --hidden:\n only agentls: %q\n only rg:      %q", missing(want, got), missing(got, want))
			}

			wantGrep := rgList(t, root, "-l", "--hidden", "needle")
			res = callTool(t, NewGrepTool(ws), grepInput{Pattern: "needle"})
			var gotGrep []string
			for _, line := range strings.Split(res.Content, "\n") {
				if p, ok := strings.CutSuffix(line, ":"); ok {
					gotGrep = append(gotGrep, p)
				}
			}
			if gotGrep = withoutGit(gotGrep); !slices.Equal(gotGrep, wantGrep) {
				t.Errorf("grep needle differs from rg -l --hidden needle:\n only agentls: %q\n only rg:      %q", missing(wantGrep, gotGrep), missing(gotGrep, wantGrep))
			}
		})
	}
}

// TestSameFilesAsRipgrepBelowRoot walks subfolders: the ignore files of
// the folders above still apply, as ripgrep reads its parents'.
func TestSameFilesAsRipgrepBelowRoot(t *testing.T) {
	requireProgram(t, "rg")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	ws, root := writeRgFixture(t)
	for _, sub := range []string{"sub", "sub/deeper", "vendor/lib", "docs", "cache"} {
		want := rgList(t, filepath.Join(root, sub), "--files", "--hidden")
		for name, got := range agentlsFiles(t, ws, filepath.Join(root, sub)) {
			if !slices.Equal(got, want) {
				t.Errorf("%s of %s differs from rg --files --hidden:\n only agentls: %q\n only rg:      %q", name, sub, missing(want, got), missing(got, want))
			}
		}
	}
}

// parallelFiles is every file walkParallel visits below base, but
// symbolic links: rg --files leaves them out, agentls lists them.
func parallelFiles(t *testing.T, ws *Workspace, base string) []string {
	t.Helper()
	var mu sync.Mutex
	var files []string
	_, err := ws.walkParallel(context.Background(), base, walkVisit{file: func(_ int, f walkFile) walkAction {
		if f.typ&os.ModeSymlink != 0 {
			return walkContinue
		}
		mu.Lock()
		files = append(files, f.rel())
		mu.Unlock()
		return walkContinue
	}})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// missing is what of b is not in a (both sorted).
func missing(a, b []string) []string {
	var out []string
	for _, x := range b {
		if _, found := slices.BinarySearch(a, x); !found {
			out = append(out, x)
		}
	}
	return out
}

// TestSameFilesAsRipgrepOnGoroot walks the Go source tree of the Go that
// runs the test (11,000+ files, nested vendor folders with .gitignore
// files, testdata with hidden files) as ripgrep does outside a git
// repository with --no-require-git (agentls reads .gitignore without a
// repository).
func TestSameFilesAsRipgrepOnGoroot(t *testing.T) {
	ws, src := gorootWorkspace(t)
	want := rgList(t, src, "--files", "--hidden", "--no-require-git")
	if len(want) < 5000 {
		t.Fatalf("rg found %d files in %s", len(want), src)
	}
	if got := withoutGit(parallelFiles(t, ws, src)); !slices.Equal(got, want) {
		t.Errorf("walkParallel of %s differs from rg:\n only agentls: %q\n only rg:      %q", src, missing(want, got), missing(got, want))
	}
}

// gorootWorkspace is a workspace over GOROOT/src, for comparing with
// rg, with no global excludes file (HOME is a new folder).
func gorootWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	requireProgram(t, "rg")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	src := filepath.Join(goroot(t), "src")
	ws, err := NewWorkspace([]string{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, src
}

// goroot is the Go installation's root.
func goroot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, "src")); err != nil {
		t.Fatalf("no Go source tree in GOROOT: %v", err)
	}
	return root
}
