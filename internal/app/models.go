package app

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/agent/model"
)

// ModelChoice is a model a person can switch a session to, with where
// agentls found it (for a picker's description).
type ModelChoice struct {
	Model string `json:"model"`
	From  string `json:"from"`
}

// ModelChoices are the models a model picker offers for a session that
// runs current ("" before there is one): current first, then the models
// named where a model is set (--model, the front-end's own sources,
// AGENTLS_MODEL, the config file), the models configured under
// providers.<name>.models, and agentls's suggestions for the built-in
// providers whose API key is set. Each model once, in that order. A model
// not listed can still be named (agentls.setModel, --model).
func (e *Env) ModelChoices(current string, set Settings, frontend ...model.Source) []ModelChoice {
	o := e.app.opts
	var out []ModelChoice
	add := func(spec, from string) {
		spec = strings.TrimSpace(spec)
		if spec == "" || slices.ContainsFunc(out, func(c ModelChoice) bool { return c.Model == spec }) {
			return
		}
		out = append(out, ModelChoice{Model: spec, From: from})
	}
	add(current, "this session's model")
	add(o.ModelFlag, "--model")
	for _, s := range frontend {
		add(s.Value, s.Name)
	}
	cfgName := "the config file"
	if o.ConfigPath != "" {
		cfgName = o.ConfigPath
	}
	user, _, _ := e.app.UserConfig()
	add(o.Getenv("AGENTLS_MODEL"), "the AGENTLS_MODEL environment variable")
	add(user.Model, `"model" in `+cfgName)
	names := make([]string, 0, len(set.Config.Providers))
	for name := range set.Config.Providers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		models := make([]string, 0, len(set.Config.Providers[name].Models))
		for m := range set.Config.Providers[name].Models {
			models = append(models, m)
		}
		slices.Sort(models)
		for _, m := range models {
			add(name+":"+m, "providers."+name+".models in the settings")
		}
	}
	for _, s := range model.Suggested(o.Getenv) {
		add(s.Model, "suggested by agentls ("+s.KeyEnv+" is set)")
	}
	return out
}
