//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// buildAgentls builds the program once per test, or returns
// $AGENTLS_TEST_BIN: the binary scripts/test built once for every
// end-to-end test.
func buildAgentls(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("AGENTLS_TEST_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestFaultKillDuringTurn: agentls run is killed with SIGKILL while the
// model answers its third call. The store is sound and no temporary file
// is left; `agentls run --continue` then resumes the session, and the
// model receives the conversation up to the last completed message (both
// tool results).
func TestFaultKillDuringTurn(t *testing.T) {
	bin := buildAgentls(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha-content\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("bravo-content\n"), 0o644)
	hang := make(chan struct{})
	third := make(chan struct{}, 1)
	var mu sync.Mutex
	calls := 0
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1:
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("c1", "view", map[string]string{"file_path": "a.txt"})}}
		case 2:
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("c2", "view", map[string]string{"file_path": "b.txt"})}}
		case 3:
			third <- struct{}{}
			<-hang // the process dies while the model "thinks"
			return openaitest.Reply{Parts: []string{"too late"}}
		}
		return openaitest.Reply{Parts: []string{"resumed"}}
	})
	defer srv.Close()
	defer close(hang)

	home := t.TempDir()
	cfgDir := filepath.Join(home, "config", "agentls")
	os.MkdirAll(cfgDir, 0o755)
	cfg, _ := json.Marshal(map[string]any{"providers": map[string]any{"openai": map[string]string{"base_url": srv.URL, "api_key_env": "TEST_KEY"}}})
	os.WriteFile(filepath.Join(cfgDir, "config.json"), cfg, 0o644)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "TEST_KEY=k", "AGENTLS_MODEL=")
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"run", "--workspace", ws, "--model", "openai:test-model", "--mode", "auto"}, args...)...)
		cmd.Env = env
		return cmd
	}

	first := start("read a.txt and b.txt")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-third:
	case <-time.After(30 * time.Second):
		first.Process.Kill()
		t.Fatal("the run never reached its third model call")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if left := tempFiles(ws); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	checkStore(t, bin, ws, env)

	out, err := start("--continue", "go on").CombinedOutput()
	if err != nil {
		t.Fatalf("run --continue: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "resumed") {
		t.Errorf("run --continue printed %q", out)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role)
	}
	text := last.Text()
	for _, want := range []string{"read a.txt and b.txt", "alpha-content", "bravo-content", "go on"} {
		if !strings.Contains(text, want) {
			t.Errorf("the resumed request lacks %q; roles %v", want, roles)
		}
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool assistant tool user" {
		t.Errorf("resumed conversation = %s", got)
	}

	// The stored session is listed, shown and exported as a replay script.
	ls := exec.Command(bin, "sessions", "--workspace", ws, "list", "--json")
	ls.Env = env
	lsOut, err := ls.CombinedOutput()
	if err != nil {
		t.Fatalf("sessions list: %v\n%s", err, lsOut)
	}
	var list []map[string]any
	if err := json.Unmarshal(lsOut, &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions list = %s (%v)", lsOut, err)
	}
	ex := exec.Command(bin, "sessions", "--workspace", ws, "export", fmt.Sprint(list[0]["id"]), "--replay")
	ex.Env = env
	exOut, err := ex.Output()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "replay.json")
	os.WriteFile(script, exOut, 0o644)
	replayed := exec.Command(bin, "run", "--workspace", ws, "--model", "replay:"+script, "--mode", "auto", "read a.txt and b.txt")
	replayed.Env = env
	if out, err := replayed.CombinedOutput(); err != nil || !strings.Contains(string(out), "resumed") {
		t.Errorf("replaying the exported session: %v\n%s", err, out)
	}

}
