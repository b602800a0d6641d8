//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// probe: this system has nothing agentls can confine programs with.
func probe(o Options) Status {
	s := baseStatus(o)
	s.Reason = runtime.GOOS + " has no sandbox agentls can use; programs run unconfined, and the gate asks for what a sandbox would have confined"
	return s
}

// platform is never made here.
type platform struct{}

func newPlatform(Options) (*platform, error) {
	return nil, errors.New("no sandbox on " + runtime.GOOS)
}

func (*platform) start(cmd *exec.Cmd) error { return cmd.Start() }
func (*platform) close()                    {}
func (*platform) proxyAddr() string         { return "" }
func (*platform) status(s Status) Status    { return s }
