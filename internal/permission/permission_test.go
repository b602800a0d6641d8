package permission_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

func TestCapabilityValid(t *testing.T) {
	tests := []struct {
		c    permission.Capability
		want bool
	}{
		{"fs.read", true}, {"shell.exec", true}, {"mcp.github.create_issue", true}, {"lsp.go-to-definition", true},
		{"a.b", true}, {"fs2.read_v2", true}, {"x.0", true},
		{"", false}, {"fs", false}, {"FS.read", false}, {"fs.Read", false}, {"fs..read", false}, {"fs.read.", false},
		{".fs.read", false}, {"1fs.read", false}, {"_fs.read", false}, {"fs.-read", false}, {"fs read", false},
		{"fs.read\n", false}, {"fs/read", false}, {"fs-x.read", false}, {"fs.*", false},
	}
	for _, tt := range tests {
		if got := tt.c.Valid(); got != tt.want {
			t.Errorf("Capability(%q).Valid() = %v, want %v", tt.c, got, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    permission.Mode
		wantErr bool
	}{
		{"", permission.ModeSmart, false},
		{"smart", permission.ModeSmart, false},
		{"auto", permission.ModeAuto, false},
		{"approve", permission.ModeApprove, false},
		{"chat", permission.ModeChat, false},
		{"Auto", "", true},
		{" auto", "", true},
		{"yolo", "", true},
		{"smart_approve", "", true},
	}
	for _, tt := range tests {
		got, err := permission.ParseMode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v", tt.in, got, err)
			continue
		}
		if err != nil {
			for _, part := range []string{"chat", "approve", "smart", "auto", tt.in} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("ParseMode(%q) error %q does not name %q", tt.in, err, part)
				}
			}
		}
	}
}

func TestModeStrictness(t *testing.T) {
	order := []permission.Mode{permission.ModeAuto, permission.ModeSmart, permission.ModeApprove, permission.ModeChat}
	for i := 1; i < len(order); i++ {
		if order[i].Strictness() <= order[i-1].Strictness() {
			t.Errorf("%s is not stricter than %s", order[i], order[i-1])
		}
	}
	if permission.Mode("paranoid").Strictness() < permission.ModeChat.Strictness() {
		t.Error("an unknown mode must count as the strictest")
	}
}

func TestNewRejectsBadPolicy(t *testing.T) {
	bad := []permission.Policy{
		{Mode: "yolo"},
		{Rules: map[string]permission.Kind{"fs.edit": "sometimes"}},
		{Rules: map[string]permission.Kind{"mcp.git*": "allow"}},
		{AskAlways: []string{"shell.exec:"}},
		{AllowedTools: []string{"edit:delete"}},
		{Repetition: -2},
	}
	for _, p := range bad {
		if _, err := permission.New(permission.Options{Policy: p}); err == nil || !strings.HasPrefix(err.Error(), "permissions: ") {
			t.Errorf("New(%+v) error = %v", p, err)
		}
	}
}

// TestLegacyNewGate: the old constructor keeps its behaviour so callers
// that have not moved to New still work.
func TestLegacyNewGate(t *testing.T) {
	ctx := context.Background()
	if m := permission.NewGate("", nil, nil).Mode(); m != permission.ModeSmart {
		t.Errorf("NewGate(\"\").Mode() = %q", m)
	}
	test := permission.Request{Tool: "t", Capability: "test.write", Action: permission.ActionWrite}
	var got []permission.Decision
	g := permission.NewGate(permission.ModeSmart, answer(permission.AnswerAllow), func(r permission.Request, d permission.Decision) {
		got = append(got, d)
	})
	if d := g.Check(ctx, test); d.Kind != permission.Allow || d.Source != "user" {
		t.Errorf("legacy gate: unknown-but-valid capability = %+v, want asked and allowed", d)
	}
	if d := g.Check(ctx, with(test, func(r *permission.Request) { r.ReadOnly = true })); d.Kind != permission.Allow || d.Source != "default" || d.Reason != "" {
		t.Errorf("legacy gate: read-only = %+v", d)
	}
	if len(got) != 2 {
		t.Errorf("legacy callback got %d decisions", len(got))
	}
	paranoid := permission.NewGate("paranoid", nil, nil)
	if d := paranoid.Check(ctx, readInside); d.Kind != permission.Deny || d.Source != "mode" || !strings.Contains(d.Reason, `"paranoid"`) {
		t.Errorf("unknown mode = %+v, want deny", d)
	}
	if paranoid.Mode() != "paranoid" {
		t.Errorf("Mode() = %q", paranoid.Mode())
	}
	auto := permission.NewGate(permission.ModeAuto, nil, nil)
	for range 10 {
		if d := auto.Check(ctx, test); d.Kind != permission.Allow || d.Source != "mode" {
			t.Fatalf("legacy auto = %+v (repetition must stay off)", d)
		}
	}
}

func TestQuestionTitle(t *testing.T) {
	q := permission.Question{Choices: []permission.Choice{{Answer: permission.AnswerAllow, Title: "Allow"}}}
	if q.Title(permission.AnswerAllow) != "Allow" || q.Title(permission.AnswerDeny) != "" {
		t.Error("Title")
	}
}

func TestNewEvent(t *testing.T) {
	d := permission.Decision{Kind: permission.Allow, Source: "rule", Rule: "fs.edit", Scope: "/ws/a.go", Channel: "editor"}
	e := permission.NewEvent(edit, d)
	want := permission.Event{SessionID: "s", Tool: "edit", Capability: "fs.edit", Action: "write", Scope: "/ws/a.go",
		Decision: "allow", Source: "rule", Rule: "fs.edit", Channel: "editor"}
	if e != want {
		t.Errorf("NewEvent = %+v, want %+v", e, want)
	}
}

// TestEveryDecisionEmitsOneEvent: allowed, denied, asked and skipped calls
// each produce exactly one event with the gate's channel.
func TestEveryDecisionEmitsOneEvent(t *testing.T) {
	rec := &recorder{}
	g := newGate(t, policy(func(p *permission.Policy) { p.Rules = map[string]permission.Kind{"net.fetch": "deny"} }),
		permission.Options{OnDecision: rec.on})
	fetch := with(readInside, func(r *permission.Request) { r.Tool, r.Capability = "fetch", "net.fetch" })
	for _, r := range []permission.Request{readInside, fetch, edit, mcp} {
		g.Check(context.Background(), r)
	}
	evs := rec.all()
	if len(evs) != 4 {
		t.Fatalf("%d events, want 4", len(evs))
	}
	wantSources := []string{"default", "rule", "user", "default"}
	for i, e := range evs {
		if e.Source != wantSources[i] || e.Channel != "headless" {
			t.Errorf("event %d = %+v, want source %s on headless", i, e, wantSources[i])
		}
	}
	if evs[1].Rule != "net.fetch" {
		t.Errorf("deny event rule %q", evs[1].Rule)
	}
}
