package agent

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// SubagentSystemPrompt tells a subagent what it is for.
const SubagentSystemPrompt = `You are a subagent of agentls, a coding agent. You get one task from
the main agent and work on it alone, with read-only tools. Investigate thoroughly, then answer
with exactly what the task asks for: facts, paths with line numbers, short quotes. Your final
message is all the main agent sees; it cannot ask you follow-up questions.`

// subagentMaxSteps bounds a subagent's model calls.
const subagentMaxSteps = 30

// runSubagent runs prompt in a fresh session with the subagent tools and
// returns its final answer. Every call it makes passes the same gate with
// this session's scope first, so it can never do what this session could
// not; its events reach the front-end with ParentID set to the agent
// call's id; cancelling the turn cancels it; its usage is the turn's.
func (s *Session) runSubagent(ctx context.Context, t *Turn, callID, prompt, description string, send func(Event)) (string, error) {
	var caps []permission.Capability
	for _, sp := range s.cfg.Subagents.Specs() {
		caps = append(caps, sp.Capability)
	}
	scope := s.cfg.Gate.Scope(caps)
	// The parent's tool hooks guard the subagent's calls too; its
	// lifecycle hooks (session start, prompt, stop) are the parent's own.
	var toolHooks []hooks.Config
	for _, h := range s.cfg.Hooks {
		if h.Event.IsToolEvent() {
			toolHooks = append(toolHooks, h)
		}
	}
	child := NewSession(s.ID+"-"+callID, Config{
		Provider:      s.cfg.Provider,
		Model:         s.cfg.Model,
		Tools:         s.cfg.Subagents,
		Gate:          s.cfg.Gate,
		GateSession:   s.gateSession(),
		MaxSteps:      subagentMaxSteps,
		System:        SubagentSystemPrompt,
		Instructions:  s.cfg.Instructions,
		Environment:   s.cfg.Environment,
		Skills:        s.cfg.Skills,
		Channel:       s.cfg.Channel,
		Hooks:         toolHooks,
		HookDir:       s.cfg.HookDir,
		ContextWindow: s.cfg.ContextWindow,
		Price:         s.cfg.Price,
		ParentScope:   scope,
		Checkpoints:   s.cfg.Checkpoints,
		parentTurn:    t.ID,
	})
	defer child.CloseHooks()
	child.SetFolder(s.Folder())
	turn, err := child.Start(ctx, prompt, func(e Event) {
		e.ParentID = callID
		send(e)
	})
	if err != nil {
		return "", err
	}
	// Its usage, priced as it went, is the turn's and the session's.
	res := turn.Wait()
	u := res.Usage
	s.addUsage(u)
	t.addUsage(u)
	switch res.Reason {
	case ReasonCompleted:
		return res.Text, nil
	case ReasonError:
		return res.Text, fmt.Errorf("%w", res.Err)
	}
	return res.Text, fmt.Errorf("it ended %s before answering", res.Reason)
}

// gateSession is the session the gate judges this one's calls under: a
// subagent's are its parent's, so a grant the person gave the session
// holds for its subagents and the calls count together.
func (s *Session) gateSession() string {
	if s.cfg.GateSession != "" {
		return s.cfg.GateSession
	}
	return s.ID
}

// setTodos keeps the session's new todo list, journals it and tells the
// front-end.
func (s *Session) setTodos(list []tools.Todo, send func(Event)) {
	s.mu.Lock()
	s.todos = append([]tools.Todo(nil), list...)
	s.mu.Unlock()
	s.journal(RecordTodos, list)
	send(Event{Type: EventTodos, Todos: list, Message: tools.TodoProgress(list)})
}

// Todos returns the session's todo list.
func (s *Session) Todos() []tools.Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tools.Todo(nil), s.todos...)
}
