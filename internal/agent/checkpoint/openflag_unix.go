//go:build unix

package checkpoint

import "syscall"

// openFlag is added when a file's content is read: a link swapped in
// since its lstat is not followed, and a FIFO does not block the open.
const openFlag = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
