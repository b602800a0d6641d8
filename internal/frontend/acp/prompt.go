package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
)

// Prompt implements ACP's session/prompt: one turn (or a slash command),
// answered when it ends. Its updates stream as session/update
// notifications before the response. A second prompt while one is being
// answered is refused, not queued.
func (s *Server) Prompt(_ context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ss, err := s.lookup("session/prompt", p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if !ss.begin() {
		return sdk.PromptResponse{}, reqErr(codeInvalidRequest,
			"session/prompt: session %s is already answering a prompt: wait for its response, or send session/cancel", ss.id)
	}
	defer ss.end()
	if name, arg, ok := slashCommand(text); ok {
		return ss.runCommand(name, arg), nil
	}
	return ss.runTurn(text)
}

// Cancel implements ACP's session/cancel: the running turn stops, a
// pending permission request is withdrawn, and the prompt is answered
// with stopReason "cancelled".
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	ss := s.get(string(p.SessionId))
	if ss == nil {
		s.log.Warn("acp: session/cancel for a session that is not open", "session", p.SessionId)
		return nil
	}
	ss.mu.Lock()
	t := ss.turn
	if ss.busy {
		ss.cancelled = true
	}
	ss.mu.Unlock()
	if t != nil {
		t.Cancel()
	}
	return nil
}

// begin marks the session busy; false when it already is.
func (ss *session) begin() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.busy {
		return false
	}
	ss.busy, ss.cancelled = true, false
	ss.files.addSession(ss.id) // reads are asked in the name of the session answering a prompt
	return true
}

// end marks the session idle.
func (ss *session) end() {
	ss.mu.Lock()
	ss.busy, ss.turn = false, nil
	ss.mu.Unlock()
}

// runTurn runs one agent turn and maps how it ended to a stop reason; a
// turn that failed is a JSON-RPC error carrying the agent's message (what
// went wrong and what to fix).
func (ss *session) runTurn(text string) (sdk.PromptResponse, error) {
	ss.tr.startTurn()
	turn, err := ss.as.Start(ss.srv.base, text, ss.tr.event)
	if err != nil {
		if errors.Is(err, agent.ErrBusy) {
			return sdk.PromptResponse{}, reqErr(codeInvalidRequest, "session/prompt: %v", err)
		}
		return sdk.PromptResponse{}, reqErr(codeInvalidParams, "session/prompt: %v", err)
	}
	ss.mu.Lock()
	ss.turn = turn
	early := ss.cancelled // session/cancel came before the turn was known
	ss.mu.Unlock()
	if early {
		turn.Cancel()
	}
	res := turn.Wait()
	switch res.Reason {
	case agent.ReasonCancelled:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case agent.ReasonMaxSteps:
		if res.Err != nil {
			ss.send(sdk.UpdateAgentMessageText("\n\nagentls: " + res.Err.Error() + "\n"))
		}
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case agent.ReasonError:
		msg := "the turn failed"
		if res.Err != nil {
			msg = res.Err.Error()
		}
		return sdk.PromptResponse{}, reqErr(codeInternal, "session/prompt: %s", msg)
	}
	// completed, and denied: a person's "reject" ends the turn as asked.
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// promptText turns the prompt's content blocks into the text the model
// sees: text as it is, resource links as Markdown links to the file (the
// agent reads it with its tools), embedded text resources appended with
// their content (the editor's text of them). Images, audio and binary
// resources are refused: agentls's prompt capabilities do not offer them.
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var b, attached strings.Builder
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, "[@%s](%s)", c.ResourceLink.Name, uriPath(c.ResourceLink.Uri))
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			where := uriPath(r.Uri)
			fmt.Fprintf(&b, "[@%s](%s)", baseName(where), where)
			body := r.Text
			if !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
			fmt.Fprintf(&attached, "\n\n%s, as the user's editor has it:\n%s\n%s%s\n", where, fence(body), body, fence(body))
		case c.Resource != nil:
			return "", reqErr(codeInvalidParams, "session/prompt: prompt[%d] is a binary resource: agentls takes text, resource links and embedded text resources (promptCapabilities.embeddedContext)", i)
		case c.Image != nil, c.Audio != nil:
			return "", reqErr(codeInvalidParams, "session/prompt: prompt[%d] is an image or audio block: agentls takes text, resource links and embedded text resources (promptCapabilities has no image or audio)", i)
		default:
			return "", reqErr(codeInvalidParams, "session/prompt: prompt[%d] is an unknown content block", i)
		}
	}
	text := b.String() + attached.String()
	if strings.TrimSpace(text) == "" {
		return "", reqErr(codeInvalidParams, "session/prompt: the prompt is empty: send at least one text block saying what the agent should do")
	}
	return text, nil
}

// uriPath returns a file: URI's path, other URIs as they are.
func uriPath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return u.Path
	}
	return uri
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, "/\\"); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// fence is a Markdown code fence longer than any run of backticks in text.
func fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
