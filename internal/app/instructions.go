package app

import (
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/instructions"
	"github.com/agentls/agentls/internal/tools/confine"
)

// instructions are the project's instructions for a session's next turn:
// the AGENTS.md (or CLAUDE.md) files of the first workspace folder, read
// as agentls reads any workspace file (the editor's unsaved text first,
// nothing behind a link that leads out), and the user's own AGENTS.md
// beside the config file. An untrusted folder's are framed as content,
// never as rules; nothing in them reaches the gate or the settings.
//
// folder is where the person is (the folder of the file they asked
// from): the files from its workspace folder's root down to it count,
// nearer ones last; "" (or a folder outside the workspace) means the first
// workspace folder alone.
func (e *Env) instructions(folder string) agent.Instructions {
	roots := e.ws.Roots()
	if len(roots) == 0 {
		return agent.Instructions{}
	}
	root := roots[0]
	for _, r := range roots {
		if folder != "" && confine.Within(r, filepath.Clean(folder)) {
			root = r
			break
		}
	}
	o := instructions.Options{
		Root: root, Dir: folder, Trusted: e.Trusted(root),
		ReadWorkspace: workspaceFiles{e.ws}.ReadFile,
		ReadUser: func(p string) (string, error) {
			b, err := os.ReadFile(p)
			return string(b), err
		},
	}
	if p := e.app.opts.ConfigPath; p != "" {
		o.User = filepath.Join(filepath.Dir(p), "AGENTS.md")
	}
	set := instructions.Load(o)
	for _, s := range set.Skipped {
		e.app.log.Debug("project instructions file left out", "file", s)
	}
	in := agent.Instructions{Text: set.Text}
	for _, f := range set.Files {
		name := f.Shown
		if f.Cut {
			name += " (cut)"
		}
		in.Files = append(in.Files, name)
	}
	return in
}
