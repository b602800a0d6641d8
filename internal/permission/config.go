package permission

import (
	"fmt"
	"time"
)

// Policy is the resolved permissions configuration the gate enforces. The
// config package builds it from the user's files (config.Permissions.Policy);
// tests build it directly.
type Policy struct {
	Mode Mode
	// Rules maps rule keys to allow, ask or deny.
	Rules map[string]Kind
	// AskAlways keys turn any allow into an ask, in every mode, and are
	// never grantable.
	AskAlways []string
	// AllowedTools are "tool" or "tool:action" entries allowed outright.
	AllowedTools []string
	// Security, Egress and Adversary switch those inspectors on.
	Security, Egress, Adversary bool
	// Repetition denies the same call made more than this many times in a
	// row in a session; 0 is off.
	Repetition int
	// AskTimeout bounds how long a person has to answer; 0 means
	// DefaultAskTimeout.
	AskTimeout time.Duration
}

// DefaultAskTimeout is how long an unanswered question waits before it
// counts as a deny.
const DefaultAskTimeout = 10 * time.Minute

// DefaultRepetition is the default repetition limit.
const DefaultRepetition = 5

// DefaultPolicy is smart mode with the security, egress and repetition
// inspectors on: what a user with no config gets.
func DefaultPolicy() Policy {
	return Policy{Mode: ModeSmart, Security: true, Egress: true, Repetition: DefaultRepetition, AskTimeout: DefaultAskTimeout}
}

// Validate reports the first problem that would make New fail.
func (p Policy) Validate() error {
	_, err := compilePolicy(p)
	return err
}

// BuiltinCapabilities are agentls's own capabilities. A capability outside
// this list, Options.Known and every rule is unknown and denied by default:
// a new MCP or plugin tool needs a rule before it runs.
func BuiltinCapabilities() []Capability {
	return []Capability{
		"fs.read", "fs.list", "fs.glob", "fs.grep",
		"fs.write", "fs.edit", "fs.delete", "fs.move",
		"shell.exec", "shell.jobs",
		"net.fetch",
		"lsp.diagnostics", "lsp.references", "lsp.definition", "lsp.symbols", "lsp.rename",
		"lsp.call_hierarchy", "lsp.replace_symbol", "lsp.restart",
		"agent.todos", "agent.question", "agent.subagent",
	}
}

// personal are the capabilities that only keep the agent's own plan, talk
// to the person or start a subagent whose every call passes the gate: they
// are allowed by default in every mode but chat (a deny rule still wins).
func personal(c Capability) bool {
	return c == "agent.todos" || c == "agent.question" || c == "agent.subagent"
}

// compiled is a policy ready for fast lookups.
type compiled struct {
	mode         Mode
	rules        ruleTable
	askAlways    keyList
	allowedTools []toolEntry
	security     bool
	egress       bool
	adversary    bool
	repetition   int
	askTimeout   time.Duration
}

func compilePolicy(p Policy) (*compiled, error) {
	mode, err := ParseMode(string(p.Mode))
	if err != nil {
		return nil, err
	}
	c := &compiled{mode: mode, security: p.Security, egress: p.Egress, adversary: p.Adversary,
		repetition: p.Repetition, askTimeout: p.AskTimeout}
	if c.rules, err = compileRules(p.Rules); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	if c.askAlways, err = parseKeys("ask_always", p.AskAlways); err != nil {
		return nil, err
	}
	for _, s := range p.AllowedTools {
		e, err := parseToolEntry(s)
		if err != nil {
			return nil, err
		}
		c.allowedTools = append(c.allowedTools, e)
	}
	if p.Repetition < 0 {
		return nil, fmt.Errorf("inspectors.repetition is %d: use 0 (off) or a positive count", p.Repetition)
	}
	switch {
	case p.AskTimeout < 0:
		return nil, fmt.Errorf("ask_timeout is %v: use a positive duration such as \"10m\"", p.AskTimeout)
	case p.AskTimeout == 0:
		c.askTimeout = DefaultAskTimeout
	}
	return c, nil
}
