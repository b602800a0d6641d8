// Package fim asks a model for the text that belongs between the code
// before the cursor and the code after it (fill in the middle), for
// inline completion. Three ways reach the models people run for it:
// OpenAI's /v1/completions with a prompt and a suffix (Ollama, and any
// server that takes a suffix; or a prompt written in the model's own
// fill-in-the-middle tokens for servers that do not, such as vLLM),
// llama.cpp's /infill, and a chat model told to fill a gap (Chat).
//
// A completion is asked once, never retried: a newer keystroke makes it
// stale sooner than a retry could help, and the caller's context ends the
// HTTP request at once (the connection closes, so the server stops
// generating).
package fim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent/remote"
)

// Request is one gap to fill.
type Request struct {
	// Path names the file (relative to the workspace), for the chat
	// prompt; the completion APIs never see it.
	Path string
	// Prefix is the text before the cursor, Suffix the text after it,
	// both already bounded by the caller.
	Prefix, Suffix string
	// MaxTokens bounds the answer; 0 means DefaultMaxTokens.
	MaxTokens int
	// Context is what the file's language server knows of the symbols
	// used near the cursor — their signatures, each after the name of
	// the file it comes from — bounded by the caller; it is not part of
	// the file. The completion APIs get it as a comment block before
	// Prefix, in the line comments of Path's language (without it when
	// the language is unknown, LineComment); the chat prompt as a section
	// of its own.
	Context string
}

// contextHeading opens the context in a prompt.
const contextHeading = "Declarations used near the cursor (from the language server; not part of this file):"

// prefix is r.Prefix after the context as a comment block, for the
// completion APIs.
func (r Request) prefix() string {
	mark := LineComment(r.Path)
	ctx := strings.TrimRight(r.Context, "\n")
	if ctx == "" || mark == "" {
		return r.Prefix
	}
	var b strings.Builder
	b.WriteString(mark + " " + contextHeading + "\n")
	for line := range strings.SplitSeq(ctx, "\n") {
		b.WriteString(strings.TrimRight(mark+" "+line, " ") + "\n")
	}
	b.WriteString("\n")
	return b.String() + r.Prefix
}

// LineComment is what starts a line comment in the language of the file
// path names, by its extension; "" when agentls does not know it.
func LineComment(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".java", ".js", ".mjs", ".cjs", ".jsx",
		".ts", ".mts", ".cts", ".tsx", ".rs", ".swift", ".kt", ".kts", ".cs", ".scala", ".dart", ".zig",
		".proto", ".php", ".groovy", ".m", ".mm":
		return "//"
	case ".py", ".pyi", ".rb", ".sh", ".bash", ".zsh", ".pl", ".r", ".jl", ".nim", ".ex", ".exs",
		".yaml", ".yml", ".toml", ".cmake", ".tf", ".ps1", ".cr":
		return "#"
	case ".lua", ".sql", ".hs", ".elm", ".ada", ".adb", ".ads":
		return "--"
	case ".el", ".lisp", ".clj", ".cljs", ".scm", ".rkt":
		return ";;"
	case ".erl", ".hrl", ".tex":
		return "%"
	}
	return ""
}

// DefaultMaxTokens bounds a completion when the request does not.
const DefaultMaxTokens = 128

// Timeout bounds one completion: one a person waits this long for is no
// longer wanted.
const Timeout = 30 * time.Second

// maxAnswerBytes bounds the text read from one answer: a server that
// keeps streaming would otherwise fill memory.
const maxAnswerBytes = 64 << 10

// Filler fills in the middle.
type Filler interface {
	// Fill returns the text that goes between r.Prefix and r.Suffix
	// (possibly empty). When ctx ends first it returns ctx's error, and
	// the model's request has been abandoned.
	Fill(ctx context.Context, r Request) (string, error)
	// Name is the "provider:model" string, for logs and messages.
	Name() string
}

// The APIs of an HTTP filler (Config.API).
const (
	APICompletions = "completions"
	APIInfill      = "infill"
)

// Config is where an HTTP filler sends its requests.
type Config struct {
	// Endpoint is the server: BaseURL is the OpenAI-compatible root
	// (ending in /v1 for the built-in local providers); llama.cpp's
	// /infill is asked at the server's root, without /v1.
	remote.Endpoint
	// API is APICompletions or APIInfill.
	API string
	// Template, for APICompletions, is the prompt with {prefix} and
	// {suffix} in the model's fill-in-the-middle tokens; it is sent
	// without a suffix field. Empty sends prompt and suffix.
	Template string
}

// New makes an HTTP filler.
func New(c Config) (Filler, error) {
	switch c.API {
	case APICompletions, APIInfill:
	default:
		return nil, fmt.Errorf("fim: API %q: use %q or %q", c.API, APICompletions, APIInfill)
	}
	ep, err := c.Endpoint.Resolve("completion", "http://localhost:8080/v1", "qwen2.5-coder:1.5b", Timeout)
	if err != nil {
		return nil, err
	}
	c.Endpoint = ep
	return &httpFiller{c: c}, nil
}

type httpFiller struct{ c Config }

func (f *httpFiller) Name() string { return f.c.Name }

// Fill implements Filler.
func (f *httpFiller) Fill(ctx context.Context, r Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.c.Policy.Timeout)
	defer cancel()
	maxTokens := r.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	var url string
	var body any
	if f.c.API == APIInfill {
		url = strings.TrimSuffix(f.c.BaseURL, "/v1") + "/infill"
		body = map[string]any{"input_prefix": r.prefix(), "input_suffix": r.Suffix, "n_predict": maxTokens,
			"stream": true, "cache_prompt": true, "temperature": 0}
	} else {
		url = f.c.BaseURL + "/completions"
		req := map[string]any{"model": f.c.Model, "max_tokens": maxTokens, "stream": true, "temperature": 0}
		if f.c.Template != "" {
			req["prompt"] = strings.NewReplacer("{prefix}", r.prefix(), "{suffix}", r.Suffix).Replace(f.c.Template)
		} else {
			req["prompt"], req["suffix"] = r.prefix(), r.Suffix
		}
		body = req
	}
	return f.post(ctx, url, body, f.target(f.c.API))
}

// post sends one streamed request and reads its answer.
func (f *httpFiller) post(ctx context.Context, url string, body any, target remote.Target) (string, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if f.c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+f.c.APIKey)
	}
	resp, err := f.c.HTTPClient.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", target.Describe(remote.TransportFailure(err), 1, false, 0)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		msg, code := remote.ErrorDetail(resp)
		return "", target.Describe(remote.StatusFailure(resp.StatusCode, resp.Header, msg, code, fmt.Errorf("status %d", resp.StatusCode)), 1, false, 0)
	}
	text, err := readAnswer(resp)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", target.Describe(&remote.Failure{Kind: remote.KindStream, Err: err}, 1, false, 0)
	}
	return text, nil
}

// target names the endpoint of an api (APICompletions, APIInfill) in
// error messages.
func (f *httpFiller) target(api string) remote.Target {
	if api == APIInfill {
		api = "/infill"
	} else {
		api = "/v1/completions"
	}
	return remote.Target{Label: f.c.Name, BaseURL: f.c.BaseURL, Model: f.c.Model, KeyEnv: f.c.KeyEnv, API: api}
}

// piece is one streamed event or a whole answer of either API: an
// OpenAI completion's choices[].text or llama.cpp's content.
type piece struct {
	Choices []struct {
		Text string `json:"text"`
	} `json:"choices"`
	Content string `json:"content"`
	// Error is an error event inside a 200 stream.
	Error json.RawMessage `json:"error"`
}

func (p piece) text() string {
	if len(p.Choices) > 0 {
		return p.Choices[0].Text
	}
	return p.Content
}

// readAnswer reads a server-sent event stream, or a whole JSON answer
// from a server that ignored stream: true.
func readAnswer(resp *http.Response) (string, error) {
	body := io.LimitReader(resp.Body, maxAnswerBytes*4)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var p piece
		if err := json.NewDecoder(body).Decode(&p); err != nil {
			return "", fmt.Errorf("read the answer: %w", err)
		}
		return clipAnswer(p.text()), nil
	}
	var out strings.Builder
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return out.String(), nil
		}
		var p piece
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			return "", fmt.Errorf("a malformed event: %w", err)
		}
		if len(p.Error) > 0 && string(p.Error) != "null" {
			msg, _ := remote.BodyDetail([]byte(data))
			return "", errors.New("the server reported an error mid-stream: " + msg)
		}
		out.WriteString(p.text())
		if out.Len() > maxAnswerBytes {
			return clipAnswer(out.String()), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return out.String(), nil // llama.cpp ends its stream without [DONE]
}

// clipAnswer keeps an answer within maxAnswerBytes, on a line boundary.
func clipAnswer(s string) string {
	if len(s) <= maxAnswerBytes {
		return s
	}
	s = s[:maxAnswerBytes]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	return s
}
