package mcp

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// stopGrace is how long a stdio server may take to exit once its input
// ends before it (and what it started) is killed.
const stopGrace = 2 * time.Second

// launch is how one start of a server connects: the transport, and for a
// stdio server its process.
type launch struct {
	transport sdk.Transport
	proc      *proc.Proc // nil for HTTP
}

// stop ends the process of a stdio server: it has seen end of input when
// the session closed; one that does not exit in time is killed, and so is
// anything it started that still runs.
func (l launch) stop() {
	if l.proc == nil {
		return
	}
	_ = l.proc.Close()
	select {
	case <-l.proc.Exited():
	case <-time.After(stopGrace):
	}
	l.proc.Kill()
	<-l.proc.Exited()
}

// kill ends the process of a stdio server at once (and what it started):
// a stuck server gets no grace.
func (l launch) kill() {
	if l.proc == nil {
		return
	}
	l.proc.Kill()
	<-l.proc.Exited()
	_ = l.proc.Close()
}

// status describes how a stdio server ended, with the end of its stderr.
func (l launch) status() string {
	if l.proc == nil {
		return "the connection closed"
	}
	return l.proc.ExitStatus()
}

// launch prepares a start of the named server.
func (m *Manager) launch(cfg config.MCPServer) (launch, error) {
	if cfg.URL != "" {
		return m.launchHTTP(cfg)
	}
	return m.launchStdio(cfg)
}

// launchStdio starts the program. A server the person named (user file,
// editor) while a workspace folder is untrusted starts clear of that
// folder: outside it by default, with its entries dropped from PATH and
// its program found outside it, so a repository cannot swap the program
// (node_modules/.bin/…) or what it loads from its working folder (npx,
// python -m). A trusted workspace's own server starts in that workspace.
func (m *Manager) launchStdio(cfg config.MCPServer) (launch, error) {
	argv := make([]string, len(cfg.Command))
	for i, a := range cfg.Command {
		v, err := m.expand(a)
		if err != nil {
			return launch{}, fmt.Errorf("command: %w", err)
		}
		argv[i] = v
	}
	argv[0] = proc.ExpandHome(argv[0])
	env := make(map[string]string, len(cfg.Env))
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		v, err := m.expand(cfg.Env[k])
		if err != nil {
			return launch{}, fmt.Errorf("env %s: %w", k, err)
		}
		env[k] = v
	}
	var untrusted []string
	if cfg.Root == "" {
		for _, r := range m.roots() {
			if !m.trusted(r) {
				untrusted = append(untrusted, r)
			}
		}
	}
	dir := cfg.Root
	if dir == "" {
		if roots := m.roots(); len(roots) > 0 && len(untrusted) == 0 {
			dir = roots[0]
		} else if home, err := os.UserHomeDir(); err == nil {
			dir = home
		}
	}
	if cfg.Cwd != "" {
		cwd := proc.ExpandHome(cfg.Cwd)
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(dir, cwd)
		}
		dir = cwd
	}
	if len(untrusted) > 0 {
		g := proc.NewGuard(untrusted)
		path, ok := env["PATH"]
		if !ok {
			path = os.Getenv("PATH")
		}
		env["PATH"] = g.CleanPath(path)
		prog := g.Program(argv[0], env["PATH"])
		if prog == "" {
			return launch{}, fmt.Errorf("its program %q is found only inside a folder you have not trusted (%s); install it elsewhere or give its full path", argv[0], untrusted[0])
		}
		argv[0] = prog
	}
	sl, err := m.opts.Sandbox.Launch(argv[0], env)
	if err != nil {
		return launch{}, fmt.Errorf("start %s in %s: %w", argv[0], dir, err)
	}
	p, err := proc.Start(argv, dir, sl.Env, sl.Start)
	if err != nil {
		sl.Release()
		return launch{}, fmt.Errorf("start %s in %s: %w", argv[0], dir, err)
	}
	go func() {
		<-p.Exited()
		sl.Release()
	}()
	// Closing the session closes the process's pipes once (Writer).
	return launch{transport: &sdk.IOTransport{Reader: io.NopCloser(p), Writer: p}, proc: p}, nil
}

// launchHTTP connects to a streamable HTTP endpoint, sending the
// configured headers with every request.
func (m *Manager) launchHTTP(cfg config.MCPServer) (launch, error) {
	endpoint, err := m.expand(cfg.URL)
	if err != nil {
		return launch{}, fmt.Errorf("url: %w", err)
	}
	headers := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
		v, err := m.expand(cfg.Headers[k])
		if err != nil {
			return launch{}, fmt.Errorf("headers %s: %w", k, err)
		}
		headers.Set(k, v)
	}
	client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers}}
	return launch{transport: &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}}, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header[k] = slices.Clone(v)
	}
	return t.base.RoundTrip(r)
}

// envRef matches ${VAR} and ${VAR:-default}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces ${VAR} with the variable's value and ${VAR:-default}
// with the value or, when it is unset or empty, the default. An unset
// variable without a default is an error, not an empty value: a missing
// token should say so rather than fail as a 401 later.
func (m *Manager) expand(s string) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		sub := envRef.FindStringSubmatch(ref)
		if v := m.getenv(sub[1]); v != "" {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		missing = append(missing, sub[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("the environment variable %s is not set; set it where agentls starts, or write ${%s:-default}", missing[0], missing[0])
	}
	return out, nil
}
