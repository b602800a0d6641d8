package tools

import (
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

// Kind is what a tool call does, in the words of ACP's tool-call kinds,
// so that every front-end shows a call the same way (its icon, whether
// the editor follows along) without deriving it again.
type Kind string

// Kinds.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindFetch   Kind = "fetch"
	KindThink   Kind = "think"
	KindOther   Kind = "other"
)

// KindOf is the spec's kind: the one it declares, else what its
// capability and action say.
func KindOf(sp Spec) Kind {
	if sp.Kind != "" {
		return sp.Kind
	}
	c := string(sp.Capability)
	switch c {
	case "fs.read", "fs.list":
		return KindRead
	case "fs.glob", "fs.grep":
		return KindSearch
	case "fs.write", "fs.edit", "lsp.rename", "lsp.replace_symbol":
		return KindEdit
	case "fs.delete":
		return KindDelete
	case "fs.move":
		return KindMove
	case "net.fetch":
		return KindFetch
	case "lsp.restart":
		return KindOther
	}
	switch {
	case strings.HasPrefix(c, "lsp."):
		return KindSearch // diagnostics, references, definition, symbols, call hierarchy
	case strings.HasPrefix(c, "agent."):
		return KindThink // the todo list, subagents, questions
	case strings.HasPrefix(c, "shell."):
		return KindExecute // commands and their background jobs
	}
	switch sp.Action {
	case permission.ActionRead:
		return KindRead
	case permission.ActionWrite:
		return KindEdit
	case permission.ActionExecute:
		return KindExecute
	}
	return KindOther
}
