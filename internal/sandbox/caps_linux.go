package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities empties the calling thread's capability sets and, when
// it may (agentls runs as root), its bounding set, so a program it starts
// runs without any capability even as root: no raw sockets, no module
// loading, no reading past file permissions. It reports whether the
// bounding set was emptied.
func dropCapabilities() (bool, error) {
	bounded := true
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // a capability this kernel does not have
			}
			bounded = false // EPERM: not root, nothing to drop
			break
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return false, fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("drop capabilities: %w", err)
	}
	return bounded, nil
}
