package lsp

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The wire types the editor-facing server cannot take from
// go.lsp.dev/protocol v0.12.0 (LSP 3.16), each with its reason. Every
// other message uses that package's types.
//
//   - initializeParams, clientCaps: a strict decode of the client's whole
//     capability tree fails on fields newer than 3.16 (3.17 clients send
//     them); only what the server feature-detects on is read, and the
//     agentls plugins' experimental capabilities are ours.
//   - contentChange: protocol's TextDocumentContentChangeEvent has a
//     Range that is not a pointer, so it cannot tell a whole-document
//     change from a change of the empty range at 0:0.
//   - cancelParams: the request id must compare equal to jsonrpc2's own
//     ID of the request, which protocol's interface{} does not keep.
//   - executeCommandParams: arguments stay raw for a strict decode per
//     command (protocol decodes them into interface{}).
//   - codeActionTrigger: LSP 3.17's context.triggerKind, which 3.16
//     lacks: VS Code asks for code actions on every cursor move
//     (Automatic) to decide on its lightbulb.
//   - inlineCompletionParams, inlineCompletionList, inlineCompletionItem:
//     LSP 3.18's textDocument/inlineCompletion (inline.go), which 3.16
//     lacks: ghost text in Neovim 0.12, VS Code and Helix.
//   - the ApplyWorkspaceEdit reply is decoded into
//     protocol.ApplyWorkspaceEditResponse by hand: protocol's typed client
//     decodes it as a bool, which fails on real clients.

// codeActionTrigger reads context.triggerKind of a textDocument/codeAction
// request: 1 Invoked (the person asked: Ctrl+., a menu), 2 Automatic (the
// editor deciding whether to show a lightbulb). Clients before 3.17 send
// none (0), which counts as invoked.
type codeActionTrigger struct {
	Context struct {
		TriggerKind int `json:"triggerKind"`
	} `json:"context"`
}

// codeActionAutomatic is LSP 3.17's CodeActionTriggerKind.Automatic.
const codeActionAutomatic = 2

// codeRequestCancelled is LSP's RequestCancelled error code.
const codeRequestCancelled jsonrpc2.Code = -32800

type initializeParams struct {
	ProcessID             *int                       `json:"processId"`
	RootURI               string                     `json:"rootUri"`
	RootPath              string                     `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
	Capabilities          json.RawMessage            `json:"capabilities"`
	ClientInfo            *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

// clientCaps is the part of the client's capabilities agentls feature-
// detects on.
type clientCaps struct {
	Window struct {
		WorkDoneProgress bool             `json:"workDoneProgress"`
		ShowMessage      *json.RawMessage `json:"showMessage"`
		ShowDocument     *struct {
			Support bool `json:"support"`
		} `json:"showDocument"`
	} `json:"window"`
	Workspace struct {
		WorkspaceEdit struct {
			DocumentChanges bool `json:"documentChanges"`
		} `json:"workspaceEdit"`
		Configuration    bool `json:"configuration"`
		WorkspaceFolders bool `json:"workspaceFolders"`
	} `json:"workspace"`
	// Experimental carries what the agentls editor plugins add.
	Experimental struct {
		Agentls struct {
			SaveDocument bool `json:"saveDocument"`
			Question     bool `json:"question"`
			// AsyncAsk: asks as agentls/ask notifications, answered with
			// agentls.approve; Review: file changes as agentls/review.
			AsyncAsk bool `json:"asyncAsk"`
			Review   bool `json:"review"`
			// AsyncQuestion: the agent's questions as agentls/askQuestion
			// notifications, answered with agentls.answer.
			AsyncQuestion bool `json:"asyncQuestion"`
			// WorkspaceTrust is the editor's own trust of the workspace
			// (VS Code's Workspace Trust): "trusted", "restricted", or ""
			// when the editor has none (trust.go).
			WorkspaceTrust string `json:"workspaceTrust"`
		} `json:"agentls"`
	} `json:"experimental"`
}

type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  string          `json:"text"`
}

type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

type cancelParams struct {
	ID jsonrpc2.ID `json:"id"`
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// inlineCompletionParams is LSP 3.18's InlineCompletionParams.
type inlineCompletionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
	Context      struct {
		// TriggerKind is inlineInvoked or inlineAutomatic.
		TriggerKind int `json:"triggerKind"`
	} `json:"context"`
}

// LSP 3.18's InlineCompletionTriggerKind: the person asked (a key), or
// the editor asked on its own as they typed.
const (
	inlineInvoked   = 1
	inlineAutomatic = 2
)

// inlineCompletionList is LSP 3.18's InlineCompletionList.
type inlineCompletionList struct {
	Items []inlineCompletionItem `json:"items"`
}

// inlineCompletionItem is LSP 3.18's InlineCompletionItem: insertText
// replaces Range (an empty range at the cursor: an insertion).
type inlineCompletionItem struct {
	InsertText string            `json:"insertText"`
	Range      *protocol.Range   `json:"range,omitempty"`
	Command    *protocol.Command `json:"command,omitempty"`
}
