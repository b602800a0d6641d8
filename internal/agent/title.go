package agent

// Title is the call's short label, as tool_call events carry it: the
// tool's name and its main argument ("view main.go"). Front-ends that
// show a stored conversation again (ACP's session/load) use it.
func (c ToolCall) Title() string { return title(c) }
