package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools"
)

// DefaultMaxSteps bounds the model calls of one turn.
const DefaultMaxSteps = 50

// Config is what a session needs to run turns.
type Config struct {
	Provider Provider
	// Model is the "provider:model" Provider reaches, for events and the
	// journal ("" leaves it unnamed).
	Model string
	// ModelChosen says Model was picked for this session (a model picker,
	// run's --model) rather than taken from the defaults; it is journaled
	// with a new session's model and whenever a resumed session runs
	// another model than it last did, so a later resume keeps a chosen
	// model and follows the defaults otherwise.
	ModelChosen bool
	Tools       *tools.Registry
	Gate        *permission.Gate
	// MaxSteps bounds model calls per turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// System is the system prompt; empty means DefaultSystemPrompt.
	System string
	// Instructions, when set, returns the project's instructions
	// (AGENTS.md …) for the folder the person is in (SetFolder; "" for
	// the workspace's first folder), to follow the system prompt; it is
	// read at the start of every turn, so an edited file counts from the
	// next turn.
	Instructions func(folder string) Instructions
	// Environment, when set, describes where the session works (the
	// system, the workspace, the tools that work there, the permission
	// mode, the sandbox), placed between the system prompt and the
	// instructions. It is read at every turn after the tools are
	// refreshed, so it can tell what the tool sources offer now.
	Environment func(ctx context.Context) string
	// Skills, when set, returns the system prompt's list of skills (their
	// names and descriptions, for the skill tool of Tools and Subagents to
	// load), read at the start of every turn as Instructions is.
	Skills func() string
	// Channel says where asks go ("editor", "terminal", "headless"), for
	// permission events.
	Channel string
	// Hooks are the lifecycle hooks to run (validated configuration).
	Hooks []hooks.Config
	// HookDir is the hooks' working directory (the first root).
	HookDir func() string
	// HookSandbox confines the hooks' programs; nil runs them unconfined
	// with the allow-listed environment.
	HookSandbox *sandbox.Sandbox
	// MaxStopContinuations bounds how often Stop hooks may send the model
	// back to work in one turn; 0 means the hooks package default (8).
	MaxStopContinuations int
	// ContextWindow is the model's window in tokens, for compaction; 0
	// means unknown (a conservative default is used, and a provider's
	// "too long" answer teaches the real one).
	ContextWindow int
	// Price is what the model's tokens cost; nil means unknown, and the
	// session's usage then counts tokens only (Usage.Cost stays nil).
	Price *Price
	// Journal keeps every message, compaction and usage as it happens;
	// nil keeps the conversation in memory only.
	Journal Journal
	// Restored is where a resumed session starts: its earlier history,
	// turn count and usage (Restore).
	Restored Restored
	// Subagents are the tools a subagent of this session gets (the agent
	// tool); nil means the session cannot start subagents.
	Subagents *tools.Registry
	// ParentScope, for a subagent, are the capabilities its parent may
	// use: every call outside them is denied without asking.
	ParentScope []string
	// GateSession is the session ID the gate sees; empty means this
	// session's own. A subagent's is its parent's.
	GateSession string
	// Checkpoints, when set, takes a checkpoint before every call that
	// may change files (package checkpoint); nil takes none.
	Checkpoints Checkpointer

	// parentTurn, for a subagent, is its parent's turn: its checkpoints
	// belong there.
	parentTurn string
}

// Checkpointer keeps what a step changes in the workspace, so the
// workspace can go back to before it (app wires package checkpoint).
type Checkpointer interface {
	// BeginStep is called before a call that may change files; end is
	// called after it ran. An error means the step runs without a
	// checkpoint (the person is warned).
	BeginStep(ctx context.Context, s Step) (end func(ctx context.Context) error, err error)
}

// Step is a call a checkpoint is taken before.
type Step struct {
	// SessionID and TurnID are the session's and turn's the checkpoint
	// belongs to: a subagent's steps are its parent's.
	SessionID, TurnID, CallID string
	Tool, Title               string
}

// ErrBusy is returned when a turn is asked for while another one runs.
var ErrBusy = errors.New("a turn is already running in this session: wait for it or cancel it (agentls.cancel)")

// errCompacting refuses a restore while the conversation is compacted
// (the compaction would replace the restored history with its summary).
var errCompacting = errors.New("the conversation is being compacted: restore when it is done")

// errRestoring is a turn, compaction or model switch asked for while a
// restore of the session's checkpoints runs; it is ErrBusy to errors.Is.
type errRestoring struct{}

func (errRestoring) Error() string {
	return "a restore of this session's checkpoints is running: wait for it to finish"
}

func (errRestoring) Is(target error) bool { return target == ErrBusy }

// HoldForRestore marks the session busy for a restore of its checkpoints
// (files and conversation): until release is called, a turn, a compaction
// and a model switch are refused (ErrBusy), so none changes files or the
// conversation under the restore. It is refused itself while a turn, a
// compaction or another restore runs. ResetConversation stays allowed:
// it is the restore's own.
func (s *Session) HoldForRestore() (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.restoring:
		return nil, errRestoring{}
	case s.current != nil:
		return nil, ErrBusy
	case s.compacting:
		return nil, errCompacting
	}
	s.restoring = true
	return func() {
		s.mu.Lock()
		s.restoring = false
		s.mu.Unlock()
	}, nil
}

// NewSessionID returns an id unique across processes and restarts, so turn
// ids ("<session>-t3") can key the change history.
func NewSessionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "s" + strconv.FormatInt(time.Now().Unix(), 36) + hex.EncodeToString(b[:])
}

// Session is a conversation: its history carries over from turn to turn,
// and it runs at most one turn at a time.
type Session struct {
	ID  string
	cfg Config

	mu      sync.Mutex
	history []Message
	current *Turn
	turns   int
	usage   Usage   // the session's total
	learned int     // the window a provider named in a "too long" answer
	calib   float64 // provider's prompt tokens per estimated token
	todos   []tools.Todo
	// folder is where the person is (SetFolder); shownInstr the
	// instruction files last announced (EventInstructions).
	folder     string
	shownInstr string

	journalFailed bool
	compacting    bool // Compact runs: the model must not change under it
	restoring     bool // a restore of the session's checkpoints runs (HoldForRestore)

	hooks   *hooks.Runner
	hookErr error
	// hookRelease frees what the hooks hold in the sandbox (a proxy token).
	hookRelease func()
	hookSend    func(Event)
	started     bool // SessionStart hooks ran
}

// NewSession returns an empty session.
func NewSession(id string, cfg Config) *Session {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.System == "" {
		cfg.System = DefaultSystemPrompt
	}
	s := &Session{ID: id, cfg: cfg, history: cfg.Restored.History, turns: cfg.Restored.Turns, usage: cfg.Restored.Usage,
		todos: cfg.Restored.Todos}
	switch last := cfg.Restored.Model; {
	case cfg.Model == "":
	case last != "" && cfg.Model != last:
		// A stored session goes on with another model than it last ran:
		// as after a switch, journaled so the next resume reads the
		// history the same way.
		s.history = crossModel(s.history)
		s.journal(RecordModel, modelRecord{Model: cfg.Model, Chosen: cfg.ModelChosen})
	case last == "" && cfg.ModelChosen:
		// A new session on a model chosen for it keeps it when resumed.
		s.journal(RecordModel, modelRecord{Model: cfg.Model, Chosen: true})
	}
	s.initHooks()
	return s
}

// History returns the conversation as the model will next see it.
func (s *Session) History() []Message { return s.snapshot() }

// Usage returns the session's token usage so far.
func (s *Session) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// ContextWindow is the context window the session works with, in tokens:
// a learned limit, the configured or published one, else the fallback
// compaction assumes.
func (s *Session) ContextWindow() int { return s.window() }

// priced is u with its cost when the model's price is known.
func (s *Session) priced(u Usage) Usage {
	if s.cfg.Price == nil {
		return u
	}
	return s.cfg.Price.Priced(u)
}

// addUsage adds one call's usage (priced) to the session and journals
// it: the journal keeps each call's cost at the price of its time, so a
// resumed session with another model or price still sums right.
func (s *Session) addUsage(u Usage) {
	if u.IsZero() {
		return
	}
	s.mu.Lock()
	s.usage = s.usage.Add(u)
	s.mu.Unlock()
	s.journal(RecordUsage, u)
}

// Turn is one user prompt and everything the agent does to answer it.
type Turn struct {
	ID     string
	cancel context.CancelFunc
	done   chan struct{}
	result Result

	mu    sync.Mutex
	usage Usage // the turn's, subagents' included
}

// addUsage counts a model call's usage in the turn.
func (t *Turn) addUsage(u Usage) {
	t.mu.Lock()
	t.usage = t.usage.Add(u)
	t.mu.Unlock()
}

func (t *Turn) usageSoFar() Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usage
}

// Result is how a turn ended.
type Result struct {
	// Reason is one of the Reason* constants.
	Reason string
	// Text is the model's last answer text.
	Text string
	// Err is set when Reason is ReasonError.
	Err error
	// Usage is the turn's token usage.
	Usage Usage
}

// Cancel stops the turn; Wait then returns with ReasonCancelled.
func (t *Turn) Cancel() { t.cancel() }

// Wait blocks until the turn ends.
func (t *Turn) Wait() Result {
	<-t.done
	return t.result
}

// Done is closed when the turn ends.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Start begins a turn in the background. emit receives every event, in
// order, from the turn's goroutine; it must not block for long.
func (s *Session) Start(ctx context.Context, prompt string, emit func(Event)) (*Turn, error) {
	return s.StartAfter(ctx, prompt, emit, nil)
}

// StartAfter is Start with the turn held until ready is closed (nil: not
// held). The turn is the session's current one at once, so a second ask
// is refused; it just does nothing — no event, no model call — before
// ready. The editor server uses it to let its reply to the ask reach the
// client before the turn's first messages.
func (s *Session) StartAfter(ctx context.Context, prompt string, emit func(Event), ready <-chan struct{}) (*Turn, error) {
	if strings.TrimSpace(prompt) == "" {
		return nil, errors.New("empty prompt: say what the agent should do")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil {
		return nil, ErrBusy
	}
	if s.restoring {
		return nil, errRestoring{}
	}
	s.turns++
	ctx, cancel := context.WithCancel(ctx)
	t := &Turn{ID: s.ID + "-t" + strconv.Itoa(s.turns), cancel: cancel, done: make(chan struct{})}
	s.current = t
	s.mu.Unlock()
	s.journal(RecordTurn, turnRecord{ID: t.ID})
	s.mu.Lock()
	go func() {
		defer cancel()
		if ready != nil {
			select {
			case <-ready:
			case <-ctx.Done():
			}
		}
		t.result = s.run(ctx, t, prompt, emit)
		s.mu.Lock()
		s.current = nil
		s.mu.Unlock()
		close(t.done)
	}()
	return t, nil
}

// Current returns the running turn, or nil.
func (s *Session) Current() *Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

func (s *Session) run(ctx context.Context, t *Turn, prompt string, emit func(Event)) Result {
	send := func(e Event) {
		e.SessionID, e.TurnID = s.ID, t.ID
		emit(e)
	}
	end := func(r Result) Result {
		if r.Err != nil {
			send(Event{Type: EventError, Message: r.Err.Error()})
		}
		turnUsage := t.usageSoFar()
		r.Usage = turnUsage
		e := Event{Type: EventTurnEnd, Reason: r.Reason}
		if su := s.Usage(); !su.IsZero() { // providers that report none show none
			e.TurnUsage, e.SessionUsage = &turnUsage, &su
		}
		send(e)
		return r
	}
	s.setHookSend(send)
	defer s.setHookSend(nil)
	send(Event{Type: EventTurnStart, Model: s.Model()})
	if s.hookErr != nil {
		return end(Result{Reason: ReasonError, Err: s.hookErr})
	}
	prompt, blocked := s.promptHooks(ctx, t, prompt)
	if blocked != nil {
		return end(*blocked)
	}
	s.appendHistory(Message{Role: RoleUser, Content: prompt})
	last := ""
	stops := s.newStopLimit()
	system := ""
	for step := 0; ; step++ {
		if step >= s.cfg.MaxSteps {
			return end(Result{Reason: ReasonMaxSteps, Text: last, Err: fmt.Errorf(
				"the turn stopped after %d model calls (max_steps): say \"continue\" to go on from where it stopped, or raise max_steps", s.cfg.MaxSteps)})
		}
		if ctx.Err() != nil {
			return end(Result{Reason: ReasonCancelled, Text: last})
		}
		// In chat mode no tool may run: offering none keeps the model from
		// planning around calls that would only be skipped. Otherwise the
		// tools are read at every step: a source's (MCP servers) change.
		var defs []ToolDef
		if s.cfg.Gate.Mode() != permission.ModeChat {
			for _, n := range s.cfg.Tools.Refresh(ctx) {
				send(Event{Type: EventWarning, Message: n})
			}
			defs = s.toolDefs()
		}
		if step == 0 {
			var in Instructions
			system, in = s.system(ctx) // after the refresh: the environment names what is offered
			s.announceInstructions(in, send)
		}
		resp, err := s.call(ctx, t, Request{System: system, Tools: defs}, send)
		if err != nil {
			if ctx.Err() != nil {
				return end(Result{Reason: ReasonCancelled, Text: last})
			}
			return end(Result{Reason: ReasonError, Text: last, Err: err})
		}
		if resp.Text != "" {
			last = resp.Text
			send(Event{Type: EventText, Text: resp.Text})
		}
		s.appendHistory(Message{Role: RoleAssistant, Content: resp.Text, ToolCalls: resp.ToolCalls, Thinking: resp.Thinking})
		if len(resp.ToolCalls) == 0 {
			again, stop := s.stopHooks(ctx, t, stops, send)
			if stop != nil {
				stop.Text = last
				return end(*stop)
			}
			if again {
				continue
			}
			return end(Result{Reason: ReasonCompleted, Text: last})
		}
		for i, call := range resp.ToolCalls {
			send(Event{Type: EventToolCall, ID: call.ID, Name: call.Name, Input: call.Input, Title: title(call), Kind: s.kindOf(call.Name)})
			res, reason := s.execute(ctx, t, call, send)
			send(Event{Type: EventToolResult, ID: call.ID, Name: call.Name, IsError: &res.IsError, Content: &res.Content, Diff: res.Diff, Hunks: res.Hunks})
			if res.Todos != nil {
				s.setTodos(res.Todos, send)
			}
			s.appendHistory(Message{Role: RoleTool, ToolCallID: call.ID, Name: call.Name, Content: res.Content, IsError: res.IsError})
			if ctx.Err() != nil {
				reason = ReasonCancelled
			}
			if reason != "" {
				// Every call the model made needs an answer in the history.
				for _, rest := range resp.ToolCalls[i+1:] {
					s.appendHistory(Message{Role: RoleTool, ToolCallID: rest.ID, Name: rest.Name, Content: "Not run: the turn ended (" + reason + ")."})
				}
				return end(Result{Reason: reason, Text: last})
			}
		}
	}
}

// call makes one model call with the current history: room is made first
// when the request would not fit, the answer streams as text_delta and
// thinking_delta events, and a provider's "too long" answer compacts and
// retries once. The call's usage is reported and journaled.
func (s *Session) call(ctx context.Context, t *Turn, req Request, send func(Event)) (Response, error) {
	req.Messages = s.snapshot()
	req, err := s.ensureRoom(ctx, req, false, send)
	if err != nil {
		return Response{}, err
	}
	for attempt := 0; ; attempt++ {
		text := newCoalescer(EventTextDelta, send)
		thinking := newCoalescer(EventThinkingDelta, send)
		resp, err := s.cfg.Provider.Complete(ctx, req, Stream{Text: text.add, Thinking: thinking.add})
		text.flush()
		thinking.flush()
		var tooLong *ContextLengthError
		if errors.As(err, &tooLong) && attempt == 0 && ctx.Err() == nil {
			if tooLong.Limit > 0 {
				s.mu.Lock()
				s.learned = tooLong.Limit
				s.mu.Unlock()
			}
			if req, err = s.ensureRoom(ctx, req, true, send); err != nil {
				return Response{}, err
			}
			continue
		}
		if err != nil {
			return Response{}, fmt.Errorf("model %s: %w", s.cfg.Provider.Name(), err)
		}
		s.calibrate(req, resp.Usage)
		u := s.priced(resp.Usage)
		s.addUsage(u)
		t.addUsage(u)
		if !u.IsZero() {
			tu, su := t.usageSoFar(), s.Usage()
			send(Event{Type: EventUsage, Usage: &u, TurnUsage: &tu, SessionUsage: &su})
		}
		for _, th := range resp.Thinking {
			if th.Text != "" {
				send(Event{Type: EventThinking, Text: th.Text})
			}
		}
		return resp, nil
	}
}

// betweenTurnsLocked says why a change between turns (a compaction, a
// model switch) cannot be made now: a turn or a compaction runs
// (ErrBusy), or a restore holds the session. s.mu is held.
func (s *Session) betweenTurnsLocked() error {
	switch {
	case s.current != nil || s.compacting:
		return ErrBusy
	case s.restoring:
		return errRestoring{}
	}
	return nil
}

// Compact compacts the conversation now (agentls.compact, --compact),
// between turns. It reports what it did through emit.
func (s *Session) Compact(ctx context.Context, emit func(Event)) error {
	s.mu.Lock()
	if err := s.betweenTurnsLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.compacting = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.compacting = false
		s.mu.Unlock()
	}()
	send := func(e Event) {
		e.SessionID = s.ID
		emit(e)
	}
	system, _ := s.system(ctx)
	_, err := s.ensureRoom(ctx, Request{System: system, Messages: s.snapshot(), Tools: s.toolDefs()}, true, send)
	return err
}

// execute passes one call through the PreToolUse hooks and the gate, runs
// it and lets PostToolUse hooks add context. A non-empty reason ends the
// turn (a person's deny, a hook's halt).
func (s *Session) execute(ctx context.Context, t *Turn, call ToolCall, send func(Event)) (tools.Result, string) {
	tool, ok := s.cfg.Tools.Get(call.Name)
	if !ok {
		names := []string{}
		for _, sp := range s.cfg.Tools.Specs() {
			names = append(names, sp.Name)
		}
		return tools.Errorf("unknown tool %q; available tools: %s", call.Name, strings.Join(names, ", ")), ""
	}
	tc := tools.Call{ID: call.ID, SessionID: s.ID, TurnID: t.ID, Input: call.Input}
	if s.cfg.Subagents != nil {
		tc.Subagent = func(ctx context.Context, prompt, description string) (string, error) {
			return s.runSubagent(ctx, t, call.ID, prompt, description, send)
		}
	}
	verdict, res, reason := s.preToolHooks(ctx, t, tool, &tc)
	if res != nil {
		return *res, reason
	}
	req, err := tool.Describe(ctx, tc)
	if err != nil {
		return tools.Errorf("%v", err), ""
	}
	req.SessionID = s.gateSession()
	req.Input = tc.Input
	req.Hook = verdict
	if s.cfg.ParentScope != nil {
		req.ParentAllowed = s.cfg.ParentScope
	}
	d := s.cfg.Gate.Check(ctx, req)
	scope := d.Scope
	if scope == "" {
		scope = strings.Join(req.Paths, " ")
	}
	send(Event{Type: EventPermission, ID: call.ID, Kind: string(tools.KindOf(tool.Spec())), Tool: req.Tool, Capability: string(req.Capability), Scope: scope,
		Decision: string(d.Kind), Source: d.Source, Rule: d.Rule, Reason: d.Reason, Channel: s.cfg.Channel})
	if d.Kind != permission.Allow {
		switch {
		case d.Skipped:
			return tools.Result{Content: "Skipped: agentls is in chat mode, so no tool runs. Answer from what you know, or tell the user what you would do."}, ""
		case d.StopTurn && ctx.Err() != nil:
			return tools.Result{Content: "The turn was cancelled before this call was answered.", IsError: true, Stop: true}, ReasonCancelled
		case d.StopTurn:
			msg := "The user denied this call"
			if d.Reason != "" && d.Reason != "denied by the user" {
				msg += " (" + d.Reason + ")"
			}
			return tools.Result{Content: msg + ". The turn ends here; do not retry.", IsError: true, Stop: true}, ReasonDenied
		}
		return tools.Errorf("permission denied (%s): %s", d.Source, d.Reason), ""
	}
	tc.Revised = d.Revision
	tc.PersonApproved = d.Source == permission.SourceUser
	tc.Check = func(ctx context.Context, r permission.Request) permission.Decision {
		return s.checkDuring(ctx, call.ID, r, send)
	}
	end := s.beginStep(ctx, t, tool.Spec(), call, send)
	out, err := tool.Run(tools.WithSession(ctx, s.ID), tc)
	end()
	if err != nil {
		if ctx.Err() != nil {
			return tools.Errorf("%s was cancelled", call.Name), ""
		}
		out = tools.Errorf("%s failed: %v", call.Name, err)
	}
	out, reason = s.postToolHooks(ctx, t, call.Name, tc.Input, out)
	if reason == "" && out.Stop {
		// The tool met a person's no while it ran (a host a command
		// reached, the editor refusing its terminal): the turn ends as
		// after a denied call.
		reason = ReasonDenied
	}
	return out, reason
}

// checkDuring is the gate's decision on something a running call found
// it needs (a host its command connects to), recorded and shown like the
// call's own decision.
func (s *Session) checkDuring(ctx context.Context, callID string, req permission.Request, send func(Event)) permission.Decision {
	req.SessionID = s.gateSession()
	if s.cfg.ParentScope != nil {
		req.ParentAllowed = s.cfg.ParentScope
	}
	d := s.cfg.Gate.Check(ctx, req)
	scope := d.Scope
	if scope == "" {
		scope = strings.Join(req.Destinations, " ")
	}
	send(Event{Type: EventPermission, ID: callID, Kind: string(tools.KindFetch), Tool: req.Tool, Capability: string(req.Capability), Scope: scope,
		Decision: string(d.Kind), Source: d.Source, Rule: d.Rule, Reason: d.Reason, Channel: s.cfg.Channel})
	return d
}

func (s *Session) toolDefs() []ToolDef {
	var defs []ToolDef
	for _, sp := range s.cfg.Tools.Specs() {
		defs = append(defs, ToolDef{Name: sp.Name, Description: sp.Description, Schema: sp.Schema})
	}
	return defs
}

func (s *Session) appendHistory(m Message) {
	s.mu.Lock()
	s.history = append(s.history, m)
	s.mu.Unlock()
	s.journal(RecordMessage, m)
}

func (s *Session) snapshot() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.history...)
}

// title is a short label for a tool call: its name and main argument.
func title(call ToolCall) string {
	var in map[string]any
	_ = json.Unmarshal(call.Input, &in)
	for _, k := range []string{"file_path", "path", "pattern", "command", "query", "symbol"} {
		if v, ok := in[k].(string); ok && v != "" {
			// Cut by runes: a byte cut could split a character and put
			// invalid UTF-8 into the event.
			if r := []rune(v); len(r) > 60 {
				v = string(r[:60]) + "…"
			}
			return call.Name + " " + v
		}
	}
	return call.Name
}

// Instructions are the project's notes for a turn: their text for the
// system prompt, and the files it came from as the prompt names them
// ("AGENTS.md", "src/AGENTS.md", "your AGENTS.md"), for the person.
type Instructions struct {
	Text  string
	Files []string
}

// SetFolder says which folder the person is in (the folder of the file
// they asked from): the project instructions of the folders from the
// workspace root down to it are read from the next turn on.
func (s *Session) SetFolder(dir string) {
	s.mu.Lock()
	s.folder = dir
	s.mu.Unlock()
}

// Folder is the folder the person is in ("" before SetFolder).
func (s *Session) Folder() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folder
}

// announceInstructions sends EventInstructions when the instruction files
// differ from the ones last announced (the first turn with any, an added,
// removed or cut file).
func (s *Session) announceInstructions(in Instructions, send func(Event)) {
	key := strings.Join(in.Files, "\x00")
	s.mu.Lock()
	changed := key != s.shownInstr
	s.shownInstr = key
	s.mu.Unlock()
	if changed {
		send(Event{Type: EventInstructions, Files: slices.Clone(in.Files)})
	}
}

// system is the system prompt with the environment, the project's
// instructions and the list of skills as they are now; the instructions
// are returned too.
func (s *Session) system(ctx context.Context) (string, Instructions) {
	parts := []string{s.cfg.System}
	if s.cfg.Environment != nil {
		parts = append(parts, s.cfg.Environment(ctx))
	}
	var in Instructions
	if s.cfg.Instructions != nil {
		in = s.cfg.Instructions(s.Folder())
		parts = append(parts, in.Text)
	}
	if s.cfg.Skills != nil {
		parts = append(parts, s.cfg.Skills())
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n\n"), in
}

// kindOf is the kind of the tool called name ("other" when there is none).
func (s *Session) kindOf(name string) string {
	if t, ok := s.cfg.Tools.Get(name); ok {
		return string(tools.KindOf(t.Spec()))
	}
	return string(tools.KindOther)
}

// beginStep takes a checkpoint before a call whose tool may change files
// (one not read-only that does more than read: the file tools, bash,
// lsp_rename, an MCP server's tools that are not read-only) and returns
// what ends it after the call. A checkpoint that fails is a warning: the
// call still runs.
func (s *Session) beginStep(ctx context.Context, t *Turn, sp tools.Spec, call ToolCall, send func(Event)) func() {
	if s.cfg.Checkpoints == nil || sp.ReadOnly || sp.Action == permission.ActionRead {
		return func() {}
	}
	turn := t.ID
	if s.cfg.parentTurn != "" {
		turn = s.cfg.parentTurn
	}
	end, err := s.cfg.Checkpoints.BeginStep(ctx, Step{SessionID: s.gateSession(), TurnID: turn, CallID: call.ID,
		Tool: call.Name, Title: title(call)})
	if err != nil {
		send(Event{Type: EventWarning, ID: call.ID, Message: "no checkpoint before this step, so it cannot be restored: " + err.Error()})
		return func() {}
	}
	return func() {
		// The call's context may be cancelled; the checkpoint is kept anyway.
		if err := end(context.WithoutCancel(ctx)); err != nil {
			send(Event{Type: EventWarning, ID: call.ID, Message: "the checkpoint of this step was not kept, so it cannot be restored: " + err.Error()})
		}
	}
}
