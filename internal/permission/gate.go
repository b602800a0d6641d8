package permission

import (
	"context"
	"crypto/rand"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Gate. Only Policy is required; every nil field has a
// fail-closed meaning.
type Options struct {
	Policy Policy
	// Asker reaches a person; nil means nobody can be asked and asks deny.
	Asker Asker
	// Channel names where asks go in events: "editor", "terminal" or
	// "headless". Empty means "headless" without an Asker, else "editor".
	Channel string
	// OnDecision receives one Event per Check.
	OnDecision func(Event)
	// Grants stores "Always allow" per workspace; nil means the choice is
	// never offered.
	Grants GrantStore
	// NoAlways, when set, says why "Always allow" is never offered in this
	// gate (the editor's Restricted Mode); grants made before still apply.
	NoAlways string
	// Adversary is the LLM reviewer, run when Policy.Adversary is on. With
	// the policy on and no reviewer, every call asks (fail closed).
	Adversary Inspector
	// InspectTimeout bounds the adversary; 0 means DefaultInspectTimeout.
	InspectTimeout time.Duration
	// Roots returns the workspace roots, for path-scoped rules, grant
	// titles and per-workspace grants. Nil means no roots: relative globs
	// match nothing and nothing is persistently grantable.
	Roots func() []string
	// Known adds capabilities to BuiltinCapabilities: known capabilities
	// without a rule ask instead of being denied.
	Known []Capability
	// IsKnown, when set, is asked about capabilities neither built in nor
	// in Known: a tool source whose tools change while a session runs
	// (MCP servers) answers for the tools it offers now.
	IsKnown func(Capability) bool
}

// Gate judges every tool call. It is safe for concurrent use; asks are
// serialized so a person sees one prompt at a time.
type Gate struct {
	pol            *compiled
	mode           atomic.Value // Mode: pol's mode until SetMode changes it
	badMode        string       // set by the legacy NewGate for an unknown mode
	asker          Asker
	channel        string
	onEvent        func(Event)
	onDecision     func(Request, Decision) // legacy callback
	grants         GrantStore
	noAlways       string
	adversary      Inspector
	inspectTimeout time.Duration
	roots          func() []string
	known          map[Capability]bool
	isKnownFunc    func(Capability) bool
	slots          []inspectorSlot
	knowAll        bool // legacy: every valid capability is known
	seed           maphash.Seed

	// askSlot holds one token while a person is being asked. It is a
	// channel rather than a mutex so a Check queued behind another ask can
	// give up when its own context is cancelled.
	askSlot chan struct{}

	mu       sync.Mutex
	sessions map[string]*sessionState
	pending  map[string]*pendingAsk
	nextID   uint64
	// idPrefix makes question ids unique across gates and server
	// processes: an editor that keeps a transcript across a restart of the
	// server must never see an old id again.
	idPrefix string
}

// sessionState is what the gate remembers per session: the last call for
// the repetition inspector and the session grants.
type sessionState struct {
	lastCall uint64
	repeats  int
	grants   map[grantKey]grantValue
}

// New builds a gate, validating the policy: an invalid rule, mode or
// allowed_tools entry is an error, never a silently ignored line.
func New(o Options) (*Gate, error) {
	pol, err := compilePolicy(o.Policy)
	if err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
	g := newGate(pol, o)
	return g, nil
}

func newGate(pol *compiled, o Options) *Gate {
	g := &Gate{
		pol: pol, asker: o.Asker, channel: o.Channel, onEvent: o.OnDecision, grants: o.Grants, noAlways: o.NoAlways,
		adversary: o.Adversary, inspectTimeout: o.InspectTimeout, roots: o.Roots,
		known: map[Capability]bool{}, isKnownFunc: o.IsKnown, seed: maphash.MakeSeed(),
		askSlot: make(chan struct{}, 1), sessions: map[string]*sessionState{}, pending: map[string]*pendingAsk{},
		idPrefix: "ask-" + rand.Text()[:8] + "-",
	}
	g.mode.Store(pol.mode)
	if g.inspectTimeout <= 0 {
		g.inspectTimeout = DefaultInspectTimeout
	}
	if g.channel == "" {
		g.channel = "headless"
		if g.asker != nil {
			g.channel = "editor"
		}
	}
	g.slots = inspectorSlots(pol, g.adversary, g.inspectTimeout)
	for _, c := range BuiltinCapabilities() {
		g.known[c] = true
	}
	for _, c := range o.Known {
		g.known[c] = true
	}
	return g
}

// NewGate is the pre-policy constructor, kept so existing callers build.
// It behaves as before: the given mode with no rules, security and egress
// on, repetition off, and every well-formed capability treated as known
// (asked, not denied). An unknown mode denies every call.
//
// Deprecated: use New with a Policy from config.Permissions.Policy.
func NewGate(mode Mode, asker Asker, onDecision func(Request, Decision)) *Gate {
	p := DefaultPolicy()
	p.Repetition = 0
	bad := ""
	if m, err := ParseMode(string(mode)); err == nil {
		p.Mode = m
	} else {
		bad = string(mode)
	}
	pol, err := compilePolicy(p)
	if err != nil { // cannot happen: the policy above is valid
		panic(err)
	}
	g := newGate(pol, Options{Asker: asker})
	g.badMode, g.onDecision, g.knowAll = bad, onDecision, true
	return g
}

// Mode reports the gate's mode.
func (g *Gate) Mode() Mode {
	if g.badMode != "" {
		return Mode(g.badMode)
	}
	return g.currentMode()
}

// currentMode is the mode calls are judged in now.
func (g *Gate) currentMode() Mode { return g.mode.Load().(Mode) }

// SetMode switches the gate to another mode (a person chose it in the
// editor, e.g. ACP's session/set_mode). Calls judged from then on use it;
// a call already being decided keeps the mode it started with. Rules,
// inspectors, hard blocks and grants are unchanged. An unknown mode is an
// error and leaves the mode as it was.
func (g *Gate) SetMode(m Mode) error {
	if m == "" {
		return fmt.Errorf("no permission mode given: use chat, approve, smart or auto")
	}
	parsed, err := ParseMode(string(m))
	if err != nil {
		return err
	}
	if g.badMode != "" {
		return fmt.Errorf("this gate was built with the unknown mode %q and denies every call; build a new one", g.badMode)
	}
	g.mode.Store(parsed)
	return nil
}

// EndSession forgets a session's grants and repetition count.
func (g *Gate) EndSession(sessionID string) {
	g.mu.Lock()
	delete(g.sessions, sessionID)
	g.mu.Unlock()
}

func (g *Gate) rootList() []string {
	if g.roots == nil {
		return nil
	}
	return g.roots()
}

// isKnown reports whether a capability may reach the ask by default.
func (g *Gate) isKnown(c Capability) bool {
	return g.knowAll || g.known[c] || g.isKnownFunc != nil && g.isKnownFunc(c) || g.pol.rules.covers(c) || g.pol.askAlways.covers(c)
}

// callID identifies "the same call" for the repetition inspector.
func (g *Gate) callID(r *Request) uint64 {
	var h maphash.Hash
	h.SetSeed(g.seed)
	for _, s := range []string{r.Tool, string(r.Capability), string(r.Action)} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	if len(r.Input) > 0 {
		h.Write(r.Input)
		return h.Sum64()
	}
	for _, s := range []string{r.Command, r.Diff, r.Summary} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, p := range slices.Concat(r.Paths, []string{"\x00dest"}, r.Destinations) {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// repeats returns how many times in a row the session made this call,
// counting this one; record saves it.
func (g *Gate) repeats(r *Request, record bool) int {
	if g.pol.repetition <= 0 {
		return 0
	}
	id := g.callID(r)
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[r.SessionID]
	n := 1
	if s != nil && s.lastCall == id {
		n = s.repeats + 1
	}
	if record {
		if s == nil {
			s = &sessionState{}
			g.sessions[r.SessionID] = s
		}
		s.lastCall, s.repeats = id, n
	}
	return n
}

// Check decides a call, asking a person when the chain says so. The result
// is Allow or Deny, never Ask, and exactly one event is emitted.
func (g *Gate) Check(ctx context.Context, req Request) Decision {
	n := g.repeats(&req, true)
	v := g.decide(ctx, &req, n, nil)
	d := v.d
	if d.Kind == Ask {
		d = g.ask(ctx, &req, v)
	}
	g.emit(req, d)
	return d
}

func (g *Gate) emit(req Request, d Decision) {
	if g.onEvent != nil {
		g.onEvent(NewEvent(req, d))
	}
	if g.onDecision != nil {
		g.onDecision(req, d)
	}
}

// Scope returns the capabilities among caps that a session of this gate
// may use at all: none in chat mode, and none a deny rule names without a
// scope. A subagent gets this as its parent scope (Request.ParentAllowed),
// so it can never use a capability its parent could not.
func (g *Gate) Scope(caps []Capability) []string {
	out := []string{}
	if g.badMode != "" || g.currentMode() == ModeChat {
		return out
	}
	for _, c := range caps {
		r := &Request{Capability: c}
		if win := g.pol.rules.lookup(newView(r, nil)); win != nil && win.kind == Deny {
			continue
		}
		out = append(out, string(c))
	}
	return out
}
