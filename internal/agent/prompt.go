package agent

import (
	"fmt"
	"strings"
)

// DefaultSystemPrompt tells the model where it runs and how to behave.
const DefaultSystemPrompt = `You are agentls, a coding agent running inside the user's editor.
You work on the open workspace through tools. File reads see the editor's unsaved buffers.
Read before you change anything; prefer precise, minimal changes; answer concisely.
Paths are relative to the first workspace folder unless absolute.`

// Context is where the user was when asking: a file and an optional
// selection, shown to the model with the prompt.
type Context struct {
	// File is the path as the model should see it (relative to the root).
	File string
	// StartLine and EndLine are 1-based and inclusive; 0 means no selection.
	StartLine, EndLine int
	// Selected is the selected text.
	Selected string
	// Cursor says the user selected nothing: StartLine is the cursor's
	// line and Selected that line's text.
	Cursor bool
}

// UserMessage renders a prompt with its editor context.
func UserMessage(prompt string, c *Context) string {
	if c == nil || c.File == "" {
		return prompt
	}
	var b strings.Builder
	b.WriteString(prompt)
	switch {
	case c.StartLine > 0 && c.Cursor:
		fmt.Fprintf(&b, "\n\nThe user is in %s at line %d:\n```\n%s\n```", c.File, c.StartLine, strings.TrimRight(c.Selected, "\r\n"))
	case c.StartLine > 0:
		fmt.Fprintf(&b, "\n\nThe user is in %s with lines %d-%d selected:\n```\n%s\n```", c.File, c.StartLine, c.EndLine, strings.TrimRight(c.Selected, "\n"))
	default:
		fmt.Fprintf(&b, "\n\nThe user is in %s.", c.File)
	}
	return b.String()
}

// PromptOf is what the person typed of a user message UserMessage made:
// without the file and selection it adds.
func PromptOf(msg string) string {
	if i := strings.LastIndex(msg, "\n\nThe user is in "); i >= 0 {
		return msg[:i]
	}
	return msg
}
