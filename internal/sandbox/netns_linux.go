package sandbox

import (
	"errors"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// errNoNamespace: the thread could not leave agentls's network namespace
// and is unchanged.
var errNoNamespace = errors.New("no network namespace")

// enterNetNS moves the calling thread into a new network namespace with
// its loopback device up, and listens there on a loopback port for the
// proxy. Programs started from the thread then reach nothing but their
// own loopback and the proxy (when listen is set; the listener is nil
// otherwise). It needs CAP_SYS_ADMIN (agentls runs as root); the error
// says so otherwise, and the thread is unchanged.
func enterNetNS(listen bool) (net.Listener, error) {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("%w: %w", errNoNamespace, err)
	}
	if err := loopbackUp(); err != nil {
		return nil, err
	}
	if !listen {
		return nil, nil
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the proxy in the network namespace: %w", err)
	}
	return ln, nil
}

// loopbackUp brings "lo" up in the calling thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}
