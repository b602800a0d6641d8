package hooks

import "encoding/json"

// EventType tells run reports from warnings.
type EventType string

// Event types, the "type" field of the JSON.
const (
	// TypeRun reports one hook run.
	TypeRun EventType = "hook"
	// TypeWarning reports a problem with a hook that did not stop the
	// agent: the person should fix the hook, so it must not pass silently.
	TypeWarning EventType = "hook_warning"
)

// Event is what a Runner reports to Options.OnEvent. A TypeRun event
// marshals to exactly {"type":"hook","event","command","exit_code",
// "decision","duration_ms"}; a TypeWarning event to {"type":"hook_warning",
// "event","command","message"}.
type Event struct {
	Type    EventType
	Event   EventName
	Command string
	// ExitCode is the hook's exit status: 130 when it was stopped (timeout
	// or cancellation), -1 when it was abandoned. TypeRun only.
	ExitCode int
	// Decision is "allow", "deny", "halt" or "none". TypeRun only.
	Decision string
	// DurationMS is how long the hook ran. TypeRun only.
	DurationMS int64
	// Message says what is wrong and what to do. TypeWarning only.
	Message string
}

// MarshalJSON writes the fields of the event's type and no others, so the
// wire format does not depend on which fields happen to be zero.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type == TypeWarning {
		return json.Marshal(struct {
			Type    EventType `json:"type"`
			Event   EventName `json:"event"`
			Command string    `json:"command"`
			Message string    `json:"message"`
		}{e.Type, e.Event, e.Command, e.Message})
	}
	return json.Marshal(struct {
		Type       EventType `json:"type"`
		Event      EventName `json:"event"`
		Command    string    `json:"command"`
		ExitCode   int       `json:"exit_code"`
		Decision   string    `json:"decision"`
		DurationMS int64     `json:"duration_ms"`
	}{e.Type, e.Event, e.Command, e.ExitCode, e.Decision, e.DurationMS})
}
