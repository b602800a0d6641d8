package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// deniedLine finds the lines programs print when the kernel refused them
// a file: "Permission denied", "Operation not permitted", EACCES, EPERM.
var deniedLine = regexp.MustCompile(`(?i)permission denied|operation not permitted|\beacces\b|\beperm\b|read-only file system`)

// netLine finds the lines programs print when the network was refused.
var netLine = regexp.MustCompile(`(?i)network is unreachable|could not resolve|temporary failure in name resolution|name or service not known|no such host|eai_again|getaddrinfo|enotfound|connect: permission denied|socket: permission denied|connection refused|agentls: .*(refused|denied|serves only)`)

// pathIn finds absolute paths in a line, bare or quoted.
var pathIn = regexp.MustCompile("(?:^|[\\s'\"`‘“(:=])(/[^\\s'\"`’”):,]*)")

// Explain reads a confined command's output and says, in words the model
// can act on, what the sandbox refused: each path outside what programs
// may read or write, and network access past the proxy. Nothing when
// programs are not confined or nothing in the output points at the
// sandbox.
func (s *Sandbox) Explain(output string) []string {
	if !s.Confined() {
		return nil
	}
	pol := s.opts.Policy
	var notes []string
	seen := map[string]bool{}
	network := false
	for _, line := range strings.Split(output, "\n") {
		if netLine.MatchString(line) {
			network = true
		}
		if !deniedLine.MatchString(line) {
			continue
		}
		for _, m := range pathIn.FindAllStringSubmatch(line, -1) {
			p := filepath.Clean(m[1])
			if seen[p] || p == "/" {
				continue
			}
			seen[p] = true
			read, write := pol.Allows(p)
			_, err := os.Lstat(p)
			missing := err != nil // it was being made: a write
			switch {
			case missing && !write:
				notes = append(notes, fmt.Sprintf("blocked by the sandbox: writing %s is outside the workspace; commands may write only in the workspace, the session's temporary folder ($TMPDIR) and the build caches; write there instead, or ask the person to add it to sandbox.writable in their agentls config", p))
			case !read:
				notes = append(notes, fmt.Sprintf("blocked by the sandbox: %s is outside what commands may read (the workspace, system folders, toolchains and build caches); work inside the workspace, or ask the person to add it to sandbox.readable in their agentls config", p))
			case !write:
				notes = append(notes, fmt.Sprintf("blocked by the sandbox: writing %s is outside the workspace; commands may write only in the workspace, the session's temporary folder ($TMPDIR) and the build caches; write there instead, or ask the person to add it to sandbox.writable in their agentls config", p))
			}
		}
	}
	if network && pol.Network && s.ProxyURL() != "" {
		notes = append(notes, "blocked by the sandbox: commands reach the network only through agentls's proxy (HTTP_PROXY/HTTPS_PROXY are set), which asks the person before each new host; direct connections, DNS lookups, UDP and connections to local ports are refused")
	} else if network {
		notes = append(notes, "blocked by the sandbox: commands have no network here")
	}
	return notes
}
