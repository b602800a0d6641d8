package wrap

import (
	"encoding/json"
	"testing"
)

// agentlsCaps are agentls's own capabilities, as the frontend declares them.
const agentlsCaps = `{
	"textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
	"executeCommandProvider": {"commands": ["agentls.ask", "agentls.cancel"]},
	"codeActionProvider": {"codeActionKinds": ["quickfix", "refactor"]},
	"workspace": {"workspaceFolders": {"supported": true, "changeNotifications": true}}
}`

func TestMergeCapabilities(t *testing.T) {
	for _, c := range []struct {
		name, server, ours, want string
	}{
		{"commands joined, the server's first, once each",
			`{"executeCommandProvider": {"commands": ["gopls.tidy", "agentls.ask"], "workDoneProgress": true}}`, agentlsCaps,
			`{"executeCommandProvider": {"commands": ["gopls.tidy", "agentls.ask", "agentls.cancel"], "workDoneProgress": true}}`},
		{"code action kinds joined, resolve kept",
			`{"codeActionProvider": {"codeActionKinds": ["quickfix", "source.organizeImports"], "resolveProvider": true}}`, agentlsCaps,
			`{"codeActionProvider": {"codeActionKinds": ["quickfix", "source.organizeImports", "refactor"], "resolveProvider": true}}`},
		{"a server offering any code action kind keeps offering any",
			`{"codeActionProvider": true}`, agentlsCaps,
			`{"codeActionProvider": {}}`},
		{"sync as a number becomes an object agentls can follow",
			`{"textDocumentSync": 1}`, agentlsCaps,
			`{"textDocumentSync": {"openClose": true, "change": 1, "save": {"includeText": false}}}`},
		{"a server wanting no changes still gets them (agentls's overlay)",
			`{"textDocumentSync": {"openClose": false, "change": 0, "save": true}}`, agentlsCaps,
			`{"textDocumentSync": {"openClose": true, "change": 2, "save": true}}`},
		{"workspace folders announced, the server's other workspace keys kept",
			`{"workspace": {"fileOperations": {"didRename": {}}, "workspaceFolders": {"supported": true}}}`, agentlsCaps,
			`{"workspace": {"fileOperations": {"didRename": {}}, "workspaceFolders": {"supported": true, "changeNotifications": true}}}`},
		{"a capability only agentls has is added; one both have without a rule is the server's",
			`{"hoverProvider": true, "renameProvider": {"prepareProvider": true}}`,
			`{"inlineCompletionProvider": {}, "renameProvider": true}`,
			`{"hoverProvider": true, "renameProvider": {"prepareProvider": true}, "inlineCompletionProvider": {}}`},
		{"a capability the server declares false is agentls's",
			`{"codeActionProvider": false}`, agentlsCaps,
			`{"codeActionProvider": {"codeActionKinds": ["quickfix", "refactor"]}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ours map[string]any
			if err := json.Unmarshal([]byte(c.ours), &ours); err != nil {
				t.Fatal(err)
			}
			res := `{"capabilities": ` + c.server + `, "serverInfo": {"name": "gopls", "version": "v0.23.0"}}`
			got, err := MergeCapabilities(json.RawMessage(res), ours, map[string]any{"name": "agentls", "version": "v1"})
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Capabilities map[string]any `json:"capabilities"`
				ServerInfo   map[string]any `json:"serverInfo"`
			}
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				if g := m.Capabilities[k]; jsonOf(g) != jsonOf(w) {
					t.Errorf("%s = %s, want %s", k, jsonOf(g), jsonOf(w))
				}
			}
			if m.ServerInfo["name"] != "agentls (gopls)" || m.ServerInfo["version"] != "v1" {
				t.Errorf("serverInfo %v", m.ServerInfo)
			}
		})
	}
	if _, err := MergeCapabilities(json.RawMessage(`null`), nil, nil); err == nil {
		t.Error("a null initialize result merged")
	}
}

func TestInitializeParams(t *testing.T) {
	for _, c := range []struct {
		name     string
		params   string
		confined bool
		want     string
	}{
		{"unchanged when nothing applies",
			`{"processId":42,"rootUri":"file:///w","capabilities":{"textDocument":{"hover":{}}},"initializationOptions":{"gofumpt":true}}`, false,
			`{"capabilities":{"textDocument":{"hover":{}}},"initializationOptions":{"gofumpt":true},"processId":42,"rootUri":"file:///w"}`},
		{"encodings narrowed to UTF-16",
			`{"capabilities":{"general":{"positionEncodings":["utf-8","utf-32","utf-16"],"markdown":{"parser":"x"}}}}`, false,
			`{"capabilities":{"general":{"markdown":{"parser":"x"},"positionEncodings":["utf-16"]}}}`},
		{"agentls's settings taken out, the server's left",
			`{"initializationOptions":{"agentls":{"model":"m"},"gofumpt":true}}`, false,
			`{"initializationOptions":{"gofumpt":true}}`},
		{"options holding only agentls's are left out",
			`{"initializationOptions":{"agentls":{"model":"m"}}}`, false,
			`{}`},
		{"no processId for a confined server",
			`{"processId":42}`, true,
			`{"processId":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := InitializeParams(json.RawMessage(c.params), c.confined)
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(decoded(t, got)) != jsonOf(decoded(t, []byte(c.want))) {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	if _, err := InitializeParams(json.RawMessage(`[1]`), false); err == nil {
		t.Error("params that are not an object passed")
	}
	if got := AgentlsOptions(json.RawMessage(`{"agentls":{"model":"m"},"x":1}`)); string(got) != `{"model":"m"}` {
		t.Errorf("AgentlsOptions = %s", got)
	}
}

func decoded(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
