package remote

import (
	"encoding/json"
	"strings"
)

// ToolInput turns a call's streamed arguments into agent.ToolCall.Input.
// Empty arguments become {}. Arguments that are not valid JSON (a
// truncated or garbled answer) are kept as a JSON string holding the raw
// text: Input stays valid JSON, so events and logs can marshal it, and the
// tool's decoder fails with an error the model can read and correct.
func ToolInput(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(args) // a string always marshals
	return b
}

// ToolArguments is ToolInput's inverse for history sent back: the model
// sees the arguments it wrote, not our quoted copy.
func ToolArguments(in json.RawMessage) string {
	s := strings.TrimSpace(string(in))
	if s == "" {
		return "{}"
	}
	if s[0] == '"' {
		var raw string
		if json.Unmarshal([]byte(s), &raw) == nil {
			return raw
		}
	}
	return s
}
