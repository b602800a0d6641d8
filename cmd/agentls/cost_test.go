package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// costCLI runs agentls in a home whose config file is cfg ("" for none),
// every command in the same home.
type costCLI struct {
	t  *testing.T
	ws string
}

func newCostCLI(t *testing.T, cfg string) costCLI {
	home := t.TempDir()
	for _, d := range []string{"config", "data", "state"} {
		if err := os.MkdirAll(filepath.Join(home, d, "agentls"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(home, "config", "agentls", "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("AGENTLS_MODEL", "")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return costCLI{t, ws}
}

func (c costCLI) run(args ...string) string {
	c.t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		c.t.Fatalf("agentls %v: exit %d\n%s", args, code, errb.String())
	}
	return out.String()
}

// pricedScript is a two-step turn whose steps report usage, the first
// with cached prompt tokens.
const pricedScript = `{"turns":[
	{"text":"Looking.","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}],"usage":{"input_tokens":1000,"cache_read_tokens":800,"output_tokens":100}},
	{"text":"It says alpha.","usage":{"input_tokens":1200,"output_tokens":50}}]}`

// TestCostInHeadlessAndSessionsShow: with a price for the model (here a
// replay script's, from the config file), the final JSON line of
// `agentls run --json` has the turn's and the session's cost, and
// `agentls sessions show` the session's, from what the journal recorded;
// without one both show tokens only.
func TestCostInHeadlessAndSessionsShow(t *testing.T) {
	// $3 a million fresh input tokens, $0.30 cached, $15 output:
	// (200×3 + 800×0.3 + 100×15 + 1200×3 + 50×15) / 1e6 = $0.00669.
	const want = 0.00669
	for _, c := range []struct {
		name   string
		cfg    string
		priced bool
	}{
		{"priced", `{"providers":{"replay":{"price":{"input":3,"cached_input":0.3,"output":15}}}}`, true},
		{"unpriced", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cli := newCostCLI(t, c.cfg)
			script := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(script, []byte(pricedScript), 0o644); err != nil {
				t.Fatal(err)
			}
			out := cli.run("run", "--workspace", cli.ws, "--model", "replay:"+script, "--mode", "auto", "--json", "what does a.txt say?")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["type"] != "turn_end" {
				t.Fatalf("the final line is not turn_end: %s (%v)", lines[len(lines)-1], err)
			}
			root := loadSchema(t)
			for _, e := range validate(root, root, last, "event") {
				t.Errorf("%s\n  in %s", e, lines[len(lines)-1])
			}
			for _, key := range []string{"turn_usage", "session_usage"} {
				u, _ := last[key].(map[string]any)
				got, has := u["cost_usd"].(float64)
				if has != c.priced || (c.priced && math.Abs(got-want) > 1e-12) || u["input_tokens"] != 2200.0 {
					t.Errorf("%s = %v, want 2200 tokens in and cost %v (priced: %v)", key, u, want, c.priced)
				}
			}

			var list []struct{ ID string }
			if err := json.Unmarshal([]byte(cli.run("sessions", "--workspace", cli.ws, "list", "--json")), &list); err != nil || len(list) != 1 {
				t.Fatalf("sessions list: %v %v", list, err)
			}
			show := cli.run("sessions", "--workspace", cli.ws, "show", list[0].ID)
			wantLine := "usage: 2200 tokens in (800 cached), 150 out; cost unknown (a model without a price)"
			if c.priced {
				wantLine = "usage: 2200 tokens in (800 cached), 150 out; cost $0.0067 (estimated)"
			}
			if got := strings.TrimSpace(show); !strings.HasSuffix(got, "\n"+wantLine) {
				t.Errorf("sessions show ends\n%s\nwant the line %q", got, wantLine)
			}
			var shown struct {
				Usage map[string]any `json:"usage"`
			}
			if err := json.Unmarshal([]byte(cli.run("sessions", "--workspace", cli.ws, "show", "--json", list[0].ID)), &shown); err != nil {
				t.Fatal(err)
			}
			if got, has := shown.Usage["cost_usd"].(float64); has != c.priced || (c.priced && math.Abs(got-want) > 1e-12) {
				t.Errorf("sessions show --json usage %v, want cost %v (priced: %v)", shown.Usage, want, c.priced)
			}
		})
	}
}
