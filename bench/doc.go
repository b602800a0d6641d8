// Package bench holds agentls's whole-program benchmarks: process start to
// initialize reply and idle memory, each reported beside a baseline run in
// the same process so the figures read as ratios. Run them with
//
//	go test ./bench -bench . -run XXX
package bench
