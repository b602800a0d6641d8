package app

import (
	"context"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/agent/served"
)

// servedTimeout bounds asking a local model server its context window: a
// session does not wait longer on a server that is down or busy.
const servedTimeout = 2 * time.Second

// contextWindow is the window the session compacts to. A local server
// (model.LocalServer) is asked what it really serves; a configured
// context_window below that is kept (the person wants less), one above
// it is not (the server would cut or refuse). Without an answer it is
// the setting for the model or its provider, what the provider knows,
// else the published figure (0: the session's fallback).
func (e *Env) contextWindow(ctx context.Context, spec string, set Settings, prov agent.Provider) int {
	name, m, _ := strings.Cut(spec, ":")
	configured := 0
	if p, ok := set.Config.Providers[name]; ok {
		configured = p.ContextWindow
		if w := p.Models[m].ContextWindow; w > 0 {
			configured = w
		}
	}
	if srv, ok := model.LocalServer(spec, set.Config.Providers); ok {
		ctx, cancel := context.WithTimeout(ctx, servedTimeout)
		n, kind, err := served.ContextWindow(ctx, srv, m)
		cancel()
		switch {
		case err != nil:
			e.app.log.Debug("the model server did not say its context window: using the configured or assumed one", "model", spec, "error", err)
		case configured > 0 && configured < n:
			e.app.log.Debug("context_window is below what the model server serves, and kept", "model", spec, "served", n, "context_window", configured)
			return configured
		default:
			if configured > n {
				e.app.log.Debug("context_window is above what the model server serves: using the server's", "model", spec, "served", n, "context_window", configured)
			}
			e.app.log.Debug("context window from the model server", "model", spec, "server", kind, "window", n)
			return n
		}
	}
	if configured > 0 {
		return configured
	}
	if w, ok := prov.(agent.Windowed); ok && w.ContextWindow() > 0 {
		return w.ContextWindow()
	}
	if l, ok := model.KnownLimits(m); ok {
		return l.Window
	}
	return 0
}
