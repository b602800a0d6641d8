package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// events collects a turn's events; safe for concurrent use.
type events struct {
	mu  sync.Mutex
	all []agent.Event
}

func (e *events) add(ev agent.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(t agent.EventType) []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.Event
	for _, ev := range e.all {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

// TestTodosSurviveCompactionAndResume: the model writes its plan, reads
// more files than its window holds and finishes the plan. The list is an
// event each time it changes, is in the conversation the model sees after
// every compaction (the model re-plans from scratch otherwise: the test
// counts its todos calls), and is the session's again after a resume.
func TestTodosSurviveCompactionAndResume(t *testing.T) {
	const files = 8
	plan := []tools.Todo{
		{Content: "Read the files", Status: "in_progress", ActiveForm: "Reading the files"},
		{Content: "Report the secrets", Status: "pending"},
	}
	var planned atomic.Int32
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You compact a coding session") {
			return openaitest.Reply{Parts: []string{"The user wants every secret of files/f01..f08.txt. Learned so far:\n" + factList(facts(r.Text()))}}
		}
		text := r.Text()
		last := r.Messages[len(r.Messages)-1]
		switch {
		case strings.Contains(last.Content, "Todo list updated: 2 of 2 done"):
			return openaitest.Reply{Parts: []string{"All secrets:\n", factList(facts(text))}}
		case !strings.Contains(text, "Read the files") && !hasCall(r, "todos"):
			planned.Add(1)
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("plan_%d", len(r.Messages)), "todos", map[string]any{"todos": plan})}}
		}
		known := facts(text)
		for i := 1; i <= files; i++ {
			name := fmt.Sprintf("f%02d", i)
			if _, ok := known[name]; !ok {
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("call_%d_%d", i, len(r.Messages)), "view", map[string]string{"file_path": "files/" + name + ".txt"})}}
			}
		}
		done := []tools.Todo{{Content: "Read the files", Status: "completed"}, {Content: "Report the secrets", Status: "completed"}}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("done", "todos", map[string]any{"todos": done})}}
	})
	defer srv.Close()
	srv.Window = 4000
	dataDir := t.TempDir()
	a, root := newApp(t, srv.URL, func(o *app.Options) {
		o.DataDir = dataDir
		o.Tools = func(ws *tools.Workspace) []tools.Tool {
			return []tools.Tool{tools.NewViewTool(ws), tools.NewTodosTool()}
		}
	})
	for i := 1; i <= files; i++ {
		writeFactFile(t, root, fmt.Sprintf("f%02d", i), fmt.Sprintf("w%d", i), 50)
	}
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless", MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	var evs events
	turn, err := sess.Start(context.Background(), "Read files/f01.txt to files/f08.txt and tell me every secret.", evs.add)
	if err != nil {
		t.Fatal(err)
	}
	res := turn.Wait()
	if res.Reason != agent.ReasonCompleted || len(facts(res.Text)) != files {
		t.Fatalf("turn ended %s (%v) with %q", res.Reason, res.Err, res.Text)
	}
	if n := len(evs.of(agent.EventCompaction)); n == 0 {
		t.Fatal("the conversation never compacted; the test proves nothing")
	}
	if n := planned.Load(); n != 1 {
		t.Errorf("the model wrote its plan %d times: the list was lost in a compaction", n)
	}
	todoEvents := evs.of(agent.EventTodos)
	if len(todoEvents) != 2 || todoEvents[0].Message != "0/2: Reading the files" || todoEvents[1].Message != "2/2" ||
		len(todoEvents[0].Todos) != 2 || todoEvents[0].Todos[0].ActiveForm != "Reading the files" {
		t.Errorf("todos events: %+v", todoEvents)
	}
	sawPlanInSummary := false
	for _, r := range srv.Requests() {
		if strings.Contains(r.Text(), "Your todo list") && strings.Contains(r.Text(), "[>] Read the files") {
			sawPlanInSummary = true
		}
	}
	if !sawPlanInSummary {
		t.Error("no request after a compaction showed the model its todo list")
	}
	id := sess.ID
	env.Close()

	env2, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env2.Close()
	s2, err := env2.NewSession(context.Background(), app.SessionOptions{Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.Todos(); len(got) != 2 || got[0].Status != "completed" || got[1].Content != "Report the secrets" {
		t.Errorf("resumed todos = %+v", got)
	}
}

func hasCall(r openaitest.Request, name string) bool {
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name == name {
				return true
			}
		}
	}
	return false
}

// TestSubagentWithinParentScope: the parent's settings deny shell.exec;
// its subagent, given bash by subagent_tools, tries it. The gate denies the
// call without asking anybody (parent scope, audited as such), the
// subagent reports that, and its answer is the parent's tool result. Its
// events carry the agent call's id and its usage counts in the parent's.
func TestSubagentWithinParentScope(t *testing.T) {
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if strings.HasPrefix(r.Messages[0].Content, "You are a subagent of agentls") {
			if last.Role == "tool" {
				return openaitest.Reply{Parts: []string{"SUBAGENT REPORT: bash said: " + last.Content}}
			}
			if !slices.ContainsFunc(r.Tools, func(t struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}) bool {
				return t.Function.Name == "bash"
			}) {
				return openaitest.Reply{Parts: []string{"SUBAGENT REPORT: I have no bash"}}
			}
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("sub_1", "bash", map[string]string{"command": "ls"})}}
		}
		if last.Role == "tool" {
			return openaitest.Reply{Parts: []string{"The subagent said: " + last.Content}}
		}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("agent_1", "agent", map[string]string{"prompt": "List the files with bash.", "description": "list files"})}}
	})
	defer srv.Close()
	a, root := newApp(t, srv.URL, func(o *app.Options) {
		o.ModeFlag = "smart"
		o.Tools = func(ws *tools.Workspace) []tools.Tool {
			return []tools.Tool{tools.NewViewTool(ws), tools.NewAgentTool()}
		}
		o.Config.Permissions = config.Permissions{Rules: map[string]string{"shell.exec": "deny"}}
		o.Config.SubagentTools = []string{"bash"}
	})
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var asked atomic.Int32
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked.Add(1)
		return permission.AnswerAllow, nil
	})
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "editor", Asker: asker, Questioner: noAnswer{}})
	if err != nil {
		t.Fatal(err)
	}
	var evs events
	turn, _ := sess.Start(context.Background(), "Which files are there?", evs.add)
	res := turn.Wait()
	if res.Reason != agent.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", res.Reason, res.Err)
	}
	if !strings.Contains(res.Text, "The subagent said: The subagent answered:\nSUBAGENT REPORT: bash said: ") ||
		!strings.Contains(res.Text, "its parent allows") {
		t.Errorf("the parent's answer does not carry the subagent's report of the denial:\n%s", res.Text)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the person was asked %d times; a call outside the parent scope is denied without asking", n)
	}
	var bash []agent.Event
	for _, d := range evs.of(agent.EventPermission) {
		if d.Tool == "bash" {
			bash = append(bash, d)
		}
	}
	if len(bash) != 1 || bash[0].Decision != "deny" || bash[0].Source != "scope" || bash[0].ParentID != "agent_1" {
		t.Errorf("bash decisions = %+v, want one deny from the parent scope", bash)
	}
	var sub []agent.Event
	for _, e := range evs.all {
		if e.ParentID != "" {
			if e.ParentID != "agent_1" {
				t.Errorf("subagent event %s has parent_id %q, want agent_1", e.Type, e.ParentID)
			}
			sub = append(sub, e)
		}
	}
	types := map[agent.EventType]bool{}
	for _, e := range sub {
		types[e.Type] = true
	}
	for _, want := range []agent.EventType{agent.EventToolCall, agent.EventPermission, agent.EventToolResult, agent.EventTurnEnd} {
		if !types[want] {
			t.Errorf("no subagent %s event (got %v)", want, types)
		}
	}
	for _, r := range srv.Requests() {
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Function.Name)
		}
		sub := strings.HasPrefix(r.Messages[0].Content, "You are a subagent of agentls")
		if sub && (slices.Contains(names, "question") || slices.Contains(names, "agent") || !slices.Contains(names, "bash") || !slices.Contains(names, "grep")) {
			t.Errorf("the subagent was offered %v: want the read-only set and bash, never question or agent", names)
		}
		if !sub && (!slices.Contains(names, "question") || !slices.Contains(names, "agent")) {
			t.Errorf("the parent (an editor session) was offered %v, want question and agent among them", names)
		}
	}
	prompt := 0
	for _, r := range srv.Requests() {
		prompt += r.Tokens
	}
	if len(srv.Requests()) != 4 || res.Usage.Input != prompt {
		t.Errorf("%d requests, turn usage %+v; want 4 requests and the prompt tokens of all (%d)", len(srv.Requests()), res.Usage, prompt)
	}
}

// askerFunc adapts a function to permission.Asker.
type askerFunc func(ctx context.Context, q permission.Question) (permission.Answer, error)

func (f askerFunc) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	return f(ctx, q)
}

// noAnswer is a person who never answers.
type noAnswer struct{}

func (noAnswer) Question(context.Context, tools.Question) (tools.Reply, error) {
	return tools.Reply{}, nil
}

// TestQuestionOnlyWithAPerson: a headless session is not offered question.
func TestQuestionOnlyWithAPerson(t *testing.T) {
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"ok"}} })
	defer srv.Close()
	a, root := newApp(t, srv.URL, func(o *app.Options) { o.Tools = nil })
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env.Close()
	for _, so := range []app.SessionOptions{{Channel: "headless"}, {Channel: "editor", Questioner: noAnswer{}}} {
		sess, err := env.NewSession(context.Background(), so)
		if err != nil {
			t.Fatal(err)
		}
		turn, _ := sess.Start(context.Background(), "hi", func(agent.Event) {})
		turn.Wait()
		r := srv.Requests()[len(srv.Requests())-1]
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Function.Name)
		}
		if has := slices.Contains(names, "question"); has != (so.Questioner != nil) {
			t.Errorf("%s session offered %v", so.Channel, names)
		}
		for _, want := range []string{"todos", "fetch", "agent", "bash", "view"} {
			if !slices.Contains(names, want) {
				t.Errorf("%s session lacks %s: %v", so.Channel, want, names)
			}
		}
	}
}

// TestCancelParentCancelsSubagent: cancelling the turn while the subagent
// waits on the model ends both.
func TestCancelParentCancelsSubagent(t *testing.T) {
	inSub := make(chan struct{})
	release := make(chan struct{})
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if strings.HasPrefix(r.Messages[0].Content, "You are a subagent of agentls") {
			return openaitest.Reply{Parts: []string{"never", "seen"}, BeforePart: func(i int) {
				if i == 1 {
					close(inSub)
					<-release
				}
			}}
		}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("agent_1", "agent", map[string]string{"prompt": "look"})}}
	})
	defer srv.Close()
	defer close(release) // before Close, which waits for the held handler
	a, root := newApp(t, srv.URL, func(o *app.Options) {
		o.Tools = func(ws *tools.Workspace) []tools.Tool { return []tools.Tool{tools.NewAgentTool()} }
	})
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env.Close()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	var evs events
	turn, _ := sess.Start(context.Background(), "go", evs.add)
	<-inSub
	turn.Cancel()
	if res := turn.Wait(); res.Reason != agent.ReasonCancelled {
		t.Errorf("turn ended %s, want cancelled", res.Reason)
	}
	subEnds := 0
	for _, e := range evs.of(agent.EventTurnEnd) {
		if e.ParentID == "agent_1" {
			subEnds++
			if e.Reason != agent.ReasonCancelled {
				t.Errorf("the subagent ended %s, want cancelled", e.Reason)
			}
		}
	}
	if subEnds != 1 {
		t.Errorf("%d subagent turn ends, want 1", subEnds)
	}
}

// TestSubagentToolsChecked: a mistyped or forbidden subagent_tools entry
// is an error naming the fix, not a silently smaller tool set.
func TestSubagentToolsChecked(t *testing.T) {
	for list, want := range map[string]string{
		"bsh":      `no tool "bsh"; the tools are view, ls`,
		"question": "never gets question",
		"agent":    "never gets agent",
	} {
		a, root := newApp(t, "http://127.0.0.1:1/v1", func(o *app.Options) {
			o.Tools = nil
			o.Config.SubagentTools = []string{list}
		})
		env, _ := a.Open(app.Frontend{Roots: []string{root}})
		_, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("subagent_tools [%s]: %v, want an error containing %q", list, err, want)
		}
		env.Close()
	}
}
