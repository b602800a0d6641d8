package remote

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Endpoint is what every HTTP provider is configured with: where, which
// key, which model, the call policy and the model's limits. Zero fields
// take defaults in Resolve.
type Endpoint struct {
	// BaseURL is the API root; empty means the provider's own.
	BaseURL string
	// APIKey authenticates the requests; empty sends none (local servers,
	// gateways that add their own).
	APIKey string
	// KeyEnv names the environment variable APIKey came from, for the
	// message when authentication fails; empty says "the API key".
	KeyEnv string
	// Model is the model name the server knows. Required.
	Model string
	// Name is the provider's Name, "provider:model"; default the
	// provider's name, a colon and Model.
	Name string
	// Policy bounds each call and its retries (timeout, retries, backoff).
	Policy
	// ContextWindow and MaxOutput are the model's limits in tokens, for
	// compaction and max_tokens; 0 means unknown.
	ContextWindow, MaxOutput int
	// HTTPClient replaces http.DefaultClient, e.g. for tests or proxies.
	// Leave its Timeout zero: the policy's Timeout already bounds the
	// call, and a client timeout would also cut long streams.
	HTTPClient *http.Client
}

// Resolve checks e for provider ("openai") and fills in defaults: the
// API root defaultURL, the name, the policy (timeout the provider's
// default) and the HTTP client. example is a model name for the error
// when none is set.
func (e Endpoint) Resolve(provider, defaultURL, example string, timeout time.Duration) (Endpoint, error) {
	if strings.TrimSpace(e.Model) == "" {
		return e, fmt.Errorf("%s: no model configured: set the model name, e.g. %s", provider, example)
	}
	if e.BaseURL == "" {
		e.BaseURL = defaultURL
	}
	base, err := BaseURL(provider+" "+e.Model, e.BaseURL, defaultURL)
	if err != nil {
		return e, err
	}
	e.BaseURL = base
	if e.Name == "" {
		e.Name = provider + ":" + e.Model
	}
	e.Policy = e.Policy.WithDefaults(timeout)
	if e.HTTPClient == nil {
		e.HTTPClient = http.DefaultClient
	}
	return e, nil
}

// Call is the call loop for the resolved endpoint of provider: api names
// its endpoint in errors, tooLong recognises its "too long" answers.
func (e Endpoint) Call(provider, api string, tooLong func(*Failure) (int, bool)) Call {
	return Call{
		Policy:  e.Policy,
		Target:  Target{Label: provider + " " + e.Model, BaseURL: e.BaseURL, Model: e.Model, KeyEnv: e.KeyEnv, API: api},
		TooLong: tooLong,
	}
}

// Describe is what a provider on e tells about its model.
func (e Endpoint) Describe() Model {
	return Model{Spec: e.Name, Window: e.ContextWindow, Limit: e.MaxOutput}
}
