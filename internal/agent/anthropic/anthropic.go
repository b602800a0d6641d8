// Package anthropic implements agent.Provider over Anthropic's Messages
// API (Claude models), streaming text, extended thinking and tool use
// through the official SDK github.com/anthropics/anthropic-sdk-go/v2.
//
// Each request marks prompt-cache breakpoints (cache_control) on the tool
// list, the system prompt and the latest user messages, so every step of
// a turn reads the conversation so far from Anthropic's cache instead of
// paying for it again. Signed thinking blocks are sent back before the
// tool calls of their turn, as the API requires.
//
// Retries are done by package remote's loop, shared with the other
// providers, and the SDK's own retries are switched off. The provider
// reads no environment variables: the SDK client is built from Config
// alone, so a gateway never receives an ANTHROPIC_API_KEY the caller did
// not pass on purpose.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/remote"
)

// Defaults applied by New for zero Config fields.
const (
	// DefaultBaseURL is Anthropic's API root; requests go to
	// DefaultBaseURL + "/v1/messages".
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultKeyEnv is where the key is usually kept, named in errors.
	DefaultKeyEnv = "ANTHROPIC_API_KEY"
	// DefaultTimeout bounds one call: long answers and thinking stream
	// for minutes.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxTokens caps max_tokens for models whose longest answer is
	// larger: a step of an agent rarely needs more, and a smaller
	// max_tokens leaves more of the window to the conversation.
	DefaultMaxTokens = 32000
	// FallbackMaxOutput is assumed for a model whose longest answer is
	// unknown (every current Claude model allows at least this).
	FallbackMaxOutput = 8192
	// MinThinkingBudget is the smallest thinking budget the API accepts.
	MinThinkingBudget = 1024
	// compactionMaxTokens bounds the answer of a summary call.
	compactionMaxTokens = 8192
)

// Config configures the Messages API for one model. The endpoint's
// BaseURL is the API root without /v1 (https://api.anthropic.com, a
// gateway or a test server; a trailing /v1 is dropped); an empty APIKey
// sends none (a gateway that adds its own); KeyEnv defaults to
// DefaultKeyEnv; the policy's Timeout to DefaultTimeout; MaxOutput bounds
// max_tokens.
type Config struct {
	remote.Endpoint
	// MaxTokens is the max_tokens sent; 0 means MaxOutput (or
	// FallbackMaxOutput) capped at DefaultMaxTokens, raised to leave room
	// for an answer after the thinking budget.
	MaxTokens int
	// ThinkingBudget turns extended thinking on with that many tokens a
	// call (at least MinThinkingBudget); 0 leaves it off.
	ThinkingBudget int
}

// Provider is an agent.Provider for one Claude model. It is safe for
// concurrent use.
type Provider struct {
	remote.Model
	cfg  Config
	call remote.Call
	msgs sdk.MessageService
}

var (
	_ agent.Provider = (*Provider)(nil)
	_ agent.Windowed = (*Provider)(nil)
)

// New checks cfg, fills in defaults and builds the SDK client. It makes no
// network call, so a wrong key or model shows up on the first Complete.
func New(cfg Config) (*Provider, error) {
	var err error
	if cfg.Endpoint, err = cfg.Resolve("anthropic", DefaultBaseURL, "claude-sonnet-4-5", DefaultTimeout); err != nil {
		return nil, err
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/v1")
	if cfg.KeyEnv == "" {
		cfg.KeyEnv = DefaultKeyEnv
	}
	if cfg.MaxTokens, err = maxTokens(cfg); err != nil {
		return nil, fmt.Errorf("anthropic %s: %w", cfg.Model, err)
	}
	// NewMessageService, unlike NewClient, adds no options read from the
	// environment or a profile on disk.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Provider{Model: cfg.Describe(), cfg: cfg, call: cfg.Call("anthropic", "the Messages API (/v1/messages)", tooLong),
		msgs: sdk.NewMessageService(opts...)}, nil
}

// maxTokens is the max_tokens to send: set, or the model's longest answer
// capped at DefaultMaxTokens and raised to leave room for an answer after
// the thinking budget; never over the model's longest answer when known.
func maxTokens(cfg Config) (int, error) {
	b := cfg.ThinkingBudget
	if b != 0 && b < MinThinkingBudget {
		return 0, fmt.Errorf("thinking budget %d is too small: give at least %d tokens, or turn thinking off", b, MinThinkingBudget)
	}
	n := cfg.MaxTokens
	if n <= 0 {
		limit := cfg.MaxOutput
		if limit <= 0 {
			limit = FallbackMaxOutput
		}
		n = min(limit, DefaultMaxTokens)
		if b > 0 {
			n = max(n, b+FallbackMaxOutput)
		}
		if cfg.MaxOutput > 0 {
			n = min(n, cfg.MaxOutput)
		}
	}
	if cfg.MaxOutput > 0 && n > cfg.MaxOutput {
		return 0, fmt.Errorf("max tokens %d is over the model's longest answer (%d tokens)", n, cfg.MaxOutput)
	}
	if b >= n {
		return 0, fmt.Errorf("thinking budget %d leaves no room for an answer within max_tokens %d: lower the thinking setting", b, n)
	}
	return n, nil
}

// Complete streams one message for req: st.Text receives text deltas,
// st.Thinking thinking deltas. Transient failures (429, 5xx, 529
// overloaded, an overloaded event mid-stream, a broken stream) are
// retried while nothing has been streamed. A request whose input and
// max_tokens together pass the window is sent once more with a smaller
// max_tokens when that leaves room for an answer; a prompt longer than
// the window is an *agent.ContextLengthError.
func (p *Provider) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return agent.Response{}, fmt.Errorf("anthropic %s: %w", p.cfg.Model, err)
	}
	return p.call.Do(ctx, st, func(ctx context.Context, st agent.Stream) (agent.Response, *remote.Failure) {
		resp, f := p.attempt(ctx, params, st)
		if f != nil && shrink(&params, f) {
			resp, f = p.attempt(ctx, params, st)
		}
		return resp, f
	})
}

// errStreamEnded marks a stream that ended cleanly but without a
// stop_reason or message_stop.
var errStreamEnded = fmt.Errorf("%w (no message_stop)", remote.ErrStreamEnded)

// attempt makes one request and reads its event stream to the end.
func (p *Provider) attempt(ctx context.Context, params sdk.MessageNewParams, st agent.Stream) (agent.Response, *remote.Failure) {
	var httpResp *http.Response
	stream := p.msgs.NewStreaming(ctx, params, option.WithResponseInto(&httpResp))
	defer stream.Close()

	acc := accumulator{blocks: map[int64]*block{}}
	for stream.Next() {
		acc.add(stream.Current(), st)
		if f := p.call.Policy.Over(acc.size); f != nil {
			return agent.Response{}, f
		}
	}
	if f := remote.StreamEnd(stream.Err(), acc.finished, httpResp, errStreamEnded, streamError); f != nil {
		return agent.Response{}, f
	}
	return acc.response(), nil
}

// streamError recognises an error event in a 200 stream
// ({"type":"error","error":{...}}); overloaded, API and rate-limit errors
// are transient.
func streamError(err error) *remote.Failure {
	var detail, code string
	var aerr *sdk.Error
	switch {
	case errors.As(err, &aerr) && aerr.Message != "":
		detail, code = remote.Clip(aerr.Message), string(aerr.Type())
	case strings.HasPrefix(err.Error(), "received error while streaming: "):
		detail, code = remote.BodyDetail([]byte(strings.TrimPrefix(err.Error(), "received error while streaming: ")))
	default:
		return nil
	}
	return &remote.Failure{Kind: remote.KindStreamError, Detail: detail, Code: code, RetryAfter: -1, Err: err,
		Transient: code == "overloaded_error" || code == "api_error" || code == "rate_limit_error"}
}

var (
	// "prompt is too long: 210000 tokens > 200000 maximum"
	promptTooLongRE = regexp.MustCompile(`prompt is too long(?:: (\d+) tokens > (\d+) maximum)?`)
	// "input length and `max_tokens` exceed context limit: 197000 + 32000 > 200000, decrease input length or `max_tokens` and try again"
	overflowRE = regexp.MustCompile(`exceed context limit: (\d+) \+ (\d+) > (\d+)`)
)

// rejected reports a 400 (or 413) answer or an error event, the only
// failures that can say the request is too long.
func rejected(f *remote.Failure) bool {
	return f.Kind == remote.KindStreamError ||
		f.Kind == remote.KindStatus && (f.Status == http.StatusBadRequest || f.Status == http.StatusRequestEntityTooLarge)
}

// tooLong recognises Anthropic's "prompt is too long" answer (the limit
// it names is the window), an input that leaves no room for max_tokens,
// and a request over the size limit (413 request_too_large).
func tooLong(f *remote.Failure) (int, bool) {
	if !rejected(f) {
		return 0, false
	}
	if m := promptTooLongRE.FindStringSubmatch(f.Detail); m != nil {
		n, _ := strconv.Atoi(m[2])
		return n, true
	}
	if m := overflowRE.FindStringSubmatch(f.Detail); m != nil {
		n, _ := strconv.Atoi(m[3])
		return n, true
	}
	return 0, f.Code == "request_too_large" || f.Status == http.StatusRequestEntityTooLarge
}

// shrink lowers params.MaxTokens after an answer that input plus
// max_tokens pass the window, when what is left still holds an answer
// (and the thinking budget): the request can then go again at once.
func shrink(params *sdk.MessageNewParams, f *remote.Failure) bool {
	if !rejected(f) {
		return false
	}
	m := overflowRE.FindStringSubmatch(f.Detail)
	if m == nil {
		return false
	}
	input, _ := strconv.Atoi(m[1])
	limit, _ := strconv.Atoi(m[3])
	room := int64(limit - input - 64) // a little slack for counting differences
	need := int64(MinThinkingBudget)
	if th := params.Thinking.OfEnabled; th != nil {
		need += th.BudgetTokens
	}
	if room < need || room >= params.MaxTokens {
		return false
	}
	params.MaxTokens = room
	return true
}
