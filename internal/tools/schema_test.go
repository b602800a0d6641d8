package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateInput(t *testing.T) {
	schema := json.RawMessage(bashSchema)
	tests := []struct {
		in, err string
	}{
		{`{"command":"ls"}`, ""},
		{`{"command":"ls","run_in_background":true,"auto_background_after":5}`, ""},
		{`{}`, `required property "command"`},
		{`{"command":5}`, "input.command must be of type [string]"},
		{`{"command":"ls","auto_background_after":1.5}`, "integer"},
		{`{"command":"ls","sudo":true}`, `unknown property "sudo"`},
		{`[1]`, "input must be of type [object]"},
		{`nope`, "not JSON"},
	}
	for _, tt := range tests {
		err := ValidateInput(schema, json.RawMessage(tt.in))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ValidateInput(%s) = %v, want %q", tt.in, err, tt.err)
		}
	}
	// Every built-in schema accepts a minimal valid input shape.
	if err := ValidateInput(json.RawMessage(multieditSchema), json.RawMessage(`{"file_path":"a","edits":[{"old_string":"x","new_string":"y"}]}`)); err != nil {
		t.Error(err)
	}
	if err := ValidateInput(json.RawMessage(multieditSchema), json.RawMessage(`{"file_path":"a","edits":[{"old_string":"x"}]}`)); err == nil {
		t.Error("multiedit entry without new_string accepted")
	}
}
