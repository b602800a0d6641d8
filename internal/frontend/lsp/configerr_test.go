package lsp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// A config file that does not load is named as such: an error message
// once the client is initialized, and in the error of an ask that fails
// for want of what the file held (the model), rather than only the log.
func TestConfigFileErrorShown(t *testing.T) {
	ctx := ctxT(t)
	bad := errors.New(`config /home/u/.config/agentls/config.json: invalid character '}' looking for beginning of object key string`)
	ed, _ := setup(t, nil, nil, func(o *fake.Options) {
		o.Server.ConfigErr = bad
		o.Server.ConfigPath = "/home/u/.config/agentls/config.json"
	})
	want := "your config file /home/u/.config/agentls/config.json did not load, so none of its settings apply: " + bad.Error()
	if err := ed.WaitFor(ctx, "the config error", func(ed *fake.Editor) bool {
		for _, m := range ed.Shows() {
			if m.Type == 1 && strings.Contains(m.Message, want) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no error message naming the config file: shows %+v", ed.Shows())
	}
	_, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ask without a model = %v, want it to say %q", err, want)
	}
}
