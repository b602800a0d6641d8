package client

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The wire types this package sends and decodes. go.lsp.dev/protocol
// v0.12.0 stops at LSP 3.16 and gets some shapes wrong or misses them
// (pull diagnostics, position encodings, unions such as Location |
// LocationLink[]), so requests and results use these small structs, which
// take only what the client reads.

type position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// locationOrLink decodes a Location or a LocationLink.
type locationOrLink struct {
	URI                  string    `json:"uri"`
	Range                *lspRange `json:"range"`
	TargetURI            string    `json:"targetUri"`
	TargetSelectionRange *lspRange `json:"targetSelectionRange"`
	TargetRange          *lspRange `json:"targetRange"`
}

type docID struct {
	URI string `json:"uri"`
}

type versionedDocID struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
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

type wholeChange struct {
	Text string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedDocID `json:"textDocument"`
	ContentChanges []wholeChange  `json:"contentChanges"`
}

type didCloseParams struct {
	TextDocument docID `json:"textDocument"`
}

type didSaveParams struct {
	TextDocument docID   `json:"textDocument"`
	Text         *string `json:"text,omitempty"`
}

type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"` // 1 created, 2 changed, 3 deleted
}

type didChangeWatchedFilesParams struct {
	Changes []fileEvent `json:"changes"`
}

type positionParams struct {
	TextDocument docID    `json:"textDocument"`
	Position     position `json:"position"`
}

type referenceParams struct {
	TextDocument docID    `json:"textDocument"`
	Position     position `json:"position"`
	Context      struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type renameParams struct {
	TextDocument docID    `json:"textDocument"`
	Position     position `json:"position"`
	NewName      string   `json:"newName"`
}

// documentSymbol decodes a DocumentSymbol or a SymbolInformation /
// WorkspaceSymbol (whose location may lack a range).
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	Range          *lspRange        `json:"range"`
	SelectionRange *lspRange        `json:"selectionRange"`
	Children       []documentSymbol `json:"children"`
	ContainerName  string           `json:"containerName"`
	Location       *struct {
		URI   string    `json:"uri"`
		Range *lspRange `json:"range"`
	} `json:"location"`
}

type diagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Tags     []int           `json:"tags"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type documentDiagnosticParams struct {
	TextDocument     docID  `json:"textDocument"`
	Identifier       string `json:"identifier,omitempty"`
	PreviousResultID string `json:"previousResultId,omitempty"`
}

type documentDiagnosticReport struct {
	Kind     string       `json:"kind"` // "full" or "unchanged"
	ResultID string       `json:"resultId"`
	Items    []diagnostic `json:"items"`
}

type callHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	Tags           []int           `json:"tags,omitempty"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          lspRange        `json:"range"`
	SelectionRange lspRange        `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

type callHierarchyCall struct {
	From       *callHierarchyItem `json:"from"`
	To         *callHierarchyItem `json:"to"`
	FromRanges []lspRange         `json:"fromRanges"`
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

type workspaceEdit struct {
	Changes         map[string][]textEdit `json:"changes"`
	DocumentChanges []documentChange      `json:"documentChanges"`
}

// documentChange decodes a TextDocumentEdit or a create/rename/delete
// file operation.
type documentChange struct {
	Kind         string `json:"kind"`
	TextDocument *struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits   []textEdit `json:"edits"`
	URI     string     `json:"uri"`
	OldURI  string     `json:"oldUri"`
	NewURI  string     `json:"newUri"`
	Options *struct {
		Overwrite         bool `json:"overwrite"`
		IgnoreIfExists    bool `json:"ignoreIfExists"`
		IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
		Recursive         bool `json:"recursive"`
	} `json:"options"`
}

type registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions"`
}

type fileSystemWatcher struct {
	GlobPattern json.RawMessage `json:"globPattern"`
	Kind        *int            `json:"kind"`
}

type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind       string `json:"kind"`
		Title      string `json:"title"`
		Message    string `json:"message"`
		Percentage *int   `json:"percentage"`
	} `json:"value"`
}

// initializeResult is what the client reads of the server's answer.
type initializeResult struct {
	Capabilities serverCaps `json:"capabilities"`
	// OffsetEncoding is clangd's pre-3.17 answer to the same question as
	// positionEncoding.
	OffsetEncoding string `json:"offsetEncoding"`
	ServerInfo     *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

type serverCaps struct {
	PositionEncoding        string          `json:"positionEncoding"`
	OffsetEncoding          string          `json:"offsetEncoding"`
	TextDocumentSync        json.RawMessage `json:"textDocumentSync"`
	DefinitionProvider      json.RawMessage `json:"definitionProvider"`
	HoverProvider           json.RawMessage `json:"hoverProvider"`
	ReferencesProvider      json.RawMessage `json:"referencesProvider"`
	DocumentSymbolProvider  json.RawMessage `json:"documentSymbolProvider"`
	WorkspaceSymbolProvider json.RawMessage `json:"workspaceSymbolProvider"`
	CallHierarchyProvider   json.RawMessage `json:"callHierarchyProvider"`
	RenameProvider          json.RawMessage `json:"renameProvider"`
	DiagnosticProvider      json.RawMessage `json:"diagnosticProvider"`
}

// provided reports whether a capability is present and not false.
func provided(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "false" && string(raw) != "null"
}

// codeString renders a diagnostic code (number or string) as text.
func codeString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return string(raw)
}

// tokenKey turns a progress token (number or string) into a map key.
func tokenKey(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return "#" + n.String()
	}
	return strconv.Quote(string(raw))
}
