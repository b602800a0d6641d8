//go:build !unix && !windows

package tools

// openReadFlag is added when a tool opens a file to read it: a FIFO must
// not block the open.
const openReadFlag = 0
