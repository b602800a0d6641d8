//go:build !unix

package shell

// grantEnvOpenFlag: no FIFO to guard against here.
const grantEnvOpenFlag = 0
