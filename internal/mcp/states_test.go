package mcp

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// TestStates: the servers in name order, none started by asking; after
// the first listing one is connected with its tools counted, the other
// failed with none.
func TestStates(t *testing.T) {
	f := newFixture(t, config.MCPServers{
		"self":  selfServer(t, nil),
		"quits": {Command: []string{"sh", "-c", "exit 3"}, From: "test config"},
	}, false)
	steps := []struct {
		name   string
		listed bool
		want   []ServerState
	}{
		{"before any listing", false, []ServerState{{Name: "quits", State: "not started"}, {Name: "self", State: "not started"}}},
		{"asked again, still nothing started", false, []ServerState{{Name: "quits", State: "not started"}, {Name: "self", State: "not started"}}},
		{"after the first listing", true, []ServerState{{Name: "quits", State: "failed"}, {Name: "self", State: "connected", Tools: 7}}},
	}
	for _, s := range steps {
		if s.listed {
			f.tools(t)
		}
		if got := f.m.States(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: States = %+v, want %+v", s.name, got, s.want)
		}
	}
}
