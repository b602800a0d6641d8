package wrap

import (
	"encoding/json"
	"fmt"
	"slices"
)

// capabilityRules merge one server capability with agentls's, by key of
// ServerCapabilities. A key only one side has is taken from it (so an
// agentls capability the server lacks, such as a future
// inlineCompletionProvider, is added by naming it in agentls's
// capabilities; its requests then need a route, ToAgentls or ToBoth); a
// key both have and no rule names is the server's, and so are its
// requests.
var capabilityRules = map[string]func(server, ours any) any{
	"executeCommandProvider": mergeCommands,
	"codeActionProvider":     mergeCodeActions,
	"textDocumentSync":       mergeSync,
	"workspace":              mergeWorkspace,
}

// MergeCapabilities merges agentls's capabilities into the server's
// initialize result and names both in serverInfo. The rest of the result
// (positionEncoding, …) is the server's.
func MergeCapabilities(result json.RawMessage, ours map[string]any, info map[string]any) (json.RawMessage, error) {
	var res map[string]any
	if err := json.Unmarshal(result, &res); err != nil || res == nil {
		return nil, fmt.Errorf("the server's initialize result is not an object: %s", clip(result))
	}
	caps, _ := res["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
	}
	for key, v := range ours {
		sv, has := caps[key]
		switch rule := capabilityRules[key]; {
		case !has || sv == nil || sv == false:
			caps[key] = v
		case rule != nil:
			caps[key] = rule(sv, v)
		}
	}
	res["capabilities"] = caps
	if si, ok := res["serverInfo"].(map[string]any); ok {
		info = withWrapped(info, si)
	}
	res["serverInfo"] = info
	return json.Marshal(res)
}

// withWrapped names the wrapped server in agentls's serverInfo:
// {"name": "agentls (gopls)", "version": …}.
func withWrapped(info, server map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range info {
		out[k] = v
	}
	if n, _ := server["name"].(string); n != "" {
		out["name"] = fmt.Sprintf("%v (%s)", info["name"], n)
	}
	return out
}

// mergeCommands: both sides' commands, the server's first.
func mergeCommands(server, ours any) any {
	s, _ := server.(map[string]any)
	o, _ := ours.(map[string]any)
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	var cmds []any
	for _, side := range []map[string]any{s, o} {
		list, _ := side["commands"].([]any)
		for _, c := range list {
			if !slices.Contains(cmds, c) {
				cmds = append(cmds, c)
			}
		}
	}
	out["commands"] = cmds
	return out
}

// mergeCodeActions: the server's options with agentls's kinds added; a
// side that names no kinds offers any, and then the merge names none
// either (a list would hide the other kinds from menus).
func mergeCodeActions(server, ours any) any {
	s, _ := server.(map[string]any)
	o, _ := ours.(map[string]any)
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	sk, sok := s["codeActionKinds"].([]any)
	ok, ook := o["codeActionKinds"].([]any)
	if !sok || !ook {
		delete(out, "codeActionKinds")
		return out
	}
	kinds := slices.Clone(sk)
	for _, k := range ok {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	out["codeActionKinds"] = kinds
	return out
}

// mergeSync: the server's, as an object, with what agentls's overlay
// needs: open and close, and changes (incremental when the server wants
// none); save as the server asks, else as agentls does.
func mergeSync(server, ours any) any {
	out := map[string]any{}
	switch s := server.(type) {
	case float64:
		out["openClose"] = s != 0
		out["change"] = s
	case map[string]any:
		for k, v := range s {
			out[k] = v
		}
	}
	out["openClose"] = true
	if c, _ := out["change"].(float64); c == 0 {
		out["change"] = 2
	}
	if _, ok := out["save"]; !ok {
		if o, _ := ours.(map[string]any); o != nil {
			out["save"] = o["save"]
		}
	}
	return out
}

// mergeWorkspace: the server's, with workspace folders supported and
// their changes announced (agentls follows the folders).
func mergeWorkspace(server, ours any) any {
	s, _ := server.(map[string]any)
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	wf := map[string]any{}
	if old, ok := out["workspaceFolders"].(map[string]any); ok {
		for k, v := range old {
			wf[k] = v
		}
	}
	wf["supported"] = true
	wf["changeNotifications"] = true
	out["workspaceFolders"] = wf
	if o, _ := ours.(map[string]any); o != nil {
		for k, v := range o {
			if _, has := out[k]; !has {
				out[k] = v
			}
		}
	}
	return out
}

// InitializeParams adjusts the editor's initialize for the server:
// position encodings other than UTF-16 are not offered (agentls applies
// the editor's changes to its own copy of each buffer in UTF-16, the
// encoding every server supports); initializationOptions lose their
// "agentls" key, which holds agentls's own settings; and, when the server
// is confined, processId is null (the sandbox refuses its signals to
// other processes, and a server that checks its client's process with one
// would take the refusal for the editor's exit). Everything else is sent
// as the editor wrote it.
func InitializeParams(params json.RawMessage, confined bool) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil || p == nil {
		return nil, fmt.Errorf("initialize params are not an object: %s", clip(params))
	}
	if confined {
		p["processId"] = json.RawMessage("null")
	}
	if raw, ok := p["initializationOptions"]; ok {
		var opts map[string]json.RawMessage
		if json.Unmarshal(raw, &opts) == nil && opts != nil {
			if _, has := opts["agentls"]; has {
				delete(opts, "agentls")
				if len(opts) == 0 {
					delete(p, "initializationOptions")
				} else {
					p["initializationOptions"] = mustJSON(opts)
				}
			}
		}
	}
	if raw, ok := p["capabilities"]; ok {
		var caps map[string]json.RawMessage
		if json.Unmarshal(raw, &caps) == nil && caps != nil {
			var general map[string]json.RawMessage
			if json.Unmarshal(caps["general"], &general) == nil && general != nil {
				if _, has := general["positionEncodings"]; has {
					general["positionEncodings"] = json.RawMessage(`["utf-16"]`)
					caps["general"] = mustJSON(general)
					p["capabilities"] = mustJSON(caps)
				}
			}
		}
	}
	return json.Marshal(p)
}

// AgentlsOptions is initializationOptions.agentls, agentls's own settings
// when it wraps a server (the rest is the server's); nil without one.
func AgentlsOptions(initOptions json.RawMessage) json.RawMessage {
	var opts map[string]json.RawMessage
	if json.Unmarshal(initOptions, &opts) != nil {
		return nil
	}
	return opts["agentls"]
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
