//go:build unix

package main

// The fault suite's process faults (docs/faults.md): agentls killed with
// SIGKILL, and two agentls processes on one workspace and one store, with
// the real program.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // the store's driver, to check the database file
)

// procEnv is the environment of agentls processes that share one user's
// config, state and data folders (so one store).
func procEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	return append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "AGENTLS_MODEL=")
}

// envValue reads a variable of env as exec does: the last one counts.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// replayRun is `agentls run` in auto mode on ws with a replay script.
func replayRun(t *testing.T, bin, ws string, env []string, script, prompt string) *exec.Cmd {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--model", "replay:"+path, "--mode", "auto", "--json", prompt)
	cmd.Env = env
	return cmd
}

// checkStore checks the store's database file: SQLite finds no damage,
// and every session's records read back.
func checkStore(t *testing.T, bin, ws string, env []string) []map[string]any {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(envValue(env, "XDG_DATA_HOME"), "agentls", "agentls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check = %q, %v", ok, err)
	}
	ls := exec.Command(bin, "sessions", "--workspace", ws, "list", "--json")
	ls.Env = env
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("sessions list: %v", err)
	}
	var list []map[string]any
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("sessions list printed %s: %v", out, err)
	}
	for _, s := range list {
		show := exec.Command(bin, "sessions", "--workspace", ws, "show", fmt.Sprint(s["id"]))
		show.Env = env
		if out, err := show.CombinedOutput(); err != nil {
			t.Errorf("sessions show %v: %v\n%s", s["id"], err, out)
		}
	}
	return list
}

// tempFiles lists the temporary files of atomic writes under root.
func tempFiles(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".agentls-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestFaultTwoProcessesOneStore: two agentls processes work on one
// workspace at once, sharing one store, each writing its own files over
// many steps (so many journal records and change records, written while
// the other process holds SQLite's lock now and then). Both finish, every
// write lands, both sessions read back whole, the database is sound and
// each turn reverts on its own.
func TestFaultTwoProcessesOneStore(t *testing.T) {
	bin := buildAgentls(t)
	ws := t.TempDir()
	env := procEnv(t)
	const steps = 15
	script := func(who string) string {
		var turns []string
		for i := range steps {
			turns = append(turns, fmt.Sprintf(`{"tool_calls":[{"name":"write","input":{"file_path":"%s/f%02d.txt","content":"%s wrote %d\n"}}]}`, who, i, who, i))
		}
		turns = append(turns, `{"text":"`+who+` done"}`)
		return `{"turns":[` + strings.Join(turns, ",") + `]}`
	}
	var wg sync.WaitGroup
	outs := map[string][]byte{}
	errs := map[string]error{}
	var mu sync.Mutex
	for _, who := range []string{"alpha", "bravo"} {
		cmd := replayRun(t, bin, ws, env, script(who), "write the "+who+" files")
		wg.Go(func() {
			out, err := cmd.CombinedOutput()
			mu.Lock()
			outs[who], errs[who] = out, err
			mu.Unlock()
		})
	}
	wg.Wait()
	for who, err := range errs {
		if err != nil || !strings.Contains(string(outs[who]), `"reason":"completed"`) {
			t.Fatalf("%s: %v\n%s", who, err, outs[who])
		}
		if strings.Contains(string(outs[who]), "not in agentls's history") || strings.Contains(string(outs[who]), "database is locked") {
			t.Errorf("%s lost history to the other process:\n%s", who, outs[who])
		}
		for i := range steps {
			p := filepath.Join(ws, who, fmt.Sprintf("f%02d.txt", i))
			if got, _ := os.ReadFile(p); string(got) != fmt.Sprintf("%s wrote %d\n", who, i) {
				t.Errorf("%s = %q", p, got)
			}
		}
	}
	if list := checkStore(t, bin, ws, env); len(list) != 2 {
		t.Errorf("sessions %v, want 2", list)
	}
	// Each turn reverts on its own: the last one, then the other.
	for range 2 {
		rv := exec.Command(bin, "revert", "--workspace", ws)
		rv.Env = env
		if out, err := rv.CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("%d file(s) restored", steps)) {
			t.Errorf("revert: %v\n%s", err, out)
		}
	}
	if left := tempFiles(ws); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	for _, who := range []string{"alpha", "bravo"} {
		if entries, _ := os.ReadDir(filepath.Join(ws, who)); len(entries) != 0 {
			t.Errorf("%s after both reverts: %d files", who, len(entries))
		}
	}
}
