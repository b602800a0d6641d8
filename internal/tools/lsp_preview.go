package tools

// The preview cache of the lsp_* tools that change files: the changes
// Describe computed (and the person approved) are the ones Run applies.

import (
	"fmt"
	"sync"
)

// lspCache keeps the changes a tool computed in Describe for its Run, so
// the person approves exactly what is applied.
type lspCache struct {
	mu    sync.Mutex
	plans map[string]lspCached
}

type lspCached struct {
	input string
	plans []plan
	extra any
}

func (c *lspCache) put(call Call, plans []plan, extra any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plans == nil || len(c.plans) > 64 {
		c.plans = map[string]lspCached{}
	}
	c.plans[call.ID] = lspCached{input: string(call.Input), plans: plans, extra: extra}
}

func (c *lspCache) take(call Call) (lspCached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plans[call.ID]
	delete(c.plans, call.ID)
	if !ok || p.input != string(call.Input) {
		return lspCached{}, false
	}
	return p, true
}

// stillCurrent checks that every planned file is as it was when the
// change was computed (and shown to the person).
func (w *Workspace) stillCurrent(plans []plan, tool string) error {
	for _, p := range plans {
		cur, err := w.ReadFile(p.abs)
		if err != nil {
			return fmt.Errorf("%s: %s: %w; nothing was changed", tool, p.shown, err)
		}
		if cur.Text != p.cur.Text || cur.Open != p.cur.Open || cur.Open && cur.Version != p.cur.Version {
			return fmt.Errorf("%s: %s changed since the change was computed; nothing was changed: run %s again", tool, p.shown, tool)
		}
	}
	return nil
}
