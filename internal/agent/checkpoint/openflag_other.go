//go:build !unix

package checkpoint

// openFlag is added when a file's content is read (nothing here: the file
// opened is checked against its lstat instead).
const openFlag = 0
