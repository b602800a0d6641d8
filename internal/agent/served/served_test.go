package served_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/served"
)

// fixture is a recorded answer of a real server (testdata).
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// answer is one route's reply.
type answer struct {
	status int
	ctype  string
	body   string
}

func jsonOK(body string) answer {
	return answer{http.StatusOK, "application/json; charset=utf-8", body}
}

// The 404s each server really sends for a path it does not serve.
var (
	ollama404   = answer{http.StatusNotFound, "text/plain", "404 page not found"}
	llamacpp404 = answer{http.StatusNotFound, "application/json; charset=utf-8", `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`}
	vllm404     = answer{http.StatusNotFound, "application/json", `{"detail":"Not Found"}`}
)

// server is a loopback model server answering "METHOD /path" from routes
// (anything else with notFound); it records the models /api/show was
// asked about.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	shown []string
}

func newServer(t *testing.T, notFound answer, routes map[string]answer) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/show" {
			var body struct {
				Model string `json:"model"`
			}
			if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid request"}`))
				return
			}
			s.mu.Lock()
			s.shown = append(s.shown, body.Model)
			s.mu.Unlock()
		}
		a, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			a = notFound
		}
		w.Header().Set("Content-Type", a.ctype)
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(s.Close)
	return s
}

func ask(t *testing.T, url string, kind served.Kind, model string) (int, served.Kind, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return served.ContextWindow(ctx, served.Server{BaseURL: url, Kind: kind}, model)
}

func TestOllama(t *testing.T) {
	show := fixture(t, "ollama_show.json")
	withNumCtx := strings.Replace(show, `"parameters":"repeat_penalty`, `"parameters":"num_ctx                        16384\nrepeat_penalty`, 1)
	for _, c := range []struct {
		name     string
		model    string
		routes   map[string]answer
		want     int
		wantErr  []string
		fromShow bool // the window came from /api/show, asked about model
	}{
		{"a loaded model: what it runs with", "qwen3:8b",
			map[string]answer{"GET /api/ps": jsonOK(fixture(t, "ollama_ps.json")), "POST /api/show": jsonOK(show)}, 8192, nil, false},
		{"a name without a tag is :latest", "llama3.2",
			map[string]answer{"GET /api/ps": jsonOK(fixture(t, "ollama_ps.json")), "POST /api/show": jsonOK(show)}, 4096, nil, false},
		{"not loaded, num_ctx in the Modelfile", "qwen3:8b",
			map[string]answer{"GET /api/ps": jsonOK(`{"models":[]}`), "POST /api/show": jsonOK(withNumCtx)}, 16384, nil, true},
		{"not loaded, no num_ctx: the model's own length", "qwen3:8b",
			map[string]answer{"GET /api/ps": jsonOK(`{"models":[]}`), "POST /api/show": jsonOK(show)}, 40960, nil, true},
		{"an Ollama without /api/ps", "qwen3:8b",
			map[string]answer{"POST /api/show": jsonOK(show)}, 40960, nil, true},
		{"a model it does not have", "nope",
			map[string]answer{"GET /api/ps": jsonOK(`{"models":[]}`), "POST /api/show": {http.StatusNotFound, "application/json; charset=utf-8", `{"error":"model 'nope' not found"}`}},
			0, []string{"POST /api/show: 404 Not Found"}, false},
		{"an answer that is not Ollama's", "qwen3:8b",
			map[string]answer{"POST /api/show": {http.StatusOK, "text/html", "<html><body>proxy login</body></html>"}},
			0, []string{"POST /api/show: the answer is not what the server sends"}, false},
		{"no length anywhere", "qwen3:8b",
			map[string]answer{"POST /api/show": jsonOK(`{"parameters":"temperature 0.6","model_info":{"general.architecture":"qwen3"}}`)},
			0, []string{"neither num_ctx nor model_info"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, ollama404, c.routes)
			n, kind, err := ask(t, srv.URL+"/v1", served.Ollama, c.model)
			checkAnswer(t, n, kind, err, c.want, served.Ollama, c.wantErr)
			if c.fromShow && (len(srv.shown) != 1 || srv.shown[0] != c.model) {
				t.Errorf("/api/show was asked about %q, want [%s]", srv.shown, c.model)
			}
		})
	}
}

func checkAnswer(t *testing.T, n int, kind served.Kind, err error, want int, wantKind served.Kind, wantErr []string) {
	t.Helper()
	if wantErr != nil {
		if err == nil {
			t.Fatalf("window %d from %s, want an error", n, kind)
		}
		for _, part := range wantErr {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		return
	}
	if err != nil || n != want || kind != wantKind {
		t.Errorf("window %d from %q (%v), want %d from %s", n, kind, err, want, wantKind)
	}
}

func TestLlamaCpp(t *testing.T) {
	for _, c := range []struct {
		name    string
		props   answer
		want    int
		wantErr []string
	}{
		{"the slot's context", jsonOK(fixture(t, "llamacpp_props.json")), 8192, nil},
		{"no /props", llamacpp404, 0, []string{"GET /props: 404 Not Found"}},
		{"not JSON", answer{http.StatusOK, "text/plain", "ok"}, 0, []string{"GET /props: the answer is not what the server sends"}},
		{"no n_ctx", jsonOK(`{"total_slots":1,"build_info":"b5604"}`), 0, []string{"no default_generation_settings.n_ctx"}},
		{"a server error", answer{http.StatusServiceUnavailable, "application/json", `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`},
			0, []string{"503 Service Unavailable"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, llamacpp404, map[string]answer{"GET /props": c.props})
			n, kind, err := ask(t, srv.URL+"/v1", served.LlamaCpp, "whatever.gguf")
			checkAnswer(t, n, kind, err, c.want, served.LlamaCpp, c.wantErr)
		})
	}
}

func TestVLLM(t *testing.T) {
	models := jsonOK(fixture(t, "vllm_models.json"))
	for _, c := range []struct {
		name    string
		base    string
		model   string
		list    answer
		want    int
		wantErr []string
	}{
		{"the served model's max_model_len", "/v1", "Qwen/Qwen3-8B", models, 32768, nil},
		{"a base URL with a slash", "/v1/", "qwen-lora", models, 32768, nil},
		{"a model it does not serve", "/v1", "Qwen/Qwen3-32B", models, 0, []string{"no model Qwen/Qwen3-32B among 2"}},
		{"no model list", "/v1", "Qwen/Qwen3-8B", vllm404, 0, []string{"GET /v1/models: 404 Not Found"}},
		{"truncated", "/v1", "Qwen/Qwen3-8B", jsonOK(`{"object":"list","data":[{"id":"Qwen/Qw`), 0, []string{"not what the server sends"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, vllm404, map[string]answer{"GET /v1/models": c.list})
			n, kind, err := ask(t, srv.URL+c.base, served.VLLM, c.model)
			checkAnswer(t, n, kind, err, c.want, served.VLLM, c.wantErr)
		})
	}
}

// TestUnknownKind: a server whose provider name says nothing is asked
// every way; each real server answers its own question (and the others'
// model lists without a window).
func TestUnknownKind(t *testing.T) {
	for _, c := range []struct {
		name     string
		notFound answer
		routes   map[string]answer
		model    string
		want     int
		kind     served.Kind
	}{
		{"vLLM", vllm404, map[string]answer{"GET /v1/models": jsonOK(fixture(t, "vllm_models.json"))}, "Qwen/Qwen3-8B", 32768, served.VLLM},
		{"llama.cpp", llamacpp404, map[string]answer{"GET /v1/models": jsonOK(fixture(t, "llamacpp_models.json")),
			"GET /props": jsonOK(fixture(t, "llamacpp_props.json"))}, "qwen2.5-coder-7b-instruct-q4_k_m.gguf", 8192, served.LlamaCpp},
		{"Ollama", ollama404, map[string]answer{"GET /v1/models": jsonOK(fixture(t, "ollama_models.json")),
			"GET /api/ps": jsonOK(fixture(t, "ollama_ps.json")), "POST /api/show": jsonOK(fixture(t, "ollama_show.json"))}, "qwen3:8b", 8192, served.Ollama},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, c.notFound, c.routes)
			n, kind, err := ask(t, srv.URL+"/v1", "", c.model)
			checkAnswer(t, n, kind, err, c.want, c.kind, nil)
		})
	}
	srv := newServer(t, vllm404, nil)
	_, _, err := ask(t, srv.URL+"/v1", "", "m")
	checkAnswer(t, 0, "", err, 0, "", []string{"as vllm: GET /v1/models: 404", "as llamacpp: GET /props: 404", "as ollama: POST /api/show: 404", srv.URL + "/v1 did not say"})
}

// TestSlowOrAbsentServer: a server that never answers costs the caller's
// deadline, not more, even asked every way; a closed port fails at once.
func TestSlowOrAbsentServer(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer hang.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := served.ContextWindow(ctx, served.Server{BaseURL: hang.URL + "/v1"}, "m")
	if took := time.Since(start); err == nil || !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
		t.Errorf("a hanging server: error %v after %v, want the deadline within 2s", err, took)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	if _, _, err := ask(t, url+"/v1", served.Ollama, "m"); err == nil || !strings.Contains(err.Error(), "connect") {
		t.Errorf("a closed port: %v, want a connection error", err)
	}
}
