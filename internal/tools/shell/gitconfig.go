package shell

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxGitConfig bounds a repository configuration file the judge reads.
const maxGitConfig = 1 << 20

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

// gitConfigWhy says why git run in the checker's folder might run a
// program named by the repository's own configuration (which a hostile
// repository controls), or "" when its configuration names none.
func (c *checker) gitConfigWhy() string {
	if c.dir == "" {
		return "the repository's configuration cannot be checked without a working folder"
	}
	for d := c.dir; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			return gitDirWhy(d, dotgit, fi)
		}
		if bareLayout(d) {
			return fmt.Sprintf("%s is laid out as a bare git repository; git would use its configuration", d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// gitDirWhy checks the configuration files of the repository whose .git
// entry is dotgit.
func gitDirWhy(worktree, dotgit string, fi os.FileInfo) string {
	gitdir := dotgit
	if fi.Mode().IsRegular() {
		b, err := readLimited(dotgit, 4096)
		if err != nil {
			return fmt.Sprintf("%s cannot be read: %v", dotgit, err)
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return fmt.Sprintf("%s is not a gitdir file", dotgit)
		}
		gitdir = strings.TrimSpace(target)
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(worktree, gitdir)
		}
	}
	files := []string{filepath.Join(gitdir, "config"), filepath.Join(gitdir, "config.worktree")}
	if b, err := readLimited(filepath.Join(gitdir, "commondir"), 4096); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		files = append(files, filepath.Join(common, "config"), filepath.Join(common, "config.worktree"))
	}
	for _, f := range files {
		b, err := readLimited(f, maxGitConfig)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Sprintf("%s cannot be read: %v", f, err)
		}
		if why := gitConfigRisk(b); why != "" {
			return fmt.Sprintf("%s: %s", f, why)
		}
	}
	return ""
}

// bareLayout reports whether d looks like a git directory to git's
// discovery (HEAD, objects/ and refs/).
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

// gitConfigRisk returns the first setting of a git configuration file
// that names a program git may run, a file it includes, or another work
// tree; "" when there is none. A file it cannot read is a risk.
func gitConfigRisk(data []byte) string {
	section, sub := "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), maxGitConfig)
	cont := false // the previous line's value goes on (a trailing backslash)
	for sc.Scan() {
		raw := sc.Text()
		wasCont := cont
		cont = continues(raw)
		if wasCont {
			continue
		}
		line := strings.TrimSpace(raw)
		for strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "a section header cannot be read"
			}
			section, sub = splitSection(line[1:end])
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key := line
		if i := strings.IndexAny(line, "= \t#;"); i >= 0 {
			key = line[:i]
		}
		if why := riskyGitKey(section, sub, strings.ToLower(key), line); why != "" {
			return why
		}
	}
	if sc.Err() != nil {
		return "it cannot be read: " + sc.Err().Error()
	}
	return ""
}

// continues reports whether a line ends in an unescaped backslash, which
// makes git read the next line as part of the same value.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitSection reads `core`, `diff "x"` or the old `diff.x` form.
func splitSection(h string) (string, string) {
	h = strings.TrimSpace(h)
	if i := strings.IndexAny(h, " \t"); i >= 0 {
		return strings.ToLower(h[:i]), strings.Trim(strings.TrimSpace(h[i:]), `"`)
	}
	if i := strings.IndexByte(h, '.'); i >= 0 {
		return strings.ToLower(h[:i]), h[i+1:]
	}
	return strings.ToLower(h), ""
}

// riskyGitKey names settings that make read-only git commands run a
// program, read other files as configuration, or work elsewhere.
func riskyGitKey(section, sub, key, line string) string {
	name := section + "." + key
	if sub != "" {
		name = section + "." + sub + "." + key
	}
	risky := false
	switch section {
	case "core":
		switch key {
		case "fsmonitor":
			v := strings.ToLower(gitValue(line))
			risky = v != "false" && v != "0" && v != "no" && v != "off" && v != "true" && v != "1" && v != "yes" && v != "on"
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
	}
	if risky {
		return fmt.Sprintf("the repository's configuration sets %s, which can make git run a program or read other files", name)
	}
	return ""
}

// gitValue returns a setting's value without quotes and trailing comment.
func gitValue(line string) string {
	_, v, ok := strings.Cut(line, "=")
	if !ok {
		return "true"
	}
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, `"`) {
		v = strings.TrimSpace(v[:i])
	}
	return strings.Trim(v, `"`)
}
