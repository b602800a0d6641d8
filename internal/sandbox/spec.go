package sandbox

import (
	"errors"
	"os"
	"strings"
)

// Spec is a sandbox as data: what another agentls process needs to confine
// programs exactly as this sandbox does. An editor's terminal runs a
// command as `agentls exec`, a process agentls did not start, so the
// confinement travels with the command instead of being inherited.
type Spec struct {
	// Mode is the person's sandbox.mode; ModeOff means unconfined.
	Mode Mode `json:"mode"`
	// Policy is what the programs may reach.
	Policy Policy `json:"policy"`
	// TempDir is the session's temporary folder (TMPDIR).
	TempDir string `json:"temp_dir,omitempty"`
	// Home is the person's home folder (its git identity is kept).
	Home string `json:"home,omitempty"`
	// Env is the allow-listed base environment of the programs, before
	// TMPDIR, the git configuration and the proxy variables are set.
	Env []string `json:"env"`
	// NoNetNS keeps programs in the process's network namespace.
	NoNetNS bool `json:"no_netns,omitempty"`
}

// Spec returns s as data. A nil sandbox (sandbox.mode "off") is a Spec of
// ModeOff with the allow-listed environment.
func (s *Sandbox) Spec() Spec {
	if s == nil {
		return Spec{Mode: ModeOff, Env: FilterEnv(os.Environ(), nil)}
	}
	base := s.opts.Environ
	if base == nil {
		base = os.Environ()
	}
	return Spec{
		Mode: s.opts.Mode, Policy: s.opts.Policy, TempDir: s.opts.TempDir, Home: s.opts.Home,
		Env: FilterEnv(base, s.opts.EnvAllow), NoNetNS: s.opts.NoNetNS,
	}
}

// FromSpec makes the sandbox sp describes in this process, its programs'
// network going through proxy (required when the policy has a network; a
// relay to the first process's proxy, RelayDial). ModeOff gives a nil
// sandbox: programs run unconfined, as they would in the first process.
func FromSpec(sp Spec, proxy *Proxy) (*Sandbox, error) {
	if sp.Mode == ModeOff {
		return nil, nil
	}
	if sp.Policy.Network && proxy == nil {
		return nil, errors.New("sandbox: the spec allows a network but no proxy was given")
	}
	if !sp.Policy.Network {
		proxy = nil
	}
	// Every variable of Env was allowed by the first process: allow them
	// all by name here, and nothing else.
	names := make([]string, 0, len(sp.Env))
	for _, kv := range sp.Env {
		if k, _, ok := strings.Cut(kv, "="); ok && k != "" && !strings.ContainsAny(k, "*?[\\") {
			names = append(names, k)
		}
	}
	return New(Options{
		Mode: sp.Mode, Policy: sp.Policy, TempDir: sp.TempDir, Home: sp.Home,
		Environ: sp.Env, EnvAllow: names, Proxy: proxy, NoNetNS: sp.NoNetNS,
	})
}
