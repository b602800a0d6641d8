package lsp

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The few wire types agentls decodes itself. go.lsp.dev/protocol v0.12.0
// (LSP 3.16) cannot tell a whole-document change from a range change (its
// Range is not a pointer), and a strict decode of the whole client
// capability tree fails on fields newer than 3.16; these types take only
// what the server reads.

// codeRequestCancelled is LSP's RequestCancelled error code.
const codeRequestCancelled jsonrpc2.Code = -32800

type initializeParams struct {
	ProcessID             *int              `json:"processId"`
	RootURI               string            `json:"rootUri"`
	RootPath              string            `json:"rootPath"`
	WorkspaceFolders      []workspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage   `json:"initializationOptions"`
	Capabilities          json.RawMessage   `json:"capabilities"`
	ClientInfo            *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
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
		} `json:"agentls"`
	} `json:"experimental"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type versionedDoc struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  string          `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedDoc    `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

type docIDParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

type didChangeFoldersParams struct {
	Event struct {
		Added   []workspaceFolder `json:"added"`
		Removed []workspaceFolder `json:"removed"`
	} `json:"event"`
}

type cancelParams struct {
	ID jsonrpc2.ID `json:"id"`
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

type progressCreateParams struct {
	Token string `json:"token"`
}

type progressCancelParams struct {
	Token json.RawMessage `json:"token"`
}

type progressBegin struct {
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Cancellable bool   `json:"cancellable"`
	Message     string `json:"message,omitempty"`
}

type progressReport struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

type progressEnd struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}
