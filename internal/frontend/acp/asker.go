package acp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/permission"
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
// the question's sentence as its title, the inspectors' warnings and
// what was not offered as its text, and the change's diff.
func (a *asker) toolCall(q permission.Question) sdk.ToolCallUpdate {
	id := a.ss.tr.currentCall()
	if id == "" {
		id = fmt.Sprintf("ask-%d", a.ids.Add(1))
	}
	title, rest, _ := strings.Cut(q.Message, "\n")
	status := sdk.ToolCallStatusPending
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title, Status: &status}
	if hs := requestHunks(q.Request); len(hs) > 0 {
		tc.Content, tc.Locations = a.ss.hunkContent(hs)
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

// options are the question's choices as ACP permission options, in the
// gate's order.
func options(q permission.Question) []sdk.PermissionOption {
	var out []sdk.PermissionOption
	for _, c := range q.Choices {
		switch c.Answer {
		case permission.AnswerAllow:
			out = append(out, sdk.PermissionOption{OptionId: optAllow, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce})
		case permission.AnswerAllowSession:
			out = append(out, sdk.PermissionOption{OptionId: optAllowSession, Name: c.Title, Kind: sdk.PermissionOptionKindAllowAlways})
		case permission.AnswerAllowAlways:
			name := "Always allow in this workspace"
			if c.Scope != "" {
				name = "Always allow " + c.Scope + " in this workspace"
			}
			out = append(out, sdk.PermissionOption{OptionId: optAllowAlways, Name: name, Kind: sdk.PermissionOptionKindAllowAlways})
		case permission.AnswerDeny:
			out = append(out, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
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
