package tools

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
)

// Source is a set of tools that may change while a session runs: the
// tools of MCP servers, which start, crash and change their lists. The
// Registry asks it for its tools at every Refresh (before each model
// step), so a change reaches the model at the next step.
type Source interface {
	// Tools returns the source's tools now, waiting within ctx for what
	// is still starting, and notices for the person about what happened
	// since the last call (a server that failed, a tool left out).
	Tools(ctx context.Context) (tools []Tool, notices []string)
}

// dynamicTools are a registry's sources and the tools they offered at
// the last Refresh.
type dynamicTools struct {
	mu      sync.RWMutex
	sources []Source
	byName  map[string]Tool
	list    []Spec
	// checked holds the last Refresh's verdict on each tool (nil: offered),
	// so a tool is checked, and a notice about it given, once.
	checked map[Tool]error
}

// AddSource adds a source of tools. Its tools are offered from the next
// Refresh on; one whose name a fixed tool or an earlier source has, or
// whose spec is invalid, is left out with a notice.
func (r *Registry) AddSource(s Source) {
	r.dyn.mu.Lock()
	r.dyn.sources = append(r.dyn.sources, s)
	r.dyn.mu.Unlock()
}

// Refresh asks every source for its tools now, and every Situated
// fixed tool for its situation; Get and Specs see them until the next
// Refresh. It returns the sources' notices and one for each tool left
// out, for the person.
func (r *Registry) Refresh(ctx context.Context) []string {
	r.situate(ctx)
	r.dyn.mu.RLock()
	sources := append([]Source(nil), r.dyn.sources...)
	checked := r.dyn.checked
	r.dyn.mu.RUnlock()
	if len(sources) == 0 {
		return nil
	}
	var notices []string
	byName := map[string]Tool{}
	nextChecked := map[Tool]error{}
	for _, src := range sources {
		ts, notes := src.Tools(ctx)
		notices = append(notices, notes...)
		for _, t := range ts {
			// Only a comparable tool (a pointer, as a source's tools
			// should be) can be a map key; others are checked each time.
			cacheable := reflect.TypeOf(t).Comparable()
			var err error
			seen := false
			if cacheable {
				err, seen = checked[t]
			}
			if !seen {
				err = checkSpec(t.Spec())
			}
			name := t.Spec().Name
			if err == nil && (r.byName[name] != nil || byName[name] != nil) {
				err = fmt.Errorf("tool %s is left out: another tool has that name", name)
			}
			if cacheable {
				nextChecked[t] = err
			}
			if err != nil {
				if !seen {
					notices = append(notices, err.Error())
				}
				continue
			}
			byName[name] = t
		}
	}
	specs := make([]Spec, 0, len(byName))
	for _, t := range byName {
		specs = append(specs, t.Spec())
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	r.dyn.mu.Lock()
	r.dyn.byName, r.dyn.list, r.dyn.checked = byName, specs, nextChecked
	r.dyn.mu.Unlock()
	return notices
}

func (d *dynamicTools) get(name string) (Tool, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	t, ok := d.byName[name]
	return t, ok
}

func (d *dynamicTools) specs() []Spec {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.list
}

// situate asks the Situated fixed tools where they stand.
func (r *Registry) situate(ctx context.Context) {
	situ := map[string]string{}
	for _, n := range r.names {
		if t, ok := r.byName[n].(Situated); ok {
			situ[n] = t.Situation(ctx)
		}
	}
	r.situMu.Lock()
	r.situ = situ
	r.situMu.Unlock()
}
