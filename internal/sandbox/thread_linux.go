package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strconv"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// platform starts programs from one OS thread that confined itself: Go
// cannot restrict a child between fork and exec, but a child is a copy of
// the thread that forked it, with its Landlock domain, seccomp filter,
// no_new_privs bit, capabilities and network namespace. The thread is
// locked to its goroutine and never unlocked, so no other goroutine ever
// runs on it and the runtime makes new threads from a clean one (a locked
// thread never spawns threads); when the goroutine returns the thread
// exits with it.
type platform struct {
	reqs chan startReq
	quit chan struct{}
	done chan struct{}

	netns    bool   // programs have a network namespace of their own
	seccomp  bool   // the filter is installed
	bounded  bool   // the capability bounding set was emptied
	proxyURL string // where programs reach the proxy
	ln       net.Listener
}

type startReq struct {
	cmd *exec.Cmd
	err chan error
}

// newPlatform confines a new thread for o and returns once it is ready.
func newPlatform(o Options) (*platform, error) {
	p := &platform{reqs: make(chan startReq), quit: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan error, 1)
	go p.loop(o, ready)
	if err := <-ready; err != nil {
		<-p.done
		return nil, err
	}
	return p, nil
}

// loop confines a thread other than the main one, then starts programs
// until close. The main thread leads agentls's thread group: the kernel
// checks a process-wide signal against the leader, so a confined leader
// would let every confined program signal (stop, kill) agentls itself,
// and Go never ends the main thread. When the scheduler ran this
// goroutine there, it holds that thread while a new goroutine — which
// therefore runs on another thread — does the work.
func (p *platform) loop(o Options, ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			close(locked)
			p.serve(o, ready)
		}()
		<-locked
		runtime.UnlockOSThread()
		return
	}
	p.serve(o, ready) // the thread stays locked, and ends with this goroutine
}

// serve confines the calling locked thread, then starts programs until
// close.
func (p *platform) serve(o Options, ready chan<- error) {
	defer close(p.done)
	if unix.Gettid() == unix.Getpid() {
		ready <- errors.New("sandbox: refusing to confine agentls's main thread")
		return
	}
	if err := p.confine(o); err != nil {
		if p.ln != nil {
			p.ln.Close()
		}
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case r := <-p.reqs:
			r.err <- r.cmd.Start()
		case <-p.quit:
			return
		}
	}
}

// confine applies everything to the calling (locked) thread, in the order
// the kernel needs: the ruleset is made and the namespace entered while
// the thread still has its capabilities; then capabilities go,
// no_new_privs is set, the seccomp filter and the Landlock domain are
// applied.
func (p *platform) confine(o Options) error {
	pol := o.Policy
	netLandlock := false
	port := 0
	if !o.NoNetNS && unix.Geteuid() == 0 {
		// Only root may make a namespace from a running process; others
		// get Landlock's port rules.
		ln, err := enterNetNS(o.Proxy != nil)
		switch {
		case err == nil:
			p.netns, p.ln = true, ln
		case !errors.Is(err, errNoNamespace):
			return err // half made: this thread must not start anything
		}
	}
	if !p.netns {
		netLandlock = true
		if o.Proxy != nil {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				return fmt.Errorf("listen for the proxy: %w", err)
			}
			p.ln = ln
		}
	}
	if p.ln != nil {
		port = p.ln.Addr().(*net.TCPAddr).Port
		if o.Proxy != nil {
			p.proxyURL = "http://127.0.0.1:" + strconv.Itoa(port)
		}
	}
	fd, flags, err := ruleset(pol, netLandlock, port)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if p.bounded, err = dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := loadFilter(p.netns); err != nil {
		if netLandlock {
			// Without the filter UDP and raw sockets would leave the
			// machine: the network is not confined.
			return err
		}
	} else {
		p.seccomp = true
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	if o.Proxy != nil && p.ln != nil {
		go o.Proxy.Serve(p.ln)
	}
	return nil
}

// start starts cmd from the confined thread.
func (p *platform) start(cmd *exec.Cmd) error {
	r := startReq{cmd: cmd, err: make(chan error, 1)}
	select {
	case p.reqs <- r:
		return <-r.err
	case <-p.done:
		return errors.New("sandbox: closed (the session ended)")
	}
}

// close ends the thread and the proxy's listener.
func (p *platform) close() {
	close(p.quit)
	<-p.done
	if p.ln != nil {
		p.ln.Close()
	}
}

// proxyAddr is the proxy's URL for programs ("" without one).
func (p *platform) proxyAddr() string { return p.proxyURL }

// status completes the probed status with what the thread applied.
func (p *platform) status(s Status) Status {
	s.Seccomp = p.seccomp
	s.DropsCapabilities = p.bounded
	switch {
	case p.netns:
		s.Network = NetNamespace
	case s.LandlockABI >= 4 && p.seccomp:
		s.Network = NetLandlock
	default:
		s.Network = NetNone
	}
	s.Confined = s.Files && s.Network != NetNone
	if !s.Confined && s.Reason == "" {
		s.Reason = "the kernel's Landlock (ABI " + strconv.Itoa(s.LandlockABI) + ") cannot confine the network; Linux 6.7 or later can"
	}
	s.Gaps = gaps(s)
	return s
}
