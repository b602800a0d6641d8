package app

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/skills"
	"github.com/agentls/agentls/internal/tools"
)

// skills are the skills there are now: the user's own (the skills folder
// beside the config file, ~/.config/agentls/skills) first, then each
// workspace folder's .agents/skills and .claude/skills, read as agentls
// reads any workspace file. A name belongs to the first that has it, so a
// repository cannot replace one of the person's skills. A skill of an
// untrusted folder is marked so, and framed as information; nothing in a
// skill reaches the gate, the settings or the tool set.
func (e *Env) skills() skills.Set {
	var srcs []skills.Source
	if p := e.app.opts.ConfigPath; p != "" {
		dir := filepath.Join(filepath.Dir(p), "skills")
		srcs = append(srcs, skills.Source{Dir: dir, Shown: dir, User: true, Read: userFiles{dir}})
	}
	for i, root := range e.ws.Roots() {
		trusted := e.Trusted(root)
		for _, sub := range [...]string{".agents", ".claude"} {
			dir := filepath.Join(root, sub, "skills")
			shown := sub + "/skills" // as the model's relative paths name it
			if i > 0 {
				shown = dir
			}
			srcs = append(srcs, skills.Source{Dir: dir, Shown: shown, Trusted: trusted, Read: workspaceFiles{e.ws}})
		}
	}
	set := skills.Load(srcs)
	for _, p := range set.Problems {
		e.app.log.Debug("skill left out or changed", "skill", p)
	}
	return set
}

// skillsPrompt is the system prompt's list of skills for the next turn.
func (e *Env) skillsPrompt() string { return e.skills().Prompt(0) }

// workspaceFiles reads the workspace as the tools do (the editor's
// unsaved text first, nothing behind a link that leads out), but only
// files that exist on disk: asking an ACP client for every missing one
// at each turn would cost a round trip each and count as its failed
// reads.
type workspaceFiles struct{ ws *tools.Workspace }

func (w workspaceFiles) ReadDir(abs string) ([]fs.DirEntry, error) { return w.ws.ReadDir(abs) }

func (w workspaceFiles) ReadFile(abs string) (string, error) {
	if _, err := os.Lstat(abs); err != nil {
		return "", err
	}
	f, err := w.ws.ReadFile(abs)
	return f.Text, err
}

// userFiles reads the user's own skills folder from disk: text files of
// at most tools.MaxReadSize, as the workspace's are. A skill's folder may
// be a link (to where the person keeps their skills), but what is read in
// it stays in it: a link there that leads out — a skill cloned with
// `notes.md -> ../../../.ssh/id_rsa` — is refused, as os.Root refuses it.
type userFiles struct{ dir string }

func (u userFiles) ReadDir(abs string) ([]fs.DirEntry, error) {
	if filepath.Clean(abs) == filepath.Clean(u.dir) {
		return os.ReadDir(abs)
	}
	r, rel, err := u.in(abs)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return tools.ReadDirIn(r, rel)
}

func (u userFiles) ReadFile(abs string) (string, error) {
	r, rel, err := u.in(abs)
	if err != nil {
		return "", err
	}
	defer r.Close()
	fi, err := r.Stat(rel)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", abs)
	}
	f, err := r.Open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, tools.MaxReadSize+1))
	switch {
	case err != nil:
		return "", err
	case len(data) > tools.MaxReadSize:
		return "", fmt.Errorf("%s is over %d MiB", abs, tools.MaxReadSize>>20)
	case tools.IsBinary(data):
		return "", fmt.Errorf("%s: %w; agentls reads text files only", abs, tools.ErrBinary)
	}
	return string(data), nil
}

// in opens the folder of the skill holding abs as a root, and names abs
// in it.
func (u userFiles) in(abs string) (*os.Root, string, error) {
	rel, err := filepath.Rel(u.dir, abs)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return nil, "", fmt.Errorf("%s is not in a skill of your skills folder %s", abs, u.dir)
	}
	skill, rest, _ := strings.Cut(rel, string(filepath.Separator))
	if rest == "" {
		rest = "."
	}
	r, err := os.OpenRoot(filepath.Join(u.dir, skill))
	return r, rest, err
}
