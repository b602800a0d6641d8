package app

import (
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/config"
)

// userConfig is the user's config file as last read. It is read again
// when the file changes (its time, size or existence), so a model,
// provider or permission rule edited in config.json applies at the next
// prompt without restarting agentls. Language servers, MCP servers and
// the sandbox keep what they started with.
type userConfig struct {
	path string

	mu    sync.Mutex
	stamp fileStamp
	cfg   config.Config
	err   error
	gen   int
}

// fileStamp tells a changed file from an unchanged one without reading it.
type fileStamp struct {
	mod    time.Time
	size   int64
	exists bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size(), exists: true}
}

func newUserConfig(path string, cfg config.Config, err error) *userConfig {
	u := &userConfig{path: path, cfg: cfg, err: err}
	if path != "" {
		u.stamp = stampOf(path)
	}
	return u
}

// current returns the file's settings (empty when it did not load, with
// why), and gen, which grows each time a change of them was read.
func (u *userConfig) current() (config.Config, int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.path != "" {
		if st := stampOf(u.path); st != u.stamp {
			u.stamp = st
			cfg, err := config.Load(u.path)
			// The trusted folders are agentls's own writes (a trust
			// answer, `agentls trust`) and are re-read where they count
			// (Env.TrustEntries): they alone change nothing a session uses.
			if !sameSettings(cfg, u.cfg) || (err == nil) != (u.err == nil) {
				u.gen++
			}
			u.cfg, u.err = cfg, err
		}
	}
	return u.cfg, u.gen, u.err
}

// UserConfig returns the user's config file as it is now (read again when
// it changed since the last call), a generation that grows with each
// change read, and why the file did not load (its settings are empty
// then: say so, naming the file, rather than report what follows from
// their absence).
func (a *App) UserConfig() (config.Config, int, error) { return a.user.current() }

// sameSettings reports whether a and b differ at most in their trusted
// folders.
func sameSettings(a, b config.Config) bool {
	a.TrustedWorkspaces, b.TrustedWorkspaces = nil, nil
	return reflect.DeepEqual(a, b)
}
