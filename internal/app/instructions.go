package app

import (
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/instructions"
)

// instructions are the project's instructions for a session's next turn:
// the AGENTS.md (or CLAUDE.md) files of the first workspace folder, read
// as agentls reads any workspace file (the editor's unsaved text first,
// nothing behind a link that leads out), and the user's own AGENTS.md
// beside the config file. An untrusted folder's are framed as content,
// never as rules; nothing in them reaches the gate or the settings.
func (e *Env) instructions() string {
	roots := e.ws.Roots()
	if len(roots) == 0 {
		return ""
	}
	root := roots[0]
	o := instructions.Options{
		Root: root, Trusted: e.Trusted(root),
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
	return set.Text
}
