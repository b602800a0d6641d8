package app

import (
	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/agent/model"
)

// Filler is the inline-completion model of the settings
// (completion.model, its provider from the same settings), or nil when
// none is set: then a front-end offers no inline completion.
func (e *Env) Filler(set Settings) (fim.Filler, error) {
	c := set.Config.Completion
	if c.Model == "" {
		return nil, nil
	}
	return model.NewFiller(c, model.Options{Providers: set.Config.Providers, Getenv: e.app.opts.Getenv})
}
