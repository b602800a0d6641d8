package acp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/textclip"
)

// asker puts the gate's questions to the person as
// session/request_permission. The options are the gate's choices:
// allow_once, allow_always for a grant (this session, or remembered for
// the workspace — only when the gate offers it, its scope in its name)
// and reject_once. A rejection ends the turn; a cancelled prompt
// withdraws the request (the gate cancels its context).
type asker struct {
	ss  *session
	ids atomic.Uint64
}

// Option ids of a permission request; each maps to one gate answer.
const (
	optAllow        = "allow"
	optAllowSession = "allow_session"
	optAllowAlways  = "allow_always"
	optReject       = "reject"
)

// Ask implements permission.Asker.
func (a *asker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	req := sdk.RequestPermissionRequest{SessionId: sdk.SessionId(a.ss.id), ToolCall: a.toolCall(q), Options: options(q)}
	resp, err := a.ss.srv.conn.RequestPermission(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("session/request_permission: %w", err)
	}
	switch {
	case resp.Outcome.Cancelled != nil:
		return "", nil // dismissed: a deny
	case resp.Outcome.Selected != nil:
		return answerOf(string(resp.Outcome.Selected.OptionId)), nil
	}
	return "", fmt.Errorf("session/request_permission: the client answered neither selected nor cancelled")
}

// toolCall is the call the question is about: the one running now, with
// a short title of what it does ("Run `go test ./...`", "Edit greet.py"),
// its kind and raw input (clients sort and auto-approve requests by kind:
// acpx lets reads through in its approve mode), the inspectors' warnings
// and what was not offered as its text, and the change's diff.
func (a *asker) toolCall(q permission.Question) sdk.ToolCallUpdate {
	id := a.ss.tr.currentCall()
	if id == "" {
		id = fmt.Sprintf("ask-%d", a.ids.Add(1))
	}
	kind := a.ss.kindOf(q.Request.Tool)
	if q.Request.Command == "" && len(q.Request.Destinations) > 0 && kind == sdk.ToolKindExecute {
		// A host a running command connects to: the ask is about the fetch.
		kind = sdk.ToolKindFetch
	}
	title := requestTitle(q.Request, kind, a.ss.env.Workspace().Rel)
	_, rest, _ := strings.Cut(q.Message, "\n")
	status := sdk.ToolCallStatusPending
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title, Kind: &kind, Status: &status}
	if len(q.Request.Input) > 0 {
		tc.RawInput = rawJSON(q.Request.Input)
	}
	if hs := requestHunks(q.Request); len(hs) > 0 {
		tc.Content, tc.Locations = a.ss.hunkContent(hs)
	}
	if c := q.Request.Command; c != "" && title != "Run `"+c+"`" {
		// The title shows the first line, clipped: the whole command is
		// what the person allows.
		tc.Content = append(tc.Content, sdk.ToolContent(sdk.TextBlock("```sh\n"+c+"\n```")))
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		tc.Content = append(tc.Content, sdk.ToolContent(sdk.TextBlock(rest)))
	}
	if tc.Locations == nil {
		for _, p := range q.Request.Paths {
			tc.Locations = append(tc.Locations, sdk.ToolCallLocation{Path: p})
		}
	}
	return tc
}

// requestTitle is a permission request's title: what the call does, in a
// few words, with paths relative to the workspace.
func requestTitle(r permission.Request, kind sdk.ToolKind, rel func(string) string) string {
	what := ""
	switch {
	case len(r.Paths) == 1:
		what = rel(r.Paths[0])
	case len(r.Paths) > 1:
		what = fmt.Sprintf("%s and %d more", rel(r.Paths[0]), len(r.Paths)-1)
	}
	verb := ""
	switch {
	case r.Command != "":
		return "Run `" + textclip.FirstLine(r.Command, 80) + "`"
	case kind == sdk.ToolKindFetch && len(r.Destinations) > 0:
		return "Connect to " + textclip.Prefix(r.Destinations[0], 80)
	case kind == sdk.ToolKindEdit:
		verb = "Edit"
	case kind == sdk.ToolKindDelete:
		verb = "Delete"
	case kind == sdk.ToolKindMove:
		verb = "Move"
	case kind == sdk.ToolKindRead:
		verb = "Read"
	case kind == sdk.ToolKindSearch:
		verb = "Search"
	default:
		verb = "Use " + r.Tool
		if what != "" {
			verb += " on"
		}
	}
	if what == "" {
		return verb
	}
	return verb + " " + what
}

// options are the question's choices as ACP permission options, in the
// gate's order.
func options(q permission.Question) []sdk.PermissionOption {
	var out []sdk.PermissionOption
	for _, c := range q.Choices {
		switch c.Answer {
		case permission.AnswerAllow:
			out = append(out, sdk.PermissionOption{OptionId: optAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce})
		case permission.AnswerAllowSession:
			out = append(out, sdk.PermissionOption{OptionId: optAllowSession, Name: c.Title, Kind: sdk.PermissionOptionKindAllowAlways})
		case permission.AnswerAllowAlways:
			// Remembered for this workspace (the request's text says so).
			name := "Always allow"
			if c.Scope != "" {
				name = "Always allow " + c.Scope
			}
			out = append(out, sdk.PermissionOption{OptionId: optAllowAlways, Name: name, Kind: sdk.PermissionOptionKindAllowAlways})
		case permission.AnswerDeny:
			out = append(out, sdk.PermissionOption{OptionId: optReject, Name: "Deny", Kind: sdk.PermissionOptionKindRejectOnce})
		}
	}
	return out
}

// answerOf maps a selected option back to the gate's answer; an id that
// was not offered is "", which the gate denies.
func answerOf(optionID string) permission.Answer {
	switch optionID {
	case optAllow:
		return permission.AnswerAllow
	case optAllowSession:
		return permission.AnswerAllowSession
	case optAllowAlways:
		return permission.AnswerAllowAlways
	case optReject:
		return permission.AnswerDeny
	}
	return ""
}
