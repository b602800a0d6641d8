// Package sandbox confines every program agentls starts — the shell's
// programs, background jobs, hooks, language servers and MCP servers — in
// the kernel, so "nothing outside the workspace is written, no secret is
// read, nothing leaves the machine unless allowed" holds even when the
// permission gate's judge reads a command wrongly.
//
// On Linux a dedicated, locked OS thread restricts itself with Landlock
// (files, TCP ports, signal and abstract-socket scoping), a small seccomp
// filter (socket families and types Landlock has no word for, io_uring,
// the kernel keyring) and no_new_privs, drops every capability, and, when
// it may, moves into a network namespace of its own; every program is then
// started from that thread and inherits all of it (thread_linux.go). On
// macOS programs start under sandbox-exec with a generated Seatbelt
// profile. Elsewhere nothing is enforced and Status says so.
//
// Network access goes through a loopback HTTP proxy (proxy.go) that lets
// through only the hosts a per-command checker allows.
package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Mode is the person's choice of how strict agentls is when the kernel
// cannot confine programs (the user config's sandbox.mode).
type Mode string

// Modes.
const (
	// ModeAuto confines programs where the system can, and runs them
	// unconfined (with the gate asking for what the sandbox would have
	// confined) where it cannot.
	ModeAuto Mode = "auto"
	// ModeRequired refuses to start any program it cannot confine.
	ModeRequired Mode = "required"
	// ModeOff never confines: programs run as they would without agentls.
	ModeOff Mode = "off"
)

// Valid reports whether m is a known mode ("" counts as auto).
func (m Mode) Valid() bool {
	switch m {
	case "", ModeAuto, ModeRequired, ModeOff:
		return true
	}
	return false
}

// Policy is what a confined program may reach. Paths are absolute; a path
// that does not exist is skipped.
type Policy struct {
	// Read are files and folders confined programs may read and execute
	// (with everything below them).
	Read []string
	// Write are files and folders they may also create, change and delete
	// in.
	Write []string
	// Network is false when programs may reach no network at all; true
	// lets them reach the session's proxy (and, inside a network
	// namespace of their own, their own loopback).
	Network bool
}

// Options configures a Sandbox.
type Options struct {
	// Mode is the person's choice; "" means ModeAuto.
	Mode Mode
	// Policy is what programs may reach.
	Policy Policy
	// TempDir is the session's own temporary folder (programs get it as
	// TMPDIR); it should be in Policy.Write.
	TempDir string
	// Environ is the environment programs start from, before the
	// allow-list; nil means os.Environ().
	Environ []string
	// EnvAllow are the person's additions to the allow-list (sandbox.env).
	EnvAllow []string
	// Home is the person's home folder, whose git identity confined
	// programs keep (gitglobal.go).
	Home string
	// Proxy, when set, is the session's network proxy: programs reach the
	// network only through it (Policy.Network must be true).
	Proxy *Proxy
	// ServerCheck judges the hosts long-running servers (Launch) reach
	// through the proxy; nil refuses every host.
	ServerCheck Checker
	// NoNetNS keeps programs in agentls's own network namespace even where
	// a private one could be made (tests of the Landlock-only path).
	NoNetNS bool

	// unavailable, in tests, plays a system that cannot confine.
	unavailable string
}

// ErrUnconfined is returned by Start in ModeRequired where programs
// cannot be confined.
var ErrUnconfined = errors.New("the sandbox is required (sandbox.mode \"required\") but this system cannot confine programs")

// Sandbox starts programs confined by one policy. It is safe for
// concurrent use. Close it when the session ends.
type Sandbox struct {
	opts   Options
	status Status
	// proxyURL is the proxy address programs are given ("" for none).
	proxyURL string
	// gitConfig is the global git configuration confined programs get.
	gitConfig string

	mu      sync.Mutex
	closed  bool
	plat    *platform // the confined starter; nil when unconfined
	err     error     // why plat could not be made
	derived map[string]*Sandbox
}

// New prepares a sandbox for the policy: nothing is started until the
// first program. The paths are cleaned and made absolute; a relative one
// is an error.
func New(o Options) (*Sandbox, error) {
	if !o.Mode.Valid() {
		return nil, fmt.Errorf("sandbox.mode %q: use \"auto\", \"required\" or \"off\"", o.Mode)
	}
	if o.Mode == "" {
		o.Mode = ModeAuto
	}
	var err error
	if o.Policy.Read, err = cleanPaths(o.Policy.Read); err != nil {
		return nil, err
	}
	if o.Policy.Write, err = cleanPaths(o.Policy.Write); err != nil {
		return nil, err
	}
	if o.Proxy != nil && !o.Policy.Network {
		return nil, errors.New("sandbox: a proxy needs Policy.Network")
	}
	s := &Sandbox{opts: o}
	s.status = probe(o)
	if o.unavailable != "" {
		s.status = baseStatus(o)
		s.status.Reason = o.unavailable
	}
	if s.status.Confined && o.Mode != ModeOff {
		s.plat, s.err = newPlatform(o)
		if s.err != nil {
			s.status.Confined = false
			s.status.Reason = s.err.Error()
		} else {
			s.status = s.plat.status(s.status)
			s.proxyURL = s.plat.proxyAddr()
			if read, _ := o.Policy.Allows(filepath.Join(o.Home, ".gitconfig")); !read || o.Home == "" {
				s.gitConfig = gitGlobal(o.Home, o.TempDir)
			}
		}
	}
	return s, nil
}

// cleanPaths makes every path clean and absolute, dropping duplicates.
func cleanPaths(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: path %q is not absolute", p)
		}
		out = append(out, filepath.Clean(p))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Confined reports whether programs started by Start are confined: files
// and network both enforced by the kernel.
func (s *Sandbox) Confined() bool { return s != nil && s.status.Confined }

// Status says what this sandbox enforces.
func (s *Sandbox) Status() Status {
	if s == nil {
		return Status{Reason: "no sandbox was made"}
	}
	return s.status
}

// Policy is the policy programs run under.
func (s *Sandbox) Policy() Policy { return s.opts.Policy }

// ProxyURL is the proxy's address for programs, http://127.0.0.1:PORT, or
// "" when programs have no network.
func (s *Sandbox) ProxyURL() string {
	if s == nil {
		return ""
	}
	return s.proxyURL
}

// Start starts cmd confined (cmd.Start's contract otherwise). Unconfined
// systems start it as it is, unless the mode is ModeRequired.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	if s == nil || s.opts.Mode == ModeOff {
		return cmd.Start()
	}
	s.mu.Lock()
	closed, plat := s.closed, s.plat
	s.mu.Unlock()
	switch {
	case closed:
		return errors.New("sandbox: closed (the session ended)")
	case plat != nil:
		return plat.start(cmd)
	case s.opts.Mode == ModeRequired:
		return fmt.Errorf("%w: %s", ErrUnconfined, s.status.Reason)
	}
	return cmd.Start()
}

// Close stops the confined starter; programs already running go on.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	derived := s.derived
	s.derived = nil
	s.mu.Unlock()
	if s.plat != nil {
		s.plat.close()
	}
	for _, d := range derived {
		d.Close()
	}
	return nil
}

// Extend returns a sandbox like s that may also read read and write
// write: for a command whose outside paths a person approved, or a
// server installed outside the usual folders. It is made once per set of
// paths and closed with s.
func (s *Sandbox) Extend(read, write []string) (*Sandbox, error) {
	if s == nil {
		return nil, nil
	}
	if len(read)+len(write) == 0 {
		return s, nil
	}
	o := s.opts
	o.Policy.Read = append(slices.Clone(o.Policy.Read), read...)
	o.Policy.Write = append(slices.Clone(o.Policy.Write), write...)
	var err error
	if o.Policy.Read, err = cleanPaths(o.Policy.Read); err != nil {
		return nil, err
	}
	if o.Policy.Write, err = cleanPaths(o.Policy.Write); err != nil {
		return nil, err
	}
	key := strings.Join(o.Policy.Read, "\x00") + "\x01" + strings.Join(o.Policy.Write, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("sandbox: closed (the session ended)")
	}
	if d, ok := s.derived[key]; ok {
		return d, nil
	}
	d, err := New(o)
	if err != nil {
		return nil, err
	}
	if s.derived == nil {
		s.derived = map[string]*Sandbox{}
	}
	s.derived[key] = d
	return d, nil
}

// Allows reports how the policy treats path: whether a confined program
// may read it and write it (after following symbolic links).
func (p Policy) Allows(path string) (read, write bool) {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		real = filepath.Join(r, filepath.Base(path))
	}
	under := func(list []string) bool {
		for _, d := range list {
			if within(d, path) || within(d, real) || within(realOf(d), real) {
				return true
			}
		}
		return false
	}
	write = under(p.Write)
	return write || under(p.Read), write
}

// realOf is p with its links followed, or p when it cannot be.
func realOf(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	if dir == p {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}
