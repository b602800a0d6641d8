package sandbox

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
)

// Launch is how a long-running server program (a language server, an MCP
// server, a hook) is started: its environment and the function that
// starts it confined. Call Release when it has exited.
type Launch struct {
	Env     []string
	Start   func(*exec.Cmd) error
	Release func()
}

// Launch prepares prog (its path or name on PATH; "" for a shell
// running the person's commands) to run with extra
// variables added to its environment (a server's own configured env,
// which may name anything). The sandbox is extended, when needed, to read
// the folder prog is installed in; its network goes through the proxy,
// judged by Options.ServerCheck. A nil sandbox starts it unconfined with
// the allow-listed environment.
func (s *Sandbox) Launch(prog string, extra map[string]string) (Launch, error) {
	l := Launch{Release: func() {}}
	sb := s
	if s != nil && s.Confined() && prog != "" {
		if p, err := exec.LookPath(prog); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				if read, _ := s.opts.Policy.Allows(real); !read {
					var err error
					if sb, err = s.Extend([]string{programFolder(s.opts.Home, real)}, nil); err != nil {
						return Launch{}, err
					}
				}
			}
		}
	}
	token := ""
	if s != nil && s.opts.Proxy != nil && s.Confined() {
		check := s.opts.ServerCheck
		if check == nil {
			check = func(context.Context, string, int) error { return errNoServerNetwork }
		}
		var release func()
		token, release = s.opts.Proxy.Register(context.Background(), check)
		l.Release = release
	}
	env := sb.Env(token)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = setEnv(env, k, extra[k])
	}
	l.Env = env
	l.Start = sb.Start
	return l, nil
}

// packageRegistries are the hosts servers may always reach: what `npx -y
// some-mcp-server`, gopls's `go list` and pyright's imports download
// from. A download from them carries no data of the workspace.
var packageRegistries = []string{
	"registry.npmjs.org", "registry.yarnpkg.com",
	"proxy.golang.org", "sum.golang.org", "storage.googleapis.com",
	"pypi.org", "files.pythonhosted.org",
	"crates.io", "index.crates.io", "static.crates.io",
}

// PackageRegistry reports whether host:port is a package registry's
// https endpoint, which server programs reach without a rule.
func PackageRegistry(host string, port int) bool {
	return port == 443 && slices.Contains(packageRegistries, host)
}
