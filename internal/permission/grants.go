package permission

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// PersistentGrant is an "Always allow" answer, remembered per workspace.
// Scope is "cmd:<fingerprint>" for shell commands or "dir:<path relative
// to the workspace root>" for file capabilities. Env is the call's
// Request.GrantEnv: the grant covers the program only as its environment
// was when the person answered.
type PersistentGrant struct {
	Workspace  string     `json:"workspace"`
	Tool       string     `json:"tool"`
	Capability Capability `json:"capability"`
	Action     Action     `json:"action"`
	Scope      string     `json:"scope"`
	Env        string     `json:"env,omitempty"`
}

// GrantStore keeps persistent grants. The server implements it with its
// SQLite store; MemoryGrantStore serves tests. An error from Allowed counts
// as "no grant" (the person is asked); an error from Save allows the call
// once and says the grant was not kept.
type GrantStore interface {
	Allowed(ctx context.Context, g PersistentGrant) (bool, error)
	Save(ctx context.Context, g PersistentGrant) error
}

// MemoryGrantStore is an in-memory GrantStore.
type MemoryGrantStore struct {
	mu sync.Mutex
	m  map[PersistentGrant]bool
}

// NewMemoryGrantStore returns an empty store.
func NewMemoryGrantStore() *MemoryGrantStore {
	return &MemoryGrantStore{m: map[PersistentGrant]bool{}}
}

// Allowed implements GrantStore.
func (s *MemoryGrantStore) Allowed(_ context.Context, g PersistentGrant) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[g], nil
}

// Save implements GrantStore.
func (s *MemoryGrantStore) Save(_ context.Context, g PersistentGrant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[g] = true
	return nil
}

// Grants lists the stored grants, sorted, for tests and `permission list`.
func (s *MemoryGrantStore) Grants() []PersistentGrant {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PersistentGrant, 0, len(s.m))
	for g := range s.m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// grantKey is a session grant: {session, tool, action, scope, env}. The
// environment digest (Request.GrantEnv) makes a grant lapse when what
// shapes the granted program changes.
type grantKey struct {
	session, tool string
	action        Action
	scope, env    string
}

// grantValue remembers which inspector warnings the person accepted with
// the grant: a later call with a new warning is asked again.
type grantValue struct {
	accepted map[string]bool
}

func (gv grantValue) covers(warnings []Finding) bool {
	for _, w := range warnings {
		if !gv.accepted[w.Key] {
			return false
		}
	}
	return true
}

// grantScope is what a grant for r would remember and how to show it.
type grantScope struct {
	scope     string // "cmd:go test" or "dir:/abs/dir"
	shown     string // the scope as a person reads it
	workspace string // root holding the scope; "" means not persistable
	relScope  string // scope relative to workspace, for persistent grants
}

// scopeOf computes r's grant scope: the fingerprint for shell commands, the
// one directory of the paths for file capabilities. ok is false when the
// call is not grantable (a compound command, no paths, several dirs).
func scopeOf(r *Request, roots []string) (grantScope, bool) {
	if strings.HasPrefix(string(r.Capability), "net.") {
		// One host: "Allow fetches from docs.python.org this session".
		if len(r.Destinations) != 1 {
			return grantScope{}, false
		}
		h := DestinationHost(r.Destinations[0])
		s := grantScope{scope: "host:" + h, shown: h}
		if len(roots) > 0 {
			s.workspace, s.relScope = filepath.Clean(roots[0]), s.scope
		}
		return s, true
	}
	if r.isShell() {
		if r.Fingerprint == "" {
			return grantScope{}, false
		}
		s := grantScope{scope: "cmd:" + r.Fingerprint, shown: r.Fingerprint}
		if len(r.Paths) > 0 {
			if root, ok := rootOf(filepath.Clean(r.Paths[0]), roots); ok {
				s.workspace, s.relScope = root, s.scope
			}
		}
		return s, true
	}
	if len(r.Paths) == 0 {
		if !r.WholeTool {
			return grantScope{}, false
		}
		// The whole tool: persisted for the first root, as the workspace
		// the person answered in.
		s := grantScope{scope: "tool:" + r.Tool, shown: r.Tool}
		if len(roots) > 0 {
			s.workspace, s.relScope = filepath.Clean(roots[0]), s.scope
		}
		return s, true
	}
	dir := filepath.Dir(filepath.Clean(r.Paths[0]))
	for _, p := range r.Paths[1:] {
		if filepath.Dir(filepath.Clean(p)) != dir {
			return grantScope{}, false
		}
	}
	s := grantScope{scope: "dir:" + dir, shown: dir + "/"}
	if root, ok := rootOf(dir, roots); ok {
		rel, _ := relInside(root, dir)
		s.workspace, s.relScope, s.shown = root, "dir:"+rel, rel+"/"
		if rel == "." {
			s.shown = "the workspace root"
		}
	}
	return s, true
}

// phrase names what a grant of this scope covers, as the choices say it:
// "go test" (quoted), fetch from docs.python.org, edits in internal/.
func (s grantScope) phrase(r *Request) string {
	switch {
	case strings.HasPrefix(s.scope, "cmd:"):
		return fmt.Sprintf("%q", s.shown)
	case strings.HasPrefix(s.scope, "host:"):
		return fmt.Sprintf("%s from %s", r.Tool, s.shown)
	case strings.HasPrefix(s.scope, "tool:"):
		return s.shown
	}
	return fmt.Sprintf("%s in %s", actionNoun(r.Action), s.shown)
}

// title is the "Allow for session" choice's title, naming the scope:
// Allow "go test" this session, Allow edits in internal/ this session.
func (s grantScope) title(r *Request) string {
	return "Allow " + s.phrase(r) + " this session"
}

// rootOf returns the innermost root holding p.
func rootOf(p string, roots []string) (string, bool) {
	best := ""
	for _, r := range roots {
		if _, ok := relInside(r, p); ok && len(r) > len(best) {
			best = filepath.Clean(r)
		}
	}
	return best, best != ""
}

func actionNoun(a Action) string {
	switch a {
	case ActionWrite:
		return "edits"
	case ActionRead:
		return "reads"
	case ActionExecute:
		return "runs"
	}
	return "calls"
}

func (s grantScope) sessionKey(r *Request) grantKey {
	return grantKey{session: r.SessionID, tool: r.Tool, action: r.Action, scope: s.scope, env: r.GrantEnv}
}

func (s grantScope) persistent(r *Request) PersistentGrant {
	return PersistentGrant{Workspace: s.workspace, Tool: r.Tool, Capability: r.Capability, Action: r.Action, Scope: s.relScope, Env: r.GrantEnv}
}

// grantFor is step 10: a session grant that covers the warnings, or a
// persistent grant when there are none.
func (g *Gate) grantFor(ctx context.Context, v *view, warnings []Finding, tr *tracer) (verdict, bool) {
	r := v.r
	s, ok := scopeOf(r, v.roots)
	if !ok {
		tr.add(10, "grants", outcomePass, "not grantable")
		return verdict{}, false
	}
	if g.hasSessionGrant(s.sessionKey(r), warnings) {
		tr.add(10, "grants", string(Allow), "session grant "+s.scope)
		return verdict{d: Decision{Kind: Allow, Source: SourceSessionGrant, Rule: s.scope}}, true
	}
	if len(warnings) == 0 && g.grants != nil && s.workspace != "" && r.NoAlways == "" {
		pg := s.persistent(r)
		has, err := g.grants.Allowed(ctx, pg)
		switch {
		case err != nil:
			tr.add(10, "grants", outcomePass, fmt.Sprintf("grant store failed (%v); treated as no grant", err))
			return verdict{}, false
		case has:
			tr.add(10, "grants", string(Allow), "persistent grant "+pg.Scope+" in "+pg.Workspace)
			return verdict{d: Decision{Kind: Allow, Source: SourcePersistentGrant, Rule: pg.Scope}}, true
		}
	}
	if tr != nil {
		detail := "no grant for " + s.scope
		if g.lapsed(s.sessionKey(r)) {
			detail = "the session grant for " + s.scope + " lapsed: " + grantLapsed
		}
		tr.add(10, "grants", outcomePass, detail)
	}
	return verdict{}, false
}

// grantLapsed says why a grant no longer covers a call it once covered.
const grantLapsed = "what shapes the program changed since it was given (its environment or configuration: GOFLAGS and the go env file, .npmrc, package.json scripts, the makefile, cargo or pytest settings)"

// lapsed reports whether the session holds a grant for k's scope made
// for another environment: the question then says why it is asked again.
func (g *Gate) lapsed(k grantKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[k.session]
	if s == nil {
		return false
	}
	for other := range s.grants {
		if other.env != k.env && other.tool == k.tool && other.action == k.action && other.scope == k.scope {
			return true
		}
	}
	return false
}

func (g *Gate) hasSessionGrant(k grantKey, warnings []Finding) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[k.session]
	if s == nil {
		return false
	}
	gv, ok := s.grants[k]
	return ok && gv.covers(warnings)
}

func (g *Gate) addSessionGrant(k grantKey, warnings []Finding) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[k.session]
	if s == nil {
		s = &sessionState{}
		g.sessions[k.session] = s
	}
	if s.grants == nil {
		s.grants = map[grantKey]grantValue{}
	}
	gv := s.grants[k]
	if gv.accepted == nil {
		gv.accepted = map[string]bool{}
	}
	for _, w := range warnings {
		gv.accepted[w.Key] = true
	}
	s.grants[k] = gv
}

// offered reports which grant choices a question may carry.
func (g *Gate) offered(r *Request, v verdict, roots []string) (s grantScope, session, always bool) {
	s, ok := scopeOf(r, roots)
	if !ok || v.noGrant {
		return s, false, false
	}
	always = len(v.warnings) == 0 && g.grants != nil && s.workspace != "" && !strings.HasPrefix(v.d.Source, SourceInspector) && r.NoAlways == "" && g.noAlways == ""
	return s, true, always
}
