// Package served asks a local model server what context window it really
// serves a model with — Ollama, llama.cpp's server, vLLM — so compaction
// works to the server's limit instead of a published or assumed figure
// (a local server often serves far less than the model could take, and
// some cut an overlong prompt silently instead of refusing it).
package served

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Kind is a kind of model server, named as agentls's built-in providers
// for it are.
type Kind string

// The servers agentls knows how to ask.
const (
	Ollama   Kind = "ollama"
	LlamaCpp Kind = "llamacpp"
	VLLM     Kind = "vllm"
)

// Server is a model server reached at an OpenAI-compatible base URL.
type Server struct {
	// BaseURL is the provider's base URL, usually ending in /v1.
	BaseURL string
	// Kind is what the server is, when its provider's name says so; ""
	// asks it each way in turn.
	Kind Kind
	// Client makes the requests; nil means http.DefaultClient. Bound the
	// whole question with the context.
	Client *http.Client
}

// maxAnswer bounds an answer read (Ollama's carries the model's template
// and licence).
const maxAnswer = 8 << 20

// ContextWindow asks srv the context window, in tokens, it serves model
// with, and which kind of server answered. A server of unknown kind is
// asked as vLLM, llama.cpp and Ollama in turn. The error names every
// attempt and what it found (404, an answer without the figure, a
// timeout).
func ContextWindow(ctx context.Context, srv Server, model string) (int, Kind, error) {
	if srv.Client == nil {
		srv.Client = http.DefaultClient
	}
	kinds := []Kind{VLLM, LlamaCpp, Ollama}
	if srv.Kind != "" {
		kinds = []Kind{srv.Kind}
	}
	var errs []error
	for _, k := range kinds {
		var n int
		var err error
		switch k {
		case Ollama:
			n, err = srv.ollama(ctx, model)
		case LlamaCpp:
			n, err = srv.llamacpp(ctx)
		case VLLM:
			n, err = srv.vllm(ctx, model)
		default:
			err = errors.New("unknown kind of server")
		}
		if err == nil {
			return n, k, nil
		}
		errs = append(errs, fmt.Errorf("as %s: %w", k, err))
		if ctx.Err() != nil {
			break
		}
	}
	return 0, "", fmt.Errorf("%s did not say its context window for %s: %w", srv.BaseURL, model, errors.Join(errs...))
}

// root is the server's own API root: the base URL without /v1.
func (s Server) root() string {
	return strings.TrimSuffix(strings.TrimRight(s.BaseURL, "/"), "/v1")
}

// ask sends one request and decodes its JSON answer into v.
func (s Server) ask(ctx context.Context, method, url string, body any, v any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	what := method + " " + strings.TrimPrefix(url, s.root())
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
		return fmt.Errorf("%s: %s", what, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(v); err != nil {
		return fmt.Errorf("%s: the answer is not what the server sends: %w", what, err)
	}
	return nil
}

// ollama asks Ollama: the context a loaded model runs with (/api/ps, the
// figure really served), else the num_ctx its Modelfile sets, else the
// model's own context length (/api/show). Without num_ctx, Ollama runs a
// model with its server default (OLLAMA_CONTEXT_LENGTH), which no API
// reports until the model is loaded.
func (s Server) ollama(ctx context.Context, model string) (int, error) {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	psErr := s.ask(ctx, http.MethodGet, s.root()+"/api/ps", nil, &ps)
	if psErr == nil {
		for _, m := range ps.Models {
			if (sameOllamaModel(m.Name, model) || sameOllamaModel(m.Model, model)) && m.ContextLength > 0 {
				return m.ContextLength, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, errors.Join(psErr, err)
	}
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if err := s.ask(ctx, http.MethodPost, s.root()+"/api/show", map[string]string{"model": model}, &show); err != nil {
		return 0, err
	}
	if n := numCtx(show.Parameters); n > 0 {
		return n, nil
	}
	arch, _ := show.ModelInfo["general.architecture"].(string)
	if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok && arch != "" && n > 0 {
		return int(n), nil
	}
	return 0, errors.New("POST /api/show: the answer has neither num_ctx nor model_info's <architecture>.context_length")
}

// sameOllamaModel compares Ollama model names, where "qwen3" is
// "qwen3:latest".
func sameOllamaModel(a, b string) bool {
	tagged := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return a != "" && tagged(a) == tagged(b)
}

// numCtx reads num_ctx from Ollama's parameters text ("num_ctx   8192"
// lines); 0 when it is not set.
func numCtx(params string) int {
	sc := bufio.NewScanner(strings.NewReader(params))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// llamacpp asks llama.cpp's server (/props): the context of a slot, which
// is what one request may fill.
func (s Server) llamacpp(ctx context.Context) (int, error) {
	var props struct {
		Settings *struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := s.ask(ctx, http.MethodGet, s.root()+"/props", nil, &props); err != nil {
		return 0, err
	}
	if props.Settings == nil || props.Settings.NCtx <= 0 {
		return 0, errors.New("GET /props: the answer has no default_generation_settings.n_ctx")
	}
	return props.Settings.NCtx, nil
}

// vllm asks vLLM's model list (/v1/models): the max_model_len of the
// entry named model.
func (s Server) vllm(ctx context.Context, model string) (int, error) {
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	url := strings.TrimRight(s.BaseURL, "/") + "/models"
	if err := s.ask(ctx, http.MethodGet, url, nil, &list); err != nil {
		return 0, err
	}
	for _, m := range list.Data {
		if m.ID == model {
			if m.MaxModelLen <= 0 {
				return 0, fmt.Errorf("GET /v1/models: %s has no max_model_len", model)
			}
			return m.MaxModelLen, nil
		}
	}
	return 0, fmt.Errorf("GET /v1/models: no model %s among %d", model, len(list.Data))
}
