package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
)

// The sandbox every program of an environment runs in: one per set of
// workspace folders (the editor may change them), all sharing the
// environment's temporary folder and network proxy, made when the first
// program needs one and closed with the environment. Its settings come
// from the user config file alone.

// envSandbox is the state behind Env.Sandbox.
type envSandbox struct {
	tmp     string
	proxy   *sandbox.Proxy // made with the environment
	byRoots map[string]*sandbox.Sandbox
	warned  bool // the log was told programs run unconfined
	told    bool // a session was told
}

// Sandbox is the sandbox for the environment's folders now; nil when
// sandbox.mode is "off" or it could not be made (the log says why; in
// "required" mode that is an error every program start then reports).
func (e *Env) Sandbox() *sandbox.Sandbox {
	roots := e.ws.Roots()
	key := fmt.Sprint(roots)
	e.mu.Lock()
	defer e.mu.Unlock()
	st := &e.sandboxes
	if sb, ok := st.byRoots[key]; ok {
		return sb
	}
	cfg := e.app.opts.Config.Sandbox
	mode := sandbox.Mode(cfg.Mode)
	if mode == sandbox.ModeOff {
		return nil
	}
	if st.tmp == "" {
		tmp, err := os.MkdirTemp("", "agentls-session-")
		if err != nil {
			e.app.log.Warn("sandbox: no temporary folder for the session", "error", err)
			return nil
		}
		st.tmp = tmp
	}
	m := sandbox.NewMachine()
	sandbox.PrepareCaches(m)
	// The repository a workspace folder lies in, when its top is above
	// the folder: git run in the workspace works on it.
	writable := append(sandbox.EnclosingGitDirs(roots, m.Home), cfg.Writable...)
	pol := sandbox.DefaultPolicy(m, roots, st.tmp, cfg.Readable, writable)
	sb, err := sandbox.New(sandbox.Options{
		Mode: mode, Policy: pol, TempDir: st.tmp, EnvAllow: cfg.Env, Home: m.Home,
		Proxy: st.proxy, ServerCheck: e.serverHosts,
	})
	if err != nil {
		e.app.log.Warn("sandbox", "error", err)
		return nil
	}
	if st.byRoots == nil {
		st.byRoots = map[string]*sandbox.Sandbox{}
	}
	st.byRoots[key] = sb
	if s := sb.Status(); !s.Confined && !st.warned {
		st.warned = true
		e.app.log.Warn("programs run without a sandbox: "+s.Reason, "mode", mode)
	}
	return sb
}

// sandboxNotice is said once to the person, at the environment's first
// session, when programs cannot be confined here ("" when they are, or
// the sandbox is off).
func (e *Env) sandboxNotice() string {
	sb := e.Sandbox()
	e.mu.Lock()
	told := e.sandboxes.told
	e.sandboxes.told = true
	e.mu.Unlock()
	if sb == nil || sb.Confined() || told {
		return ""
	}
	s := sb.Status()
	if s.Mode == sandbox.ModeRequired {
		return "sandbox: required but not available here (" + s.Reason + "): every command is refused"
	}
	return "sandbox: commands run unconfined here (" + s.Reason + "); agentls asks before every command that is not read-only"
}

// serverHosts judges a host a server program (language server, MCP
// server, hook) connects to through the proxy: the package registries
// pass, else the user's net.* rules and mode decide, and nobody is asked
// (no call is running to ask in).
func (e *Env) serverHosts(ctx context.Context, host string, port int) error {
	if sandbox.PackageRegistry(host, port) {
		return nil
	}
	e.mu.Lock()
	editor := e.editor
	e.mu.Unlock()
	set, err := e.Settings(editor)
	if err != nil {
		return err
	}
	g, err := permission.New(permission.Options{Policy: set.Policy, Roots: e.ws.Roots})
	if err != nil {
		return err
	}
	d := g.Check(ctx, permission.Request{Tool: "server", Capability: "net.fetch", Action: permission.ActionRead,
		Destinations: []string{"https://" + host + ":" + strconv.Itoa(port) + "/"}})
	if d.Kind == permission.Allow {
		return nil
	}
	return errors.New("servers agentls starts reach a host only when a rule allows it, e.g. \"net.fetch:" + host + "\": \"allow\" in the permissions of the agentls config")
}

// closeSandboxes stops every sandbox and removes the temporary folder.
func (e *Env) closeSandboxes() {
	e.mu.Lock()
	st := e.sandboxes
	e.sandboxes = envSandbox{proxy: st.proxy}
	e.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(st.byRoots)) {
		st.byRoots[k].Close()
	}
	if st.tmp != "" {
		if err := os.RemoveAll(st.tmp); err != nil {
			e.app.log.Warn("remove the session's temporary folder", "error", err)
		}
	}
}
