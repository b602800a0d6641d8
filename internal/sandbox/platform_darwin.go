package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

// probe: Seatbelt is there when sandbox-exec is.
func probe(o Options) Status {
	s := baseStatus(o)
	if _, err := os.Stat(sandboxExec); err != nil {
		s.Reason = "this macOS has no " + sandboxExec + "; programs run unconfined"
		return s
	}
	s.Mechanism = "seatbelt"
	s.Files = true
	s.Network = NetSeatbelt
	s.Confined = true
	s.Gaps = []string{
		"inside the workspace everything is writable, .git included: a confined program can change .git/config or .git/hooks, which your own git runs later",
		"the writable caches (Go's build and module caches, npm, pip, cargo) are shared with your own builds",
		"programs cannot listen on TCP ports: tests that start a local server fail",
		"Seatbelt is deprecated by Apple, though every peer still relies on it",
	}
	return s
}

// platform wraps every program in sandbox-exec with the policy's profile.
type platform struct {
	profile string
	params  []string
	ln      net.Listener
	url     string
}

func newPlatform(o Options) (*platform, error) {
	p := &platform{}
	port := 0
	if o.Proxy != nil {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		p.ln = ln
		port = ln.Addr().(*net.TCPAddr).Port
		p.url = "http://127.0.0.1:" + strconv.Itoa(port)
		go o.Proxy.Serve(ln)
	}
	pol := o.Policy
	pol.Read, pol.Write = withReal(pol.Read), withReal(pol.Write)
	p.profile, p.params = seatbeltProfile(pol, port)
	return p, nil
}

// withReal adds each path's real form (/tmp is /private/tmp on macOS):
// Seatbelt judges the real path.
func withReal(ps []string) []string {
	out := append([]string(nil), ps...)
	for _, q := range ps {
		if r, err := filepath.EvalSymlinks(q); err == nil && r != q {
			out = append(out, r)
		}
	}
	return out
}

// start runs cmd under sandbox-exec.
func (p *platform) start(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	args := append([]string{sandboxExec, "-p", p.profile}, p.params...)
	args = append(append(args, "--", cmd.Path), cmd.Args[1:]...)
	cmd.Path, cmd.Args = sandboxExec, args
	return cmd.Start()
}

func (p *platform) close() {
	if p.ln != nil {
		p.ln.Close()
	}
}

func (p *platform) proxyAddr() string      { return p.url }
func (p *platform) status(s Status) Status { return s }
