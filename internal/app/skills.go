package app

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
		srcs = append(srcs, skills.Source{Dir: dir, Shown: dir, User: true, Read: userFiles{}})
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

// userFiles reads the user's own skills folder from disk, text files of
// at most tools.MaxReadSize, as the workspace's are.
type userFiles struct{}

func (userFiles) ReadDir(abs string) ([]fs.DirEntry, error) { return os.ReadDir(abs) }

func (userFiles) ReadFile(abs string) (string, error) {
	f, err := os.Open(abs)
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
