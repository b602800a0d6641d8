// Package bench holds agentls's whole-program benchmarks: process start to
// initialize reply and idle memory beside gopls, and grep and glob as whole
// `agentls run` processes (time and peak memory) beside ripgrep, each
// measured in the same run as its baseline so the figures read as ratios. bench/report (a script beside this
// file) runs them with the other packages' benchmarks and prints the table
// docs/performance.md keeps; one benchmark alone:
//
//	go test ./bench -run '^$' -bench Startup -benchtime 12x
package bench
