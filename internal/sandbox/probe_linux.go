package sandbox

import "strconv"

// probe reads what the kernel offers; the platform completes it once its
// thread is confined.
func probe(o Options) Status {
	s := baseStatus(o)
	abi := landlockABI()
	s.LandlockABI = abi
	if abi < 1 {
		s.Reason = "this Linux kernel has no Landlock (5.13 or later with Landlock enabled at boot, lsm=landlock); programs run unconfined"
		return s
	}
	s.Mechanism = "landlock"
	s.Files = true
	s.Confined = true // until the platform says otherwise
	return s
}

// gaps are what the sandbox does not confine on this kernel.
func gaps(s Status) []string {
	g := []string{
		"inside the workspace everything is writable, .git included: a confined program can change .git/config or .git/hooks, which your own git runs later",
		"the writable caches (Go's build and module caches, npm, pip, cargo) are shared with your own builds",
		"/proc, /sys and /etc are readable (the process list and system settings; not other processes' environments or memory)",
		"a hard link inside a writable folder to a file outside can be written through",
	}
	if s.LandlockABI < 9 {
		g = append(g, "pathname Unix sockets (an ssh-agent's, /var/run/docker.sock) can be connected to: Landlock checks them from ABI 9 (this kernel: "+strconv.Itoa(s.LandlockABI)+")")
	}
	if s.Network == NetLandlock {
		g = append(g,
			"TCP connections are allowed to the proxy's port number on any address (Landlock's rules name ports, not addresses); a host listening on that port can be reached",
			"programs cannot listen on TCP ports: tests that start a local server fail (agentls as root gives programs a network namespace of their own instead)")
	}
	return g
}
