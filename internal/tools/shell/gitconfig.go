package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/textclip"

	"github.com/agentls/agentls/internal/tools/confine"
)

// GitRunner runs git for the judge — `git ARGS` in dir, the hardened way
// (GitEnv: no global or system configuration, nothing that runs a
// program) — and returns its standard output. Only git itself reads a
// repository's configuration as git will: a reader of agentls's own would
// differ from it somewhere (a byte-order mark, a comment ending in a
// backslash, `[diff "]"]`) and a hostile repository would hide a program
// there.
type GitRunner func(dir string, args ...string) ([]byte, error)

// GitEnv is the environment entries a GitRunner adds for every git the
// judge runs: the global and system configuration are not read (they are
// the person's, and reading them is a read outside the workspace), and
// gitReadOnlyEnv's overrides apply.
func GitEnv() []string {
	return append([]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_TERMINAL_PROMPT=0"}, gitReadOnlyEnv()...)
}

// execGit is the GitRunner where none is given: git from PATH, run
// directly with GitEnv over an empty environment but PATH, for at most
// ten seconds. `git config --list` and `git rev-parse` run no program the
// repository names.
func execGit(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, GitEnv()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// gitReadOnlyEnv is added to the environment of every git command run as
// read-only: configuration that could name a program is switched off for
// what git lets an environment override, implicit bare repositories (a
// repository layout committed as plain files) are refused, and git takes
// no optional locks and fetches no missing objects.
func gitReadOnlyEnv() []string {
	pairs := [][2]string{
		{"core.fsmonitor", "false"},
		{"core.pager", "cat"},
		{"safe.bareRepository", "explicit"},
		{"core.hooksPath", os.DevNull},
		{"log.showSignature", "false"},
	}
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(pairs)), "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1", "GIT_PAGER=cat"}
	for i, p := range pairs {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, p[1]))
	}
	return env
}

// gitRepo is what git, run in the checker's folder, works on.
type gitRepo struct {
	top       string // the work tree's top ("" for a bare repository)
	gitDir    string
	commonDir string
}

// gitConfigWhy says why git run in the checker's folder might run a
// program named by the repository's own configuration (which a hostile
// repository controls) — its configuration read by git itself, with what
// it includes, and every submodule's — or "" when it names none. A
// repository whose git files lie elsewhere (a .git file or link, a
// commondir, alternates) makes git read outside: those places are
// recorded as reads.
func (c *checker) gitConfigWhy(r *report) string {
	if c.dir == "" {
		return "the repository's configuration cannot be checked without a working folder"
	}
	dotgit, found := findDotGit(c.dir)
	if !found {
		if bare, ok := bareLayoutAbove(c.dir); ok {
			return fmt.Sprintf("%s is laid out as a bare git repository; git would use its configuration", bare)
		}
		return "" // no repository: git reads no repository configuration
	}
	run := c.runGit
	if run == nil {
		run = execGit
	}
	repo, err := gitRepoOf(run, c.dir)
	if err != nil {
		return "git cannot read the repository here: " + err.Error()
	}
	// Where git's files are, against where the repository seems to be:
	// a .git file or link, a commondir or alternates leading out.
	area := []string{filepath.Dir(dotgit)}
	for _, p := range []string{repo.gitDir, repo.commonDir} {
		if p != "" && !c.inRepoArea(area, p) {
			c.addPath(r, &r.reads, p)
		}
	}
	for _, alt := range alternates(repo.commonDir) {
		if !c.inRepoArea(area, alt) {
			c.addPath(r, &r.reads, alt)
		}
	}
	out, err := run(c.dir, "config", "--list", "--show-scope", "-z", "--includes")
	if err != nil {
		return "git cannot read the repository's configuration: " + err.Error()
	}
	if why := gitConfigRisk(out, true); why != "" {
		return why
	}
	for _, f := range submoduleConfigs(repo.commonDir) {
		out, err := run(c.dir, "config", "--file", f, "--list", "-z", "--includes")
		if err != nil {
			return "git cannot read the submodule configuration " + f + ": " + err.Error()
		}
		if why := gitConfigRisk(out, false); why != "" {
			return f + ": " + why
		}
	}
	return ""
}

// inRepoArea reports whether p lies in the workspace or in the folder
// holding the repository's .git.
func (c *checker) inRepoArea(area []string, p string) bool {
	if c.roots != nil && confine.Inside(c.roots, c.dir, p) {
		return true
	}
	real, ok := confine.Resolve(c.dir, p)
	if !ok {
		return false
	}
	for _, a := range area {
		if ra, ok := confine.Resolve("", a); ok && confine.Within(ra, real) {
			return true
		}
	}
	return false
}

// findDotGit looks up from dir for the .git entry git would find.
func findDotGit(dir string) (string, bool) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if _, err := os.Lstat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// bareLayoutAbove finds a folder from dir up that looks like a git
// directory to git's discovery (HEAD, objects/ and refs/): git would use
// it as a bare repository were it not refused.
func bareLayoutAbove(dir string) (string, bool) {
	for d := dir; ; {
		if bareLayout(d) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// bareLayout reports whether d looks like a git directory.
func bareLayout(d string) bool {
	head, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// gitRepoOf asks git where the repository's files are.
func gitRepoOf(run GitRunner, dir string) (gitRepo, error) {
	out, err := run(dir, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-bare-repository")
	if err != nil {
		return gitRepo{}, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 {
		return gitRepo{}, errors.New("git rev-parse answered " + strconvQuote(string(out)))
	}
	repo := gitRepo{gitDir: lines[0], commonDir: lines[1]}
	if !filepath.IsAbs(repo.commonDir) {
		repo.commonDir = filepath.Join(dir, repo.commonDir)
	}
	if lines[2] != "true" {
		if top, err := run(dir, "rev-parse", "--show-toplevel"); err == nil {
			repo.top = strings.TrimSpace(string(top))
		}
	}
	return repo, nil
}

// alternates are the object folders the repository borrows objects from
// (objects/info/alternates: one folder a line, relative to objects/).
func alternates(commonDir string) []string {
	if commonDir == "" {
		return nil
	}
	objects := filepath.Join(commonDir, "objects")
	b, err := readLimited(filepath.Join(objects, "info", "alternates"), 64<<10)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		out = append(out, line)
	}
	return out
}

// maxSubmodules bounds the submodule configurations read for one command.
const maxSubmodules = 256

// submoduleConfigs are the configuration files of the repository's
// submodules (modules/NAME/config, nested ones too).
func submoduleConfigs(commonDir string) []string {
	if commonDir == "" {
		return nil
	}
	var out []string
	_ = filepath.WalkDir(filepath.Join(commonDir, "modules"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(out) >= maxSubmodules:
			return filepath.SkipDir
		case d.Name() == "objects" || d.Name() == "refs" || d.Name() == "logs":
			return filepath.SkipDir
		case !d.IsDir() && d.Name() == "config":
			out = append(out, p)
		}
		return nil
	})
	return out
}

// gitConfigRisk reads `git config --list -z` output (with --show-scope
// when scoped: scope\0key\nvalue\0 …) and returns the first setting that
// names a program git may run, another work tree or a file it reads as
// configuration; "" when there is none. Settings agentls itself gives on
// the command line (the "command" scope) are its own.
func gitConfigRisk(out []byte, scoped bool) string {
	recs := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	step := 1
	if scoped {
		step = 2
	}
	for i := 0; i+step <= len(recs); i += step {
		if scoped && string(recs[i]) == "command" {
			continue
		}
		if why := gitEntryRisk(string(recs[i+step-1])); why != "" {
			return why
		}
	}
	return ""
}

// gitEntryRisk judges one "section.sub.key\nvalue" entry as git printed
// it: section and key lower-cased, the subsection as written.
func gitEntryRisk(entry string) string {
	name, value, hasValue := strings.Cut(entry, "\n")
	if !hasValue {
		value = "true"
	}
	first := strings.IndexByte(name, '.')
	last := strings.LastIndexByte(name, '.')
	if first < 0 {
		return ""
	}
	section, key, sub := name[:first], name[last+1:], ""
	if last > first {
		sub = name[first+1 : last]
	}
	return riskyGitKey(section, sub, key, value)
}

// riskyGitKey names settings that make read-only git commands run a
// program, read other files as configuration, or work elsewhere.
func riskyGitKey(section, sub, key, value string) string {
	name := section + "." + key
	if sub != "" {
		name = section + "." + sub + "." + key
	}
	risky := false
	switch section {
	case "core":
		switch key {
		case "fsmonitor":
			v := strings.ToLower(value)
			risky = v != "false" && v != "0" && v != "no" && v != "off" && v != "true" && v != "1" && v != "yes" && v != "on" && v != ""
		case "pager", "editor", "sshcommand", "askpass", "hookspath", "gitproxy", "alternaterefscommand", "worktree":
			risky = true
		}
	case "diff":
		risky = key == "external" || (sub != "" && (key == "textconv" || key == "command"))
	case "filter", "pager", "include", "includeif", "credential", "trailer":
		risky = true
	case "merge":
		risky = sub != "" && key == "driver"
	case "gpg":
		risky = key == "program"
	case "uploadpack":
		risky = key == "packobjectshook"
	case "sequence", "interactive":
		risky = key == "editor" || key == "difffilter"
	case "log":
		risky = key == "showsignature"
	case "remote":
		risky = key == "uploadpack" || key == "receivepack" || key == "vcs"
	case "mailmap":
		risky = key == "file"
	case "submodule":
		risky = key == "update" && strings.HasPrefix(value, "!")
	}
	if risky {
		return fmt.Sprintf("the repository's configuration sets %s, which can make git run a program or read other files", name)
	}
	return ""
}

// readLimited reads at most limit bytes of a file; a longer one is an
// error.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// strconvQuote quotes s for a message, short.
func strconvQuote(s string) string { return fmt.Sprintf("%q", textclip.Bytes(s, 80, "…")) }
