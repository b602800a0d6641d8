package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Network enforcement levels (Status.Network).
const (
	// NetNamespace: programs run in a network namespace of their own with
	// only a loopback device; the proxy is reached inside it. Nothing
	// they dial leaves, and their own loopback servers work.
	NetNamespace = "namespace"
	// NetLandlock: Landlock allows TCP connect only to the proxy's port
	// and no bind; seccomp refuses every other socket type (UDP, raw,
	// MPTCP, other families).
	NetLandlock = "landlock"
	// NetSeatbelt: Seatbelt allows only the proxy's loopback port.
	NetSeatbelt = "seatbelt"
	// NetNone: the network is not confined.
	NetNone = "none"
)

// Status is what the kernel enforces for a sandbox on this machine.
type Status struct {
	// OS is runtime.GOOS.
	OS string `json:"os"`
	// Mechanism is "landlock", "seatbelt" or "none".
	Mechanism string `json:"mechanism"`
	// LandlockABI is the kernel's Landlock ABI version (Linux; 0: none).
	LandlockABI int `json:"landlock_abi,omitempty"`
	// Files: reads and writes are confined to the policy's lists.
	Files bool `json:"files"`
	// Network is one of the Net* levels.
	Network string `json:"network"`
	// Seccomp: the socket and io_uring filter is installed (Linux).
	Seccomp bool `json:"seccomp,omitempty"`
	// Capabilities: programs run with no capabilities (agentls runs as
	// root).
	DropsCapabilities bool `json:"drops_capabilities,omitempty"`
	// Confined: files and network are both enforced, so the gate may lean
	// on the sandbox.
	Confined bool `json:"confined"`
	// Reason says why programs are not (fully) confined.
	Reason string `json:"reason,omitempty"`
	// Mode is the person's sandbox.mode.
	Mode Mode `json:"mode"`
	// Read and Write are the policy's lists; Env the variables programs
	// may receive.
	Read  []string `json:"read"`
	Write []string `json:"write"`
	Env   []string `json:"env"`
	// Gaps are what the sandbox does not confine here, in words.
	Gaps []string `json:"gaps,omitempty"`
}

// String is the status in a few lines, for `agentls sandbox` and logs.
func (s Status) String() string {
	var b strings.Builder
	switch {
	case s.Mode == ModeOff:
		fmt.Fprintf(&b, "sandbox: off (sandbox.mode \"off\"): programs run unconfined\n")
	case s.Confined:
		fmt.Fprintf(&b, "sandbox: on (%s)\n", s.Mechanism)
	default:
		fmt.Fprintf(&b, "sandbox: not enforced: %s\n", s.Reason)
	}
	if s.LandlockABI > 0 {
		fmt.Fprintf(&b, "landlock ABI: %d\n", s.LandlockABI)
	}
	fmt.Fprintf(&b, "files: %s\n", onOff(s.Files))
	fmt.Fprintf(&b, "network: %s\n", s.Network)
	if s.OS == "linux" {
		fmt.Fprintf(&b, "seccomp: %s\n", onOff(s.Seccomp))
	}
	if s.DropsCapabilities {
		fmt.Fprintf(&b, "capabilities: dropped (agentls runs as root)\n")
	}
	list := func(name string, l []string) {
		fmt.Fprintf(&b, "%s:\n", name)
		for _, p := range l {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	list("writable", s.Write)
	list("readable", s.Read)
	fmt.Fprintf(&b, "environment: %s\n", strings.Join(s.Env, " "))
	if len(s.Gaps) > 0 {
		list("not confined", s.Gaps)
	}
	return b.String()
}

func onOff(b bool) string {
	if b {
		return "enforced"
	}
	return "not enforced"
}

// baseStatus fills in what every platform reports the same way: the
// lists hold the paths that exist (the others grant nothing).
func baseStatus(o Options) Status {
	return Status{
		OS: runtime.GOOS, Mechanism: "none", Network: NetNone, Mode: o.Mode,
		Read: existing(o.Policy.Read), Write: existing(o.Policy.Write), Env: EnvAllowList(o.EnvAllow),
	}
}

// existing keeps the paths that exist.
func existing(ps []string) []string {
	var out []string
	for _, p := range ps {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
