// Package tools holds the model-callable tools, one per file, each with its
// model-facing description in a sibling .md file.
//
// A tool describes a call for the permission gate (Describe) before it runs
// (Run). Every tool declares a capability: the Registry refuses one that
// does not, so no tool can slip past the gate undeclared.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/textclip"

	"github.com/agentls/agentls/internal/permission"
)

// Spec is what a tool tells the model and the gate about itself.
type Spec struct {
	Name        string
	Description string
	// Schema is the JSON schema of the tool's input object.
	Schema     json.RawMessage
	Capability permission.Capability
	Action     permission.Action
	ReadOnly   bool
	// Kind is what a call does, for front-ends (kind.go); "" derives it
	// from the capability and action (KindOf).
	Kind Kind
}

// Call is one invocation of a tool by the model.
type Call struct {
	ID        string
	SessionID string
	TurnID    string
	Input     json.RawMessage
	// Subagent runs a prompt in a subagent of the calling session and
	// returns its final answer (the agent tool); nil where the session
	// cannot start one (inside a subagent).
	Subagent func(ctx context.Context, prompt, description string) (string, error)
	// Revised, after a review, is what the person accepted of the change
	// this call proposed: the file tools write its text instead.
	Revised *permission.Revision
	// PersonApproved: a person was asked about this call and allowed it
	// (not a mode, rule or grant). Only then does bash let the command's
	// programs read the outside paths the question named.
	PersonApproved bool
	// Check asks the gate about something the call finds it needs while it
	// runs — a host a command's program connects to through the sandbox's
	// proxy — and records the decision as the call's own are. Nil where no
	// gate is at hand: the tool then refuses.
	Check func(ctx context.Context, req permission.Request) permission.Decision
}

// Result is what the model sees of a call.
type Result struct {
	Content string
	IsError bool
	// Stop ends the turn after this result (a person said no).
	Stop bool
	// Diff is the unified diff of a change the call made, for editors to
	// render (not sent to the model); Hunks is the same change as data.
	Diff  string
	Hunks []Hunk
	// Todos, when not nil, is the session's new todo list (the todos tool).
	Todos []Todo
}

// Todo is one item of the agent's plan.
type Todo struct {
	Content string `json:"content" jsonschema:"What to do, imperative: \"Write the fix\"."`
	Status  string `json:"status" schema:"enum=pending|in_progress|completed" jsonschema:"pending, in_progress (one at a time) or completed."`
	// ActiveForm is how progress shows the item while it is in progress.
	ActiveForm string `json:"active_form,omitempty" jsonschema:"The item as it is being done: \"Writing the fix\"."`
}

// Errorf builds an error result the model can read and act on.
func Errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Tool is one model-callable tool.
type Tool interface {
	Spec() Spec
	// Describe validates the input and says what the call would touch, for
	// the permission gate. It must not change anything.
	Describe(ctx context.Context, call Call) (permission.Request, error)
	// Run performs the call. Failures the model can fix are error Results;
	// a returned error is an infrastructure failure.
	Run(ctx context.Context, call Call) (Result, error)
}

// Situated is a tool whose description ends with what it can do in this
// workspace now (the lsp_* tools: the languages they work for). The
// Registry asks at every Refresh, before each model step, and Specs adds
// the answer to the tool's description; the tool's own Spec stays as it
// is.
type Situated interface {
	Tool
	// Situation is the paragraph the description ends with, as things
	// stand now; "" adds nothing. It must start nothing.
	Situation(ctx context.Context) string
}

// Registry is the set of tools offered to the model: fixed tools, and
// the tools of sources whose set changes (AddSource, Refresh).
type Registry struct {
	byName map[string]Tool
	names  []string
	dyn    dynamicTools

	// situ holds the Situated fixed tools' situations as of the last
	// Refresh, by name.
	situMu sync.RWMutex
	situ   map[string]string
}

// NewRegistry checks every tool's spec and returns the registry. A tool
// without a valid capability, name, description or schema is refused.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		if err := r.add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) add(t Tool) error {
	s := t.Spec()
	if err := checkSpec(s); err != nil {
		return err
	}
	if r.byName[s.Name] != nil {
		return fmt.Errorf("register tool %s: registered twice", s.Name)
	}
	r.byName[s.Name] = t
	r.names = append(r.names, s.Name)
	sort.Strings(r.names)
	return nil
}

// checkSpec refuses a spec without a valid capability, name, action,
// description or schema.
func checkSpec(s Spec) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("register tool: empty name")
	case !s.Capability.Valid():
		return fmt.Errorf("register tool %s: capability %q is not a valid id such as \"fs.read\"", s.Name, s.Capability)
	case s.Action == "":
		return fmt.Errorf("register tool %s: no action declared", s.Name)
	case s.Description == "":
		return fmt.Errorf("register tool %s: no description", s.Name)
	}
	if _, err := compileSchema(s.Schema); err != nil {
		return fmt.Errorf("register tool %s: input schema: %v", s.Name, err)
	}
	return nil
}

// Get returns the named tool: a fixed one, or a source's as of the last
// Refresh.
func (r *Registry) Get(name string) (Tool, bool) {
	if t, ok := r.byName[name]; ok {
		return t, true
	}
	return r.dyn.get(name)
}

// Specs lists every tool's spec, sorted by name: the fixed tools (a
// Situated one's description with its situation) and the sources' as of
// the last Refresh.
func (r *Registry) Specs() []Spec {
	out := make([]Spec, 0, len(r.names))
	r.situMu.RLock()
	for _, n := range r.names {
		sp := r.byName[n].Spec()
		if line := r.situ[n]; line != "" {
			sp.Description = strings.TrimRight(sp.Description, "\n") + "\n\n" + line
		}
		out = append(out, sp)
	}
	r.situMu.RUnlock()
	out = append(out, r.dyn.specs()...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DecodeInput unmarshals a call's input, with an error the model can act on.
func DecodeInput(call Call, tool string, v any) error {
	in := call.Input
	if len(in) == 0 || string(in) == "null" {
		in = json.RawMessage("{}")
	}
	if err := json.Unmarshal(in, v); err != nil {
		return fmt.Errorf("%s: invalid input %s: %v; send a JSON object matching the tool's schema", tool, truncate(string(in), 200), err)
	}
	return nil
}

func truncate(s string, n int) string { return textclip.Bytes(s, n, "…") }
