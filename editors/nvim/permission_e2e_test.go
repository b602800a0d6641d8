//go:build unix

package nvim_test

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// The permission scenario: a tiny Go module with a passing test and a
// build/ folder. The replay model runs `go test ./...` (answered with the
// session grant), `go test -count=1 -v ./...` (same "go test" fingerprint:
// no prompt), then `rm -rf build` (destructive: no session grant offered;
// answered Deny, which ends the turn). The same scenario in the in-process
// fake editor is lsp.TestSessionGrantForCommands.
const (
	permGoMod  = "module example.com/add\n\ngo 1.21\n"
	permAddGo  = "// Package add adds numbers.\npackage add\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n"
	permTestGo = "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n" +
		"\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"
	permBuildFile = "build/output.txt"
	permBuildText = "stale build output\n"

	permTest1 = "go test ./..."
	permTest2 = "go test -count=1 -v ./..."
	permRm    = "rm -rf build"

	permGrant   = `Allow "go test" this session`
	permAsk1    = "agentls wants to run `" + permTest1 + "` in the workspace"
	permAsk2    = "agentls wants to run `" + permRm + "` in the workspace\n(not offered: Allow for session — rm is asked every time: a grant would cover any file)"
	permDenied  = "agentls: turn ended: permission denied"
	permNever   = "This text is never reached."
	permActions = `Allow, ` + permGrant + `, Always allow, Deny`
	// rm -rf is destructive, so never grantable: no session grant and no
	// Always allow.
	permRmActions = "Allow, Deny"
)

// goEnv is the environment `go test` needs inside the server: the harness
// points HOME and the XDG folders at temp dirs, which would leave go with
// a cold build cache and without the user's go env file. The build cache
// is the one this test process uses (go's cache is safe to share, and it
// already holds the testing package); modules stay in the temp dir and no
// download is attempted.
func goEnv(t *testing.T, r *run) map[string]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to run go test in the fixture: %v", err)
	}
	cache := r.path("gocache")
	if out, err := exec.Command(goCmd, "env", "GOCACHE").Output(); err == nil {
		if c := strings.TrimSpace(string(out)); filepath.IsAbs(c) {
			cache = c
		}
	}
	env := map[string]string{
		"PATH":        filepath.Dir(goCmd) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GOCACHE":     cache,
		"GOPATH":      r.path("gopath"),
		"GOMODCACHE":  r.path("gopath", "pkg", "mod"),
		"GOPROXY":     "off",
		"GOTOOLCHAIN": "local",
		"GOWORK":      "off",
	}
	// This test binary's flags (-trimpath, CGO_ENABLED), so the fixture's
	// go test finds the standard library compiled in the shared cache, and
	// -modcacherw, so t.TempDir can remove anything go wrote.
	maps.Copy(env, buildFlags())
	env["GOFLAGS"] = strings.TrimSpace(env["GOFLAGS"] + " -modcacherw")
	return env
}

// A grantable command answered `Allow "go test" this session` runs again
// without a prompt; `rm -rf build` is asked without a session grant, and
// the person's Deny ends the turn with reason denied.
func TestNvimSessionGrantThenDeny(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		type call struct {
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}
		type turn struct {
			Text      string `json:"text"`
			ToolCalls []call `json:"tool_calls,omitempty"`
		}
		bash := func(cmd, desc string) []call {
			return []call{{Name: "bash", Input: map[string]any{"command": cmd, "description": desc}}}
		}
		script, err := json.Marshal(map[string][]turn{"turns": {
			{Text: "Running the tests.", ToolCalls: bash(permTest1, "Run the package tests")},
			{Text: "Running them again, verbosely.", ToolCalls: bash(permTest2, "Rerun the tests verbosely")},
			{Text: "Removing the stale build folder.", ToolCalls: bash(permRm, "Delete the build folder")},
			{Text: permNever},
		}})
		if err != nil {
			t.Fatal(err)
		}
		r := newRun(t, map[string]string{
			"go.mod": permGoMod, "add.go": permAddGo, "add_test.go": permTestGo, permBuildFile: permBuildText,
		})
		path := r.path("replay.json")
		if err := os.WriteFile(path, script, 0o644); err != nil {
			t.Fatal(err)
		}
		for k, v := range goEnv(t, r) {
			r.env[k] = v
		}
		r.env["AGENTLS_E2E_MODEL"] = "replay:" + path
		// ask_unsaved.lua replaces one buffer line without saving; give it the
		// line it already has, so the buffer matches what go test compiles.
		r.env["AGENTLS_E2E_FILE"] = "add.go"
		r.env["AGENTLS_E2E_LINE"] = "1"
		r.env["AGENTLS_E2E_TEXT"] = strings.SplitN(permAddGo, "\n", 2)[0]
		r.env["AGENTLS_E2E_PROMPT"] = "run the tests, then clean the build folder"
		r.env["AGENTLS_E2E_ANSWER"] = permGrant + ",Deny"
		rec := r.nvim("ask_unsaved.lua")
		answers := r.answers()

		types, _, _, end := turnSummary(t, rec)
		if want := "turn_start text tool_call permission tool_result" +
			" text tool_call permission tool_result" +
			" text tool_call permission tool_result turn_end"; types != want {
			t.Errorf("events = %s\nwant     %s", types, want)
		}
		if end != agent.ReasonDenied {
			t.Errorf("turn_end reason = %q, want %q", end, agent.ReasonDenied)
		}

		// The asks: go test with the session grant, then rm without one.
		if len(rec.Asks) != 2 {
			t.Errorf("window/showMessageRequest sent %d times, want twice (go test, rm): %+v", len(rec.Asks), rec.Asks)
		}
		wantAsks := []struct{ message, actions, answer string }{
			{permAsk1, permActions, permGrant},
			{permAsk2, permRmActions, "Deny"},
		}
		for i, a := range rec.Asks {
			if i >= len(wantAsks) {
				break
			}
			w := wantAsks[i]
			var titles []string
			for _, x := range a.Actions {
				titles = append(titles, x.Title)
			}
			got := strings.Join(titles, ", ")
			if a.Type != 2 || a.Message != w.message || got != w.actions {
				t.Errorf("ask %d = type %d %q actions [%s]\nwant type 2 %q actions [%s]", i+1, a.Type, a.Message, got, w.message, w.actions)
			}
			if i == 1 && strings.Contains(got, "this session") {
				t.Errorf("ask 2 (%q) offers a session grant: [%s]", a.Message, got)
			}
			if i >= len(answers) || answers[i] != w.answer {
				t.Errorf("ask %d answered %q (answers %q), want %q", i+1, at(answers, i), answers, w.answer)
			}
		}

		// Permission events, in order: the person allows and grants; the grant
		// allows the second go test; the person denies rm.
		var perms, results []agent.Event
		for _, e := range rec.Events {
			switch e.Type {
			case agent.EventPermission:
				perms = append(perms, e)
			case agent.EventToolResult:
				results = append(results, e)
			}
		}
		wantPerms := []struct{ decision, source, scope string }{
			{"allow", "user", permTest1},
			{"allow", "session-grant", permTest2},
			{"deny", "user", permRm},
		}
		if len(perms) != len(wantPerms) {
			t.Errorf("%d permission events, want %d: %+v", len(perms), len(wantPerms), perms)
		}
		for i, p := range perms {
			if i >= len(wantPerms) {
				break
			}
			w := wantPerms[i]
			if p.Tool != "bash" || p.Capability != "shell.exec" || p.Decision != w.decision || p.Source != w.source ||
				!strings.Contains(p.Scope, w.scope) || p.Channel != "editor" {
				t.Errorf("permission event %d = %s/%s tool %s %s scope %q channel %q\nwant %s/%s tool bash shell.exec scope %q channel editor",
					i+1, p.Decision, p.Source, p.Tool, p.Capability, p.Scope, p.Channel, w.decision, w.source, w.scope)
			}
		}
		// The grant's scope, as the gate stores it (permission/grants.go).
		if len(perms) > 1 && perms[1].Rule != "cmd:go test" {
			t.Errorf("the session-grant event names rule %q, want the grant's scope %q", perms[1].Rule, "cmd:go test")
		}

		// Tool results: both go test runs passed; the denied rm did not run.
		if len(results) != 3 {
			t.Fatalf("%d tool_result events, want 3: %+v", len(results), results)
		}
		for i, want := range []string{"ok  \texample.com/add", "--- PASS: TestAdd"} {
			res := results[i]
			content := ""
			if res.Content != nil {
				content = *res.Content
			}
			if res.Name != "bash" || (res.IsError != nil && *res.IsError) ||
				!strings.Contains(content, want) || !strings.Contains(content, "ok  \texample.com/add") ||
				!strings.HasSuffix(content, "Exit code: 0") {
				t.Errorf("go test run %d: tool_result %s is_error=%v, want a pass (%q, ok, exit code 0):\n%s",
					i+1, res.Name, res.IsError != nil && *res.IsError, want, content)
			}
		}
		if rm := results[2]; rm.IsError == nil || !*rm.IsError {
			t.Errorf("denied rm tool_result = %+v, want an error", rm)
		}
		for _, e := range rec.Events {
			if e.Type == agent.EventText && e.Text == permNever {
				t.Errorf("the turn went on after the deny: %q", e.Text)
			}
		}
		if b, err := os.ReadFile(filepath.Join(r.root, permBuildFile)); err != nil || string(b) != permBuildText {
			t.Errorf("%s after the denied rm: %q, %v; want it untouched", permBuildFile, b, err)
		}

		// The buffer and the disk are as they were; nothing was edited.
		if len(rec.Applies) != 0 {
			t.Errorf("workspace/applyEdit in a turn without edits: %+v", rec.Applies)
		}
		if want := strings.TrimSuffix(permAddGo, "\n"); rec.BufferText != want {
			t.Errorf("add.go buffer after the turn:\n%s\nwant:\n%s", rec.BufferText, want)
		}
		if b, err := os.ReadFile(filepath.Join(r.root, "add.go")); err != nil || string(b) != permAddGo {
			t.Errorf("add.go on disk changed: %q, %v", b, err)
		}

		if len(rec.Shows) != 1 || rec.Shows[0].Type != 2 || rec.Shows[0].Message != permDenied {
			t.Errorf("window/showMessage = %+v, want one Warning (2) %q", rec.Shows, permDenied)
		}
		r.checkExit()
		if t.Failed() {
			t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		}
	})
}

// answers reads the titles the harness answered each ask with (the record
// field answers, which the shared record type does not decode).
func (r *run) answers() []string {
	r.t.Helper()
	var a struct {
		Answers []string `json:"answers"`
	}
	data, err := os.ReadFile(r.path("result.json"))
	if err == nil {
		err = json.Unmarshal(data, &a)
	}
	if err != nil {
		r.t.Errorf("answers from the record: %v", err)
	}
	return a.Answers
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "<none>"
}

// Without the plugin, Neovim's own LSP client gets the agent's question as
// window/showMessageRequest with the options as actions; the title chosen
// is the tool's result.
func TestNvimQuestionAsShowMessageRequest(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newRun(t, map[string]string{"a.txt": "x\n"})
		path := r.path("replay.json")
		script := `{"turns":[
		{"text":"One question first.","tool_calls":[{"name":"question","input":{"question":"Which store?","options":["sqlite","postgres"]}}]},
		{"text":"Using it."}]}`
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		r.env["AGENTLS_E2E_MODEL"] = "replay:" + path
		r.env["AGENTLS_E2E_FILE"] = "a.txt"
		r.env["AGENTLS_E2E_LINE"] = "1"
		r.env["AGENTLS_E2E_TEXT"] = "x"
		r.env["AGENTLS_E2E_PROMPT"] = "add storage"
		r.env["AGENTLS_E2E_ANSWER"] = "postgres"
		rec := r.nvim("ask_unsaved.lua")
		if len(rec.Asks) != 1 || rec.Asks[0].Message != "agentls asks: Which store?" {
			r.fail("asks = %+v, want the question", rec.Asks)
		}
		var titles []string
		for _, a := range rec.Asks[0].Actions {
			titles = append(titles, a.Title)
		}
		if strings.Join(titles, ",") != "sqlite,postgres" {
			t.Errorf("actions = %v, want the options", titles)
		}
		var result string
		for _, e := range rec.Events {
			if e.Type == agent.EventToolResult && e.Name == "question" && e.Content != nil {
				result = *e.Content
			}
		}
		if result != "The person chose: postgres" {
			t.Errorf("question result = %q", result)
		}
	})
}
