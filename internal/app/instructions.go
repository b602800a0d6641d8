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
		ReadWorkspace: func(p string) (string, error) {
			// Only files on disk: asking an ACP client for every folder's
			// missing AGENTS.md and CLAUDE.md at each turn would cost a
			// round trip each and count as its failed reads.
			if _, err := os.Lstat(p); err != nil {
				return "", err
			}
			f, err := e.ws.ReadFile(p)
			return f.Text, err
		},
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
