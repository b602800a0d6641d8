package main

import (
	"strings"
	"testing"
)

// TestSplitWrap: `--wrap CMD ARGS…` takes the rest of serve's command
// line, whatever it holds; flags before it stay agentls's.
func TestSplitWrap(t *testing.T) {
	for _, c := range []struct {
		args, flags, wrap string
		ok                bool
	}{
		{"--stdio", "--stdio", "", true},
		{"--stdio --wrap gopls", "--stdio", "gopls", true},
		{"--stdio --model m -wrap gopls -remote=auto", "--stdio --model m", "gopls -remote=auto", true},
		{"--wrap pyright-langserver --stdio --model x", "", "pyright-langserver --stdio --model x", true},
		{"--stdio --wrap", "", "", false},
		{"-- --wrap gopls", "-- --wrap gopls", "", true},
	} {
		flags, wrap, ok := splitWrap(strings.Fields(c.args))
		if ok != c.ok || strings.Join(flags, " ") != c.flags || strings.Join(wrap, " ") != c.wrap {
			t.Errorf("%q: flags %q, wrap %q, ok %v; want %q, %q, %v", c.args, flags, wrap, ok, c.flags, c.wrap, c.ok)
		}
	}
}
