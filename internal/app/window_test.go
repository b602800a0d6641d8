package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// ollamaAPI answers Ollama's own API as a server whose model runs with
// num_ctx (0: the Modelfile sets none, and the model's own length is
// 40960): /api/show in its real shape, and Gin's 404 for /api/ps, as an
// Ollama from before that route.
func ollamaAPI(numCtx int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/show" {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "404 page not found")
			return
		}
		params := "stop                           \"<|im_end|>\"\ntemperature                    0.6"
		if numCtx > 0 {
			params = fmt.Sprintf("num_ctx                        %d\n", numCtx) + params
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"parameters": params,
			"details":    map[string]any{"format": "gguf", "family": "qwen3", "parameter_size": "8.2B"},
			"model_info": map[string]any{"general.architecture": "qwen3", "qwen3.context_length": 40960, "qwen3.block_count": 36},
		})
	}
}

// ollamaApp is an App whose model is ollama:<model> at srv.
func ollamaApp(t *testing.T, srv *openaitest.Server, model string, window int, log *slog.Logger) (*app.App, string) {
	return newApp(t, srv.URL, func(o *app.Options) {
		o.Log = log
		o.Config.Model = "ollama:" + model
		p := config.Provider{BaseURL: srv.URL}
		if window > 0 {
			p.Models = map[string]config.ModelLimits{model: {ContextWindow: window}}
		}
		o.Config.Providers = map[string]config.Provider{"ollama": p}
	})
}

// TestServedWindowDrivesCompaction: nothing configures a window, the
// model is unknown to agentls, and the server refuses prompts over the
// 6000 tokens it serves: the session asks Ollama, compacts to 6000, and
// no request is refused (assumed at 32768, the first ones were).
func TestServedWindowDrivesCompaction(t *testing.T) {
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if strings.Contains(r.Messages[0].Content, "You compact a coding session") {
			return openaitest.Reply{Parts: []string{"Summary: " + factList(facts(r.Text()))}}
		}
		if n := len(facts(r.Text())); n < 12 {
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("c%d", len(r.Messages)), "view", map[string]string{"file_path": fmt.Sprintf("f%02d.txt", n+1)})}}
		}
		return openaitest.Reply{Parts: []string{"done: " + factList(facts(r.Text()))}}
	})
	defer srv.Close()
	srv.Window = 6000
	srv.Also = ollamaAPI(6000)
	a, root := ollamaApp(t, srv, "test-model", 0, nil)
	for i := 1; i <= 12; i++ {
		body := fmt.Sprintf("FILE f%02d secret=s%d\n", i, i) + strings.Repeat("x", 2500) + "\n"
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env.Close()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless", MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	if w := sess.ContextWindow(); w != 6000 {
		t.Errorf("the session's window is %d, want the 6000 Ollama serves", w)
	}
	turn, _ := sess.Start(context.Background(), "read f01..f12", func(agent.Event) {})
	res := turn.Wait()
	if res.Reason != agent.ReasonCompleted || len(facts(res.Text)) != 12 {
		t.Fatalf("turn: %s %v: %s", res.Reason, res.Err, res.Text)
	}
	if n := srv.OverWindow(); n != 0 {
		t.Errorf("%d requests over the window the server said it serves", n)
	}
}

// syncBuffer is a log sink tests read while sessions write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestContextWindowFromTheServer: what the server serves wins over what
// agentls assumes and over a larger setting; a smaller setting is kept;
// a server that does not say leaves the setting, else the published
// figure, with a debug line saying why.
func TestContextWindowFromTheServer(t *testing.T) {
	garbage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>login</html>") })
	for _, c := range []struct {
		name       string
		model      string
		also       http.Handler
		configured int
		want       int
		log        string
	}{
		{"served num_ctx", "test-model", ollamaAPI(6000), 0, 6000, "context window from the model server"},
		{"the model's own length when no num_ctx", "test-model", ollamaAPI(0), 0, 40960, "context window from the model server"},
		{"a smaller setting is kept", "test-model", ollamaAPI(6000), 5000, 5000, "below what the model server serves"},
		{"a larger setting is not", "test-model", ollamaAPI(6000), 9000, 6000, "above what the model server serves"},
		{"404: the setting", "test-model", nil, 9000, 9000, "did not say its context window"},
		{"404: the published figure", "qwen3", nil, 0, 40960, "did not say its context window"},
		{"garbage: the fallback", "test-model", garbage, 0, 32768, "not what the server sends"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"ok"}} })
			defer srv.Close()
			srv.Also = c.also
			logs := &syncBuffer{}
			a, root := ollamaApp(t, srv, c.model, c.configured, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
			env, _ := a.Open(app.Frontend{Roots: []string{root}})
			defer env.Close()
			sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
			if err != nil {
				t.Fatal(err)
			}
			if w := sess.ContextWindow(); w != c.want {
				t.Errorf("window %d, want %d", w, c.want)
			}
			if !strings.Contains(logs.String(), c.log) {
				t.Errorf("the log does not say %q:\n%s", c.log, logs.String())
			}
		})
	}
}
