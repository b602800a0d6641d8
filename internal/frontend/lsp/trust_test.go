package lsp_test

// Untrusted means inert, through the editor: a workspace whose
// node_modules/typescript/lib/tsserver.js writes a marker file. Opening a
// TypeScript file and the lsp_* tools run the real
// typescript-language-server with the global TypeScript while the folder
// is untrusted (no marker), the person is asked once; trusting the folder
// (in the editor, or with what `agentls trust` writes) restarts the server
// with the repository's own TypeScript (the marker appears).

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
	"github.com/agentls/agentls/internal/tools"
)

// tsHint is how to install what the TypeScript tests need.
const tsHint = "npm install -g typescript-language-server@5.3.0 typescript@5.9.3"

// tsMarker copies the trust tests' TypeScript project into root: its
// node_modules/typescript/lib/tsserver.js records in tsserver-ran that
// it ran, then hands over to the global TypeScript. It fails with the
// install command when typescript-language-server, node or npm is missing.
func tsMarker(t *testing.T, root string) {
	t.Helper()
	for _, p := range []string{"typescript-language-server", "node", "npm"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not on PATH: install it with `%s`", p, tsHint)
		}
	}
	const src = "../../langserver/client/testdata/tsmarker"
	if err := os.CopyFS(root, os.DirFS(src+"/project")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "node_modules"), os.DirFS(src+"/modules")); err != nil {
		t.Fatal(err)
	}
}

// tsServers lists the command lines of the tsserver processes this test
// process started (typescript-language-server's children).
func tsServers(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	cmdline := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if i < 0 || len(f) < 2 || f[0] == "Z" {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		raw, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmdline[pid] = strings.ReplaceAll(string(raw), "\x00", " ")
	}
	me := os.Getpid()
	var out []string
	for pid, cl := range cmdline {
		if !strings.Contains(cl, "tsserver") {
			continue
		}
		for p, n := parent[pid], 0; p != 0 && n < 10; p, n = parent[p], n+1 {
			if p == me {
				out = append(out, cl)
				break
			}
		}
	}
	return out
}

// trustAsks are the editor's trust questions so far.
func trustAsks(ed *fake.Editor) []fake.Ask {
	var out []fake.Ask
	for _, a := range ed.Asks() {
		if strings.Contains(a.Message, "starts code from this repository") {
			out = append(out, a)
		}
	}
	return out
}

// tsEditor connects the fake editor over the TypeScript marker project
// (user config at cfgPath; trust questions get answer, others "Allow") and
// opens file in it.
func tsEditor(t *testing.T, ctx context.Context, prov agent.Provider, cfgPath, answer, file string) (*fake.Editor, string) {
	t.Helper()
	ed, root := setup(t, nil, prov, func(o *fake.Options) {
		o.Server.ConfigPath = cfgPath
		o.Answer = func(msg string, actions []string) string {
			if strings.Contains(msg, "starts code from this repository") {
				return answer
			}
			return "Allow"
		}
	})
	tsMarker(t, root)
	path := filepath.Join(root, file)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.Open(ctx, path, string(text)); err != nil {
		t.Fatal(err)
	}
	return ed, root
}

func marker(root string) bool {
	_, err := os.Stat(filepath.Join(root, "tsserver-ran"))
	return err == nil
}

// waitMarker waits up to 60 s for the workspace's tsserver to have run.
func waitMarker(t *testing.T, root string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !marker(root) {
		if time.Now().After(deadline) {
			t.Fatal("the workspace's tsserver.js never ran after the folder was trusted")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func longCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// turn runs one agentls.ask and returns the named tool's result.
func turn(t *testing.T, ctx context.Context, ed *fake.Editor, prompt, tool string) string {
	t.Helper()
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	return toolResult(t, evs, tool)
}

func TestUntrustedTypeScriptRunsNoWorkspaceCode(t *testing.T) {
	ctx := longCtx(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"lsp_diagnostics","input":{"file_path":"use.ts"}}]},
		{"text":"checked"},
		{"tool_calls":[{"name":"lsp_restart","input":{"server":"typescript-language-server"}}]},
		{"text":"restarted"},
		{"tool_calls":[{"name":"lsp_restart","input":{"server":"typescript-language-server"}}]},
		{"text":"restarted in the full form"},
		{"tool_calls":[{"name":"lsp_definition","input":{"file_path":"use.ts","symbol":"hello","line":3}}]},
		{"tool_calls":[{"name":"lsp_definition","input":{"file_path":"use.ts","symbol":"hello","line":3}}]},
		{"tool_calls":[{"name":"lsp_definition","input":{"file_path":"use.ts","symbol":"hello","line":3}}]},
		{"text":"found"}]}`)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	// No turn at all: opening the file starts the server, in its safe form.
	ed, root := tsEditor(t, ctx, prov, cfgPath, "Not now", "hello.ts")
	if err := ed.WaitFor(ctx, "the trust question", func(e *fake.Editor) bool { return len(trustAsks(e)) > 0 }); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(tsServers(t)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("opening a TypeScript file did not start typescript-language-server and its tsserver")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, cl := range tsServers(t) {
		if !strings.Contains(cl, "typescript/lib/tsserver.js") || strings.Contains(cl, root) {
			t.Errorf("tsserver runs as %q, want the global TypeScript's", cl)
		}
	}
	ask := trustAsks(ed)[0]
	for _, want := range []string{"typescript-language-server starts code from this repository (" + root + ")", "node_modules/typescript/lib/tsserver.js", "global"} {
		if !strings.Contains(ask.Message, want) {
			t.Errorf("the question lacks %q:\n%s", want, ask.Message)
		}
	}
	if strings.Join(ask.Actions, "|") != "Trust this folder|Not now" {
		t.Errorf("actions = %q", ask.Actions)
	}

	// The lsp_* tools work, on the global TypeScript (whether tsserver
	// has loaded the whole project yet is tools' tests' business).
	if out := turn(t, ctx, ed, "check use.ts", "lsp_diagnostics"); !strings.Contains(out, "use.ts") {
		t.Errorf("diagnostics in the safe form:\n%s", out)
	}
	// A restart starts it again in its safe form; "Not now" is remembered.
	turn(t, ctx, ed, "restart", "lsp_restart")
	if n := len(trustAsks(ed)); n != 1 {
		t.Errorf("asked %d times, want once per session", n)
	}
	if marker(root) {
		t.Fatal("the workspace's tsserver.js ran while the folder was untrusted")
	}
	if _, err := os.Stat(cfgPath); err == nil {
		t.Error("Not now wrote the user config")
	}

	// The documented trust step from a terminal (`agentls trust DIR` writes
	// this): the next start of the server uses the repository's TypeScript.
	if _, err := config.UpdateTrust(cfgPath, func(l []string) []string { return append(l, root) }, tools.WriteFileAtomic); err != nil {
		t.Fatal(err)
	}
	turn(t, ctx, ed, "restart", "lsp_restart")
	waitMarker(t, root)
	// The model asks up to three times, as one does when the server did not
	// answer in time: a loaded machine's tsserver can take longer than a
	// request's 10 s to load the project ("Initializing JS/TS language
	// features"). One answer must be the definition; the others may only be
	// that timeout.
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "where is hello"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range resultsOf(evs, "lsp_definition") {
		switch out := *r.Content; {
		case strings.Contains(out, "is defined at"):
			found = true
		case !strings.Contains(out, "did not answer textDocument/definition within"):
			t.Errorf("definition in the full form:\n%s", out)
		}
	}
	if !found {
		t.Errorf("no definition in three tries: %q", toolResults(evs))
	}
}

func TestTrustThisFolderRestartsInFullForm(t *testing.T) {
	ctx := longCtx(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"lsp_diagnostics","input":{"file_path":"use.ts"}}]},
		{"text":"checked"}]}`)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfgPath, []byte(`{"max_steps": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ed, root := tsEditor(t, ctx, prov, cfgPath, "Trust this folder", "use.ts")
	waitMarker(t, root)
	if n := len(trustAsks(ed)); n != 1 {
		t.Errorf("asked %d times", n)
	}
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		MaxSteps int      `json:"max_steps"`
		Trusted  []string `json:"trusted_workspaces"`
	}
	if err := json.Unmarshal(data, &saved); err != nil || saved.MaxSteps != 7 || len(saved.Trusted) != 1 || saved.Trusted[0] != root {
		t.Errorf("user config after Trust:\n%s", data)
	}
	if err := ed.WaitFor(ctx, "the trusted message", func(e *fake.Editor) bool {
		for _, m := range e.Shows() {
			if strings.Contains(m.Message, "trusted "+root) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if out := turn(t, ctx, ed, "check use.ts", "lsp_diagnostics"); !strings.Contains(out, "use.ts") {
		t.Errorf("diagnostics in the full form:\n%s", out)
	}
	found := false
	for _, cl := range tsServers(t) {
		found = found || strings.Contains(cl, filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js"))
	}
	if !found {
		t.Errorf("no tsserver of the workspace runs after trust: %q", tsServers(t))
	}
}

// The editor's own trust is the one question: with VS Code's Workspace
// Trust granted ("trusted"), the workspace's TypeScript runs without
// agentls asking again; in Restricted Mode ("restricted") the safe form
// runs, also without a question, and nothing of the repository runs.
func TestEditorWorkspaceTrust(t *testing.T) {
	for _, trust := range []string{"trusted", "restricted"} {
		t.Run(trust, func(t *testing.T) {
			ctx := longCtx(t)
			ed, root := setup(t, nil, nil, func(o *fake.Options) {
				o.Server.ConfigPath = filepath.Join(t.TempDir(), "config.json")
				caps := map[string]any{}
				for k, v := range fake.DefaultCapabilities {
					caps[k] = v
				}
				caps["experimental"] = map[string]any{"agentls": map[string]any{"workspaceTrust": trust}}
				o.Capabilities = caps
				o.Answer = func(string, []string) string { return "Trust this folder" }
			})
			tsMarker(t, root)
			path := filepath.Join(root, "hello.ts")
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := ed.Open(ctx, path, string(text)); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for len(tsServers(t)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("opening a TypeScript file did not start typescript-language-server and its tsserver")
				}
				time.Sleep(50 * time.Millisecond)
			}
			if trust == "trusted" {
				waitMarker(t, root)
			} else {
				time.Sleep(time.Second) // a question would have been sent by now
				if marker(root) {
					t.Error("the workspace's tsserver.js ran in Restricted Mode")
				}
			}
			if n := len(trustAsks(ed)); n != 0 {
				t.Errorf("agentls asked %d trust questions after the editor's own", n)
			}
		})
	}
}

// In the editor's Restricted Mode, an ask offers no "Always allow" (a
// grant remembered for a folder the person has not trusted) and says why;
// elsewhere the same ask offers it.
func TestRestrictedModeOffersNoAlwaysAllow(t *testing.T) {
	for _, trust := range []string{"", "trusted", "restricted"} {
		t.Run("trust="+trust, func(t *testing.T) {
			ctx := ctxT(t)
			prov := script(t, `{"turns":[
				{"tool_calls":[{"name":"bash","input":{"command":"go test ./..."}}]},
				{"text":"never"}]}`)
			ed, _ := setup(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n"}, prov, func(o *fake.Options) {
				o.Server.StateDir, o.Server.DataDir = t.TempDir(), t.TempDir()
				o.Server.ConfigPath = filepath.Join(t.TempDir(), "config.json")
				if trust != "" {
					caps := map[string]any{}
					for k, v := range fake.DefaultCapabilities {
						caps[k] = v
					}
					caps["experimental"] = map[string]any{"agentls": map[string]any{"workspaceTrust": trust}}
					o.Capabilities = caps
				}
				o.Answer = func(string, []string) string { return "Deny" }
			})
			res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "test it"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
				t.Fatal(err)
			}
			asks := ed.Asks()
			if len(asks) != 1 {
				t.Fatalf("asks = %+v, want one (go test)", asks)
			}
			actions := strings.Join(asks[0].Actions, "|")
			offered := strings.Contains(actions, "Always allow")
			explained := strings.Contains(asks[0].Message, "not offered: Always allow — the editor keeps this folder in Restricted Mode")
			if want := trust != "restricted"; offered != want || explained == want {
				t.Errorf("actions %s, message %q: want Always allow offered = %v, and explained otherwise", actions, asks[0].Message, want)
			}
		})
	}
}
