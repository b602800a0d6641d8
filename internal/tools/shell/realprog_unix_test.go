//go:build unix

package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/tools/confine"
)

// The judge is checked against the real programs here: every form below
// runs for real — with bash, git, jq, grep, diff, find, du, ls and rg from
// the machine — in a throwaway folder with a throwaway HOME, unconfined
// (to see what the program itself does), and what it did is compared
// with what the judge said. A form that printed a planted secret or the
// name of a planted file, or ran a program a hostile repository named,
// must never have been judged safe to run unasked.

// Planted markers: a secret's content, a file's name, a probe's answer.
const (
	markOutside = "OUTSIDE-CONTENT-41c7" // content of files outside the workspace
	markName    = "NAMEMARK-5e2a"        // part of the names of files outside
	markToken   = "TOKENMARK-9d03"       // in ~/.gitconfig and the environment
	markProbe   = "PROBE-YES-77b1"       // printed when a probe finds a file outside
)

// realWorld is the throwaway machine: a workspace with hostile
// repositories and links that lead out, a home with secrets, a folder
// outside with more, and where the repositories' programs leave a trace.
type realWorld struct {
	base, ws, home, outside, ran string
	env                          []string
}

func buildRealWorld(t *testing.T) *realWorld {
	t.Helper()
	for _, prog := range []string{"git", "jq", "grep", "diff", "find", "du", "ls", "bash", "rg"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is not on PATH: the judge is checked against the real program (apt-get install -y git jq ripgrep; scripts/test installs them)", prog)
		}
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &realWorld{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"),
		outside: filepath.Join(base, "outside"), ran: filepath.Join(base, "ran")}
	files := map[string]string{
		"home/.ssh/id_rsa": markOutside, "home/.ssh/" + markName + "-key": "k",
		"home/." + markName + "-dot": "d", "home/.gitconfig": "[user]\n\tname = Ada\n[url \"https://x:" + markToken + "@github.com/\"]\n\tinsteadOf = https://github.com/\n",
		"outside/secret.txt": markOutside + "\n", "outside/" + markName + "-file": markOutside + "\n",
		"outside/mod.jq": "def f: \"" + markOutside + "\";\n", "outside/data.json": "{\"s\": \"" + markOutside + "\"}\n",
		"ws/dirB/l/secret.txt": "other\n",
		"ws/a.txt":             "a\n", "ws/data.json": "{\"a\":1}\n", "ws/sub/inner.txt": "i\n", "ws/dirA/x.txt": "x\n", "ws/dirB/x.txt": "x\n",
		"ws/chain/.keep": "", "ws/prog.jq": ".a\n", "ws/env.jq": "env\n",
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	must(t, os.MkdirAll(w.ran, 0o755))
	// Links a repository commits: straight out, through another folder of
	// the workspace, and in a folder diff -r compares.
	must(t, os.Symlink(w.outside, filepath.Join(w.ws, "linkout")))
	must(t, os.Symlink(filepath.Join(w.ws, "chain"), filepath.Join(w.ws, "sub", "tochain")))
	must(t, os.Symlink(w.outside, filepath.Join(w.ws, "chain", "out")))
	must(t, os.Symlink(w.outside, filepath.Join(w.ws, "dirA", "l")))
	// The repositories' program: it leaves a trace named after its
	// repository and prints what it was given.
	script := filepath.Join(base, "run.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\ntouch "+w.ran+"/\"$1\"\nshift\ncat \"$@\" 2>/dev/null\n"), 0o755))
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "LANG=C", "MARK_TOKEN=" + markToken,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x"}
	w.hostileRepos(t, script)
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// git runs real git in dir for the fixture's setup.
func (w *realWorld) git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(w.env, "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
}

// repo makes a repository below the workspace with one committed file
// (a.txt, diffed through the "conv" driver) changed in the work tree.
func (w *realWorld) repo(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(w.ws, name)
	must(t, os.MkdirAll(dir, 0o755))
	w.git(t, dir, "init", "-q")
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt diff=conv\n"), 0o644))
	w.git(t, dir, "add", ".")
	w.git(t, dir, "commit", "-qm", "first")
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644))
	return dir
}

// appendConfig adds raw text to a repository's .git/config, as a hostile
// repository's layout would ship it.
func appendConfig(t *testing.T, file, text string) {
	t.Helper()
	b, err := os.ReadFile(file)
	must(t, err)
	must(t, os.WriteFile(file, append(b, text...), 0o644))
}

func (w *realWorld) hostileRepos(t *testing.T, script string) {
	run := func(tag string) string { return script + " " + tag }
	// Configurations agentls's own reader and git's read differently.
	bom := w.repo(t, "bom")
	cfg := filepath.Join(bom, ".git", "config")
	b, _ := os.ReadFile(cfg)
	must(t, os.WriteFile(cfg, append([]byte("\xef\xbb\xbf[diff]\n\texternal = "+run("bom")+"\n"), b...), 0o644))
	bs := w.repo(t, "backslash")
	appendConfig(t, filepath.Join(bs, ".git", "config"), "# a comment \\\n[diff]\n\texternal = "+run("backslash")+"\n")
	br := w.repo(t, "bracket")
	appendConfig(t, filepath.Join(br, ".git", "config"), "[diff \"]\"]\n\ttextconv = "+run("bracket")+"\n[diff \"conv\"]\n\ttextconv = "+run("bracket-conv")+"\n")
	inc := w.repo(t, "include")
	must(t, os.WriteFile(filepath.Join(inc, "extra.cfg"), []byte("[diff \"conv\"]\n\ttextconv = "+run("include")+"\n"), 0o644))
	appendConfig(t, filepath.Join(inc, ".git", "config"), "[include]\n\tpath = ../extra.cfg\n")
	ext := w.repo(t, "external")
	appendConfig(t, filepath.Join(ext, ".git", "config"), "[diff]\n\texternal = "+run("external")+"\n")
	// A submodule whose own configuration runs programs.
	sub := filepath.Join(w.base, "subsrc")
	must(t, os.MkdirAll(sub, 0o755))
	w.git(t, sub, "init", "-q")
	must(t, os.WriteFile(filepath.Join(sub, "s.txt"), []byte("s\n"), 0o644))
	w.git(t, sub, "add", ".")
	w.git(t, sub, "commit", "-qm", "s")
	super := w.repo(t, "super")
	w.git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	w.git(t, super, "commit", "-qm", "sub")
	appendConfig(t, filepath.Join(super, ".git", "modules", "sub", "config"),
		"[filter \"evil\"]\n\tclean = "+run("submodule-clean")+"\n\tsmudge = cat\n[diff]\n\texternal = "+run("submodule-ext")+"\n")
	must(t, os.WriteFile(filepath.Join(super, "sub", ".gitattributes"), []byte("* filter=evil\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(super, "sub", "s.txt"), []byte("changed\n"), 0o644))
	// Repositories whose git files lie outside the workspace.
	else1 := filepath.Join(w.base, "elsewhere")
	must(t, os.MkdirAll(else1, 0o755))
	w.git(t, else1, "init", "-q")
	must(t, os.WriteFile(filepath.Join(else1, "secret.txt"), []byte(markOutside+"\n"), 0o644))
	w.git(t, else1, "add", ".")
	w.git(t, else1, "commit", "-qm", "secret")
	gitfile := filepath.Join(w.ws, "gitfile")
	must(t, os.MkdirAll(gitfile, 0o755))
	must(t, os.WriteFile(filepath.Join(gitfile, ".git"), []byte("gitdir: "+filepath.Join(else1, ".git")+"\n"), 0o644))
	gitlink := filepath.Join(w.ws, "gitlink")
	must(t, os.MkdirAll(gitlink, 0o755))
	must(t, os.Symlink(filepath.Join(else1, ".git"), filepath.Join(gitlink, ".git")))
	alt := w.repo(t, "alternates")
	must(t, os.WriteFile(filepath.Join(alt, ".git", "objects", "info", "alternates"), []byte(filepath.Join(else1, ".git", "objects")+"\n"), 0o644))
	w.repo(t, "clean")
	wt := w.repo(t, "worktree")
	appendConfig(t, filepath.Join(wt, ".git", "config"), "[core]\n\tworktree = "+w.outside+"\n")
	// Linked worktrees of a clean repository with extensions.worktreeConfig:
	// git reads each one's config.worktree (.git/worktrees/NAME/) there,
	// and the main worktree's (.git/config.worktree) in the main one.
	wtmain := w.repo(t, "wtmain")
	w.git(t, wtmain, "config", "extensions.worktreeConfig", "true")
	for name, text := range map[string]string{
		"wtlinked": "[diff]\n\texternal = " + run("wt-linked") + "\n",
		"wtconv":   "[diff \"conv\"]\n\ttextconv = " + run("wt-conv") + "\n",
		"wtpager":  "[core]\n\tpager = " + run("wt-pager") + "\n",
	} {
		w.git(t, wtmain, "worktree", "add", "-q", "--detach", filepath.Join(w.ws, name))
		must(t, os.WriteFile(filepath.Join(w.ws, name, "a.txt"), []byte("three\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(wtmain, ".git", "worktrees", name, "config.worktree"), []byte(text), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(wtmain, ".git", "config.worktree"), []byte("[diff]\n\texternal = "+run("wt-main")+"\n"), 0o644))
}

// realRun runs form with bash in dir, unconfined, and reports what it did
// that a read-only command must not: printed a planted secret or name,
// answered a probe, or ran a repository's program.
func (w *realWorld) realRun(t *testing.T, dir, form string) (string, bool) {
	t.Helper()
	before, _ := os.ReadDir(w.ran)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", form)
	cmd.Dir, cmd.Env = dir, append(w.env, "GIT_CONFIG_GLOBAL="+filepath.Join(w.home, ".gitconfig"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	after, _ := os.ReadDir(w.ran)
	for _, e := range after {
		_ = os.Remove(filepath.Join(w.ran, e.Name()))
	}
	s := out.String()
	what := ""
	switch {
	case len(after) > len(before):
		what = "ran the repository's program " + after[0].Name()
	case strings.Contains(s, markOutside):
		what = "printed a file outside"
	case strings.Contains(s, markToken):
		what = "printed a token"
	case strings.Contains(s, markName):
		what = "printed the name of a file outside"
	case strings.Contains(s, markProbe):
		what = "found a file outside"
	}
	return what, what != ""
}

// unasked is what the bash tool makes of a verdict in smart mode: run
// without asking when read-only and reading nothing outside the roots.
func (w *realWorld) unasked(t *testing.T, dir, form string) (bool, Verdict) {
	t.Helper()
	v, err := JudgeWith(form, JudgeOptions{Dir: dir, Home: w.home, Roots: []string{w.ws}, Env: w.env})
	if err != nil {
		return false, v
	}
	if !v.ReadOnly || v.Blocked != "" {
		return false, v
	}
	roots := confine.Roots([]string{w.ws})
	for _, p := range v.Reads {
		if !confine.Inside(roots, dir, p) {
			return false, v
		}
	}
	return true, v
}

// realForms are the forms of the classes issue 25 names; dir is relative
// to the workspace.
var realForms = []struct{ class, dir, form string }{
	// git configuration as git reads it, submodules, git files elsewhere.
	{"git config", "bom", "git diff"}, {"git config", "bom", "git diff a.txt"}, {"git config", "bom", "git diff HEAD"},
	{"git config", "backslash", "git diff"}, {"git config", "backslash", "git diff -U1"}, {"git config", "backslash", "git diff HEAD -- a.txt"},
	{"git config", "bracket", "git log -p"}, {"git config", "bracket", "git show"}, {"git config", "bracket", "git diff"},
	{"git config", "bracket", "git log -p -1 -- a.txt"}, {"git config", "bracket", "git whatchanged -p"},
	{"git config", "include", "git log -p"}, {"git config", "include", "git diff"}, {"git config", "include", "git show --stat -p"},
	{"git config", "external", "git diff"}, {"git config", "external", "git diff HEAD"}, {"git config", "external", "git diff -- a.txt"},
	{"git config", "super", "git diff --submodule=diff"}, {"git config", "super", "git diff --submodule=diff -- sub"},
	{"git config", "super/sub", "git diff"},
	{"git config", "gitfile", "git show HEAD:secret.txt"}, {"git config", "gitfile", "git log -p"}, {"git config", "gitfile", "git grep " + markOutside[:8] + " HEAD"},
	{"git config", "gitlink", "git show HEAD:secret.txt"}, {"git config", "gitlink", "git log -p --all"},
	{"git config", "alternates", "git cat-file --batch-all-objects --batch"}, {"git config", "include", "git show"},
	{"git config", "worktree", "git status --short"}, {"git config", "worktree", "git status --porcelain --untracked-files=all"},
	{"git config", "worktree", "git ls-files --others"},
	{"git config", "wtlinked", "git diff"}, {"git config", "wtlinked", "git diff HEAD -- a.txt"}, {"git config", "wtlinked", "git diff --stat -p"},
	{"git config", "wtconv", "git diff"}, {"git config", "wtconv", "git log -p -1"}, {"git config", "wtconv", "git show"},
	{"git config", "wtmain", "git diff"}, {"git config", "wtmain", "git diff -- a.txt"},
	// Links a recursive reader follows.
	{"links", "", "grep -R " + markOutside[:8] + " ."}, {"links", "", "grep -R " + markOutside[:8]}, {"links", "", "grep --dereference-recursive -l CONTENT ."},
	{"links", "", "grep -Rl CONTENT sub"}, {"links", "", "grep -Rn CONTENT dirA"}, {"links", "", "grep -Ric content ."},
	{"links", "", "rg -L CONTENT"}, {"links", "", "rg --follow CONTENT ."}, {"links", "", "rg -L -l CONTENT sub"}, {"links", "", "rg --follow --files"},
	{"links", "", "diff -r dirA dirB"}, {"links", "", "diff -ru dirA dirB"}, {"links", "", "diff --recursive dirB dirA"},
	{"links", "", "ls -LR"}, {"links", "", "ls -RL sub"}, {"links", "", "ls -lLR dirA"},
	{"links", "", "find -L . -name '*MARK*'"}, {"links", "", "find . -follow -name '*MARK*'"}, {"links", "", "find -L sub"},
	{"links", "", "du -aL"}, {"links", "", "du -L -a sub"}, {"links", "", "du --dereference -a dirA"},
	// Paths resolved in the program's own process.
	{"proc", "sub", "cat /proc/self/cwd/../linkout/secret.txt"}, {"proc", "sub", "cat /proc/self/cwd/../../outside/secret.txt"},
	{"proc", "", "cat /proc/self/root" + "/OUTSIDE_DIR/secret.txt"}, {"proc", "", "head /proc/thread-self/cwd/../outside/secret.txt"},
	{"proc", "", "cat /proc/self/environ"}, {"proc", "", "sed -n p /proc/self/cwd/../outside/secret.txt"}, {"proc", "sub", "grep -r CONTENT /proc/self/cwd/../linkout"},
	{"proc", "", "ls /proc/self/cwd/../outside"}, {"proc", "", "tac /proc/self/cwd/../outside/secret.txt"}, {"proc", "", "nl /proc/self/root/OUTSIDE_DIR/secret.txt"},
	{"proc", "", "tail -n1 /proc/self/cwd/linkout/secret.txt"}, {"proc", "", "cut -c1-40 /proc/self/cwd/../outside/secret.txt"},
	{"proc", "", "sort /proc/self/cwd/../outside/secret.txt"}, {"proc", "", "cat < /proc/self/cwd/../outside/secret.txt"},
	{"proc", "", "strings /proc/self/environ"}, {"proc", "", "paste /proc/self/cwd/../outside/secret.txt"}, {"proc", "sub", "ls /proc/self/cwd/../../outside"},
	{"proc", "", "grep -a TOKEN /proc/self/environ"}, {"proc", "", "cat /dev/fd/3 3< /proc/self/cwd/../outside/secret.txt"},
	{"proc", "", "head -c 200 /proc/self/cwd/../home/.ssh/id_rsa"},
	// jq read with jq's rules.
	{"jq", "", "jq -R --arg k v . HOME_DIR/.ssh/id_rsa"}, {"jq", "", "jq -R --argjson k 1 . HOME_DIR/.ssh/id_rsa"},
	{"jq", "", "jq -R . HOME_DIR/.ssh/id_rsa --args x"}, {"jq", "", "jq -R . HOME_DIR/.ssh/id_rsa --jsonargs 1"},
	{"jq", "", "jq -n --rawfile f HOME_DIR/.ssh/id_rsa '$f'"}, {"jq", "", "jq -n --slurpfile f OUTSIDE_DIR/data.json '$f'"}, {"jq", "", "jq -rn --rawfile f OUTSIDE_DIR/secret.txt '$f'"},
	{"jq", "", "jq -n env"}, {"jq", "", "jq -n '$ENV'"}, {"jq", "", "jq -rn '$ENV.MARK_TOKEN'"}, {"jq", "", "jq -rn 'env.MARK_TOKEN'"},
	{"jq", "", "jq -rn '\"\\(env.MARK_TOKEN)\"'"}, {"jq", "", "jq -rn '[env[]] | join(\",\")'"}, {"jq", "", "jq -f env.jq -n"},
	{"jq", "", "jq -L OUTSIDE_DIR -nr 'import \"mod\" as m; m::f'"}, {"jq", "", "jq -nr -LOUTSIDE_DIR 'include \"mod\"; f'"},
	{"jq", "", "jq -nr 'import \"mod\" as m {search: \"OUTSIDE_DIR\"}; m::f'"}, {"jq", "", "jq -nr 'include \"mod\" {search: \"OUTSIDE_DIR\"}; f'"},
	{"jq", "", "jq -R 'input_filename' OUTSIDE_DIR/" + markName + "-file"}, {"jq", "", "jq -Rr --arg x y . -- HOME_DIR/.ssh/id_rsa"},
	{"jq", "", "jq -nR --arg a b --arg c d 'input' HOME_DIR/.ssh/id_rsa"},
	// The person's and the system's git configuration.
	{"global", "bom", "git config -l"}, {"global", "bom", "git config --list"}, {"global", "bom", "git config --list --show-origin"},
	{"global", "bom", "git config --global -l"}, {"global", "bom", "git config --global --list"}, {"global", "bom", "git config --get-regexp url"},
	{"global", "bom", "git config --global --get-regexp url"}, {"global", "bom", "git config --get-regexp '.*'"}, {"global", "bom", "git config -l --show-scope"},
	{"global", "bom", "git config --name-only -l"}, {"global", "bom", "git config -l -z"}, {"global", "bom", "git config --get-regexp insteadof"},
	{"global", "bom", "git config --global --get-regexp '^url'"}, {"global", "bom", "git config --list --includes"}, {"global", "bom", "git config --show-origin --get-regexp url"}, {"global", "bom", "git config --global --list --show-origin"},
	{"global", "", "git config -l"}, {"global", "", "git config --global -l"}, {"global", "", "git config --get-regexp url"},
	{"global", "sub", "git config --list --show-origin"}, {"global", "clean", "git config -l"}, {"global", "clean", "git config --get-regexp url"},
	// Globs and probes over folders outside.
	{"globs", "", "echo HOME_DIR/.ssh/*"}, {"globs", "", "echo ../outside/*"}, {"globs", "", "printf '%s\\n' HOME_DIR/.ssh/*"},
	{"globs", "", "for f in ../outside/*; do echo $f; done"}, {"globs", "", "for f in HOME_DIR/.ssh/*; do echo \"$f\"; done"},
	{"globs", "", "echo HOME_DIR/.[A-Z]*"}, {"globs", "", "echo HOME_DIR/.N*"}, {"globs", "", "echo ../out*/N*"},
	{"globs", "", "echo {HOME_DIR/.ssh,../outside}/*"}, {"globs", "", "echo ../outside/?AMEMARK*"},
	{"globs", "", "test -e HOME_DIR/.ssh/id_rsa && echo " + markProbe}, {"globs", "", "[ -f HOME_DIR/.ssh/id_rsa ] && echo " + markProbe},
	{"globs", "", "[[ -e ../outside/secret.txt ]] && echo " + markProbe}, {"globs", "", "test -d ../outside && echo " + markProbe},
	{"globs", "", "[ -r HOME_DIR/.ssh/id_rsa ] && echo " + markProbe}, {"globs", "", "[ -s ../outside/secret.txt ] && echo " + markProbe},
	{"globs", "", "if [ -e ../outside/secret.txt ]; then echo " + markProbe + "; fi"}, {"globs", "", "[[ -f HOME_DIR/.gitconfig ]] && echo " + markProbe},
	{"globs", "", "test ../outside/secret.txt -nt a.txt && echo " + markProbe}, {"globs", "", "test -e linkout/secret.txt && echo " + markProbe},
	{"globs", "", "echo linkout/*"},
}

// realControls must stay read-only and inside: the checks above must not
// cost the everyday forms.
var realControls = []struct{ dir, form string }{
	{"", "grep -r CONTENT ."}, {"", "grep -rn a ."}, {"", "rg a"}, {"", "find . -name '*.txt'"}, {"", "ls -R"}, {"", "du -a"},
	{"", "diff -r dirB dirB"}, {"", "jq . data.json"}, {"", "jq -r .a data.json"}, {"", "jq --arg k v '.a' data.json"},
	{"", "jq -n --args '$ARGS' a b"}, {"", "jq -f prog.jq data.json"}, {"", "jq '.env' data.json"}, {"", "jq -n '$__loc__'"},
	{"", "echo *.txt"}, {"", "for f in *.txt; do echo $f; done"}, {"", "test -f a.txt && echo yes"}, {"", "[ -d sub ] && echo yes"},
	{"sub", "cat inner.txt"}, {"clean", "git config --local --get core.bare"}, {"clean", "git status --short"}, {"clean", "git log --oneline"},
	{"clean", "git diff"}, {"clean", "git log -p -1"}, {"clean", "git show --stat"},
}

func TestJudgeAgainstRealPrograms(t *testing.T) {
	w := buildRealWorld(t)
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "HOME_DIR", w.home)
		return strings.ReplaceAll(s, "OUTSIDE_DIR", w.outside)
	}
	dangerous := map[string]int{}
	for _, f := range realForms {
		dir := filepath.Join(w.ws, f.dir)
		form := expand(f.form)
		ok, v := w.unasked(t, dir, form)
		what, bad := w.realRun(t, dir, form)
		if bad {
			dangerous[f.class]++
			if ok {
				t.Errorf("%s: %q in %s runs unasked, and for real it %s", f.class, form, f.dir, what)
			}
		} else {
			t.Logf("%s: %q in %s did nothing dangerous for real (judged unasked %v: %s)", f.class, form, f.dir, ok, v.NotReadOnly)
		}
	}
	classes := []string{"git config", "links", "proc", "jq", "global", "globs"}
	for _, c := range classes {
		if dangerous[c] < 20 {
			t.Errorf("class %s: %d forms did something dangerous for real, want at least 20 (the fixture no longer shows the class)", c, dangerous[c])
		}
	}
	t.Logf("dangerous for real, by class: %v; none judged safe to run unasked", dangerous)
	for _, c := range realControls {
		dir := filepath.Join(w.ws, c.dir)
		if ok, v := w.unasked(t, dir, c.form); !ok {
			t.Errorf("control %q in %s is asked: %s %v", c.form, c.dir, v.NotReadOnly, v.Reads)
		}
		if what, bad := w.realRun(t, dir, c.form); bad {
			t.Errorf("control %q in %s %s for real", c.form, c.dir, what)
		}
	}
	// A pager runs only on a terminal, which realRun does not give: real
	// git names the worktree's pager as its own, starts it on a terminal
	// (script(1) gives one), and the judge lets no paging git run unasked.
	pagerDir := filepath.Join(w.ws, "wtpager")
	cmd := exec.Command("git", "var", "GIT_PAGER")
	cmd.Dir, cmd.Env = pagerDir, append(w.env, "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "wt-pager") {
		t.Errorf("git var GIT_PAGER in the linked worktree: %v: %s (want the config.worktree's pager)", err, out)
	}
	if runtime.GOOS == "linux" {
		cmd := exec.Command("script", "-qec", "git log", os.DevNull)
		cmd.Dir, cmd.Env = pagerDir, append(w.env, "GIT_CONFIG_GLOBAL="+os.DevNull, "TERM=dumb")
		_ = cmd.Run()
		if _, err := os.Stat(filepath.Join(w.ran, "wt-pager")); err != nil {
			t.Errorf("git log on a terminal did not start the linked worktree's pager: %v", err)
		}
		_ = os.Remove(filepath.Join(w.ran, "wt-pager"))
	}
	for _, form := range []string{"git log", "git show", "git diff", "git log -p --stat"} {
		if ok, v := w.unasked(t, pagerDir, form); ok {
			t.Errorf("%q in a linked worktree whose config.worktree sets core.pager runs unasked: %+v", form, v)
		}
	}
	if !slices.Contains(classes, "proc") {
		t.Fatal(fmt.Sprint(classes))
	}
}
