package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/proc"
)

// Until the person trusts a workspace folder, no program from it runs.
// Every start of a server asks Config.Trusted about the server's workspace
// folder. In a trusted folder the server starts as configured (its full
// form). Anywhere else it starts in its safe form:
//
//   - its PATH loses the empty and relative entries and those inside an
//     untrusted folder, so neither the server nor what it runs (go,
//     python, node) can be a program the repository ships;
//   - its own program must resolve, on that PATH and through links, to a
//     file outside every untrusted folder;
//   - a built-in server gets the settings that keep it from running the
//     project's code (safe.go); a server agentls does not know starts only
//     when its entry says run_untrusted.
//
// When the full form would run code from the folder (the repository's own
// TypeScript, build scripts, a toolchain go.mod names, …), Config.AskTrust
// is told, so the editor can ask once; a server with no safe form there
// fails with ErrUntrusted, saying how to trust the folder.

// launch is how one start of a server runs.
type launch struct {
	argv     []string
	env      map[string]string
	init     any
	settings any
}

// trustedFolder reports whether the workspace folder is trusted.
func (m *Manager) trustedFolder(folder string) bool {
	return folder != "" && m.trusted != nil && m.trusted(folder)
}

// guard lists the workspace folders that are not trusted now.
func (m *Manager) guard() proc.Guard {
	var untrusted []string
	for _, r := range m.ws.Roots() {
		if !m.trustedFolder(r) {
			untrusted = append(untrusted, r)
		}
	}
	return proc.NewGuard(untrusted)
}

// lookIn is the first executable name in pathList as a process working in
// cwd finds it (relative entries are relative to cwd), or "".
func lookIn(name, pathList, cwd string) string {
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		if p := filepath.Join(dir, name); proc.Executable(p) {
			return p
		}
	}
	return ""
}

// safeStart is one start in an untrusted folder being prepared.
type safeStart struct {
	m      *Manager
	name   string
	root   string // the server's project root
	folder string // the workspace folder holding it
	g      proc.Guard
	path   string // the cleaned PATH
	// fullPath is the PATH the full form would get.
	fullPath string
	l        launch
	// code collects what the full form would run from the folder.
	code []string
	// meanwhile says what the safe form does instead, for the person.
	meanwhile string
}

// rel is p relative to the workspace folder, for messages.
func (s *safeStart) rel(p string) string {
	if r, ok := relPath(s.folder, p); ok {
		return r
	}
	return p
}

// prepare decides how c starts now: as configured in a trusted folder,
// otherwise in its safe form. A server with no safe form there fails with
// ErrUntrusted. Either way, when the full form would run code from the
// folder, AskTrust is told.
func (m *Manager) prepare(c *Client) (launch, error) {
	l := launch{argv: c.argv, env: c.cfg.Env, init: c.cfg.InitOptions, settings: c.cfg.Settings}
	if m.trustedFolder(c.folder) {
		return l, nil
	}
	s := &safeStart{m: m, name: c.name, root: c.root, folder: c.folder, g: m.guard(), l: l}
	base := os.Getenv("PATH")
	if p, ok := c.cfg.Env["PATH"]; ok {
		base = p
	}
	s.path, s.fullPath = s.g.CleanPath(base), base
	s.l.env = maps.Clone(c.cfg.Env)
	if s.l.env == nil {
		s.l.env = map[string]string{}
	}
	s.l.env["PATH"] = s.path
	err := s.form(c)
	if len(s.code) > 0 || err != nil {
		m.askTrust(s, err == nil)
	}
	if err != nil {
		return launch{}, err
	}
	return s.l, nil
}

// form fills in the safe form of c's start.
func (s *safeStart) form(c *Client) error {
	prog := s.g.Program(c.cfg.Command[0], s.path)
	if full := c.argv[0]; s.g.Inside(full) {
		s.code = append(s.code, fmt.Sprintf("its own %s program (%s)", filepath.Base(full), s.rel(full)))
	}
	if prog == "" {
		return s.untrusted(fmt.Sprintf("its program %q is only found inside the folder", c.cfg.Command[0]))
	}
	s.l.argv = append([]string{prog}, c.argv[1:]...)
	if !c.builtin {
		if c.cfg.RunUntrusted {
			return nil
		}
		s.code = append(s.code, c.name+", which agentls knows no safe form of (a language server may run the project's build files)")
		return s.untrusted(fmt.Sprintf("agentls knows no safe form of it (a language server may run the project's build files; set lsp.%s.run_untrusted to true in your config if it never does)", c.name))
	}
	if f := safeForms[c.name]; f != nil {
		return f(s)
	}
	return nil
}

// untrusted is the error of a server that cannot start in the folder.
func (s *safeStart) untrusted(why string) error {
	if s.meanwhile == "" {
		s.meanwhile = "Until you do, " + s.name + " does not start."
	}
	return kindErrorf(ErrUntrusted, "%s is not started in %s: %s, and the folder is not trusted. Trust it with `agentls trust %s` (in the editor: answer \"Trust this folder\"), then try again", s.name, s.folder, why, s.folder)
}

// askTrust tells AskTrust, in a goroutine of its own, what the full form
// would run.
func (m *Manager) askTrust(s *safeStart, started bool) {
	if m.ask == nil {
		return
	}
	meanwhile := s.meanwhile
	if meanwhile == "" {
		meanwhile = "Until you do, it runs in a safe form that runs nothing from the folder."
	}
	code := strings.Join(s.code, "; ")
	if code == "" {
		code = "programs from the folder"
	}
	req := TrustRequest{Folder: s.folder, Server: s.name, Code: code, Started: started, Meanwhile: meanwhile}
	go m.ask(req)
}

// Retrust restarts the servers of a workspace folder whose trust changed
// (also one still starting, once it has started, and one that could not
// start there), so they run in the form the folder's trust now allows.
func (m *Manager) Retrust(ctx context.Context, folder string) error {
	folder = filepath.Clean(folder)
	var errs []error
	for _, c := range m.Clients() {
		if c.folder != folder || m.sharedFor(c.name) != nil {
			continue // a shared server keeps its form until the editor restarts it
		}
		if err := c.restart(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
