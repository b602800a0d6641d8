//go:build unix

package shell

import "syscall"

// grantEnvOpenFlag is added when a configuration file is opened for a
// grant's digest: a FIFO must not block the open.
const grantEnvOpenFlag = syscall.O_NONBLOCK
