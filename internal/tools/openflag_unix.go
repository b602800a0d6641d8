//go:build unix

package tools

import "syscall"

// openReadFlag is added when a tool opens a file to read it: a FIFO must
// not block the open.
const openReadFlag = syscall.O_NONBLOCK
