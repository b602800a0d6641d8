// Package sandboxtest makes the sandbox agentls runs programs in, for tests
// that start real programs (language servers, MCP servers, commands) and
// must pass confined as they run for a person.
package sandboxtest

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/agentls/agentls/internal/sandbox"
)

// New returns a sandbox over roots with this machine's toolchains and
// caches, a temporary folder of its own and a proxy through which servers
// reach the package registries and nothing else; it is closed when the
// test ends. On Linux and macOS a sandbox that
// cannot confine fails the test, with what the kernel lacks.
func New(t testing.TB, roots ...string) *sandbox.Sandbox {
	t.Helper()
	tmp := t.TempDir()
	m := sandbox.NewMachine()
	sandbox.PrepareCaches(m)
	sb, err := sandbox.New(sandbox.Options{
		Policy: sandbox.DefaultPolicy(m, roots, tmp, nil, nil), TempDir: tmp, Home: m.Home,
		Proxy: sandbox.NewProxy(sandbox.ProxyOptions{}),
		ServerCheck: func(_ context.Context, host string, port int) error {
			if sandbox.PackageRegistry(host, port) {
				return nil
			}
			return errors.New("sandboxtest: servers reach only the package registries")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if (runtime.GOOS == "linux" || runtime.GOOS == "darwin") && !sb.Confined() {
		t.Fatalf("the sandbox cannot confine programs here: %s", sb.Status().Reason)
	}
	return sb
}
