package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI is the kernel's Landlock ABI version, 0 when it has none.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// devices confined programs may use as files, besides what the policy
// lists: the null devices and the terminal, read and written (with their
// ioctls), and the random devices, read.
var (
	rwDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}
	roDevices = []string{"/dev/random", "/dev/urandom"}
)

// ruleset builds the Landlock ruleset of pol: every right the kernel
// knows is handled, so what no rule grants is denied. proxyPort > 0 is the
// one TCP port programs may connect to when netLandlock is set (the
// network is then Landlock's: no bind, no other connect); without it
// Landlock leaves the network alone (a namespace confines it). The caller
// closes fd.
func ruleset(pol Policy, netLandlock bool, proxyPort int) (fd int, flags uint32, err error) {
	cfg := landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}
	if netLandlock {
		cfg.HandledAccessNet = landlock.V11.HandledAccessNet
	}
	cfg = cfg.BestEffort()
	var rules []landlock.Rule
	for _, p := range pol.Read {
		if r, ok := pathRule(p, false); ok {
			rules = append(rules, r)
		}
	}
	for _, p := range pol.Write {
		if r, ok := pathRule(p, true); ok {
			rules = append(rules, r)
		}
	}
	rules = append(rules,
		landlock.RWFiles(existing(rwDevices)...).WithIoctlDev(),
		landlock.ROFiles(existing(roDevices)...))
	if netLandlock && pol.Network && proxyPort > 0 {
		rules = append(rules, landlock.ConnectTCP(uint16(proxyPort)))
	}
	fd, flags, err = cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return -1, 0, errors.New("landlock: the kernel enforces nothing")
	}
	return fd, flags, nil
}

// pathRule is the rule for one path: folder rights for a folder, file
// rights for anything else; false when it does not exist.
func pathRule(p string, write bool) (landlock.Rule, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, false
	}
	switch {
	case fi.IsDir() && write:
		return landlock.RWDirs(p).WithRefer().WithResolveUnix(), true
	case fi.IsDir():
		return landlock.RODirs(p), true
	case write:
		return landlock.RWFiles(p), true
	}
	return landlock.ROFiles(p), true
}
