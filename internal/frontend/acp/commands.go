package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/permission"
)

// commandList is what available_commands_update offers: agentls's slash
// commands, run by agentls itself rather than sent to the model.
func commandList() []sdk.AvailableCommand {
	hint := func(h string) *sdk.AvailableCommandInput {
		return &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: h}}
	}
	return []sdk.AvailableCommand{
		{Name: "compact", Description: "Compact the conversation now: old tool results are cut and older turns summarised"},
		{Name: "revert", Description: "Undo the file changes of one of this session's turns (its last turn with changes by default)", Input: hint("turn id (optional)")},
		{Name: "mode", Description: "Show or switch the permission mode: chat, approve, smart or auto", Input: hint("chat | approve | smart | auto")},
		{Name: "model", Description: "Show the model and the ones offered, or switch the conversation to another (it goes on)", Input: hint("provider:model")},
		{Name: "checkpoints", Description: "List this session's checkpoints: one before every step that may change files, bash's included"},
		{Name: "restore", Description: "Put the files back to before a checkpoint's step (newer edits are kept and reported); with both, the conversation too; undo undoes the last restore",
			Input: hint("checkpoint id [files | conversation | both] | undo")},
	}
}

// slashCommand recognises a prompt that is one of agentls's commands:
// "/name" or "/name argument". Other prompts, "/unknown" included, go to
// the model.
func slashCommand(text string) (name, arg string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	name, arg, _ = strings.Cut(t[1:], " ")
	for _, c := range commandList() {
		if c.Name == name {
			return name, strings.TrimSpace(arg), true
		}
	}
	return "", "", false
}

// runCommand runs a slash command and reports what it did as the agent's
// message; the prompt then ends (end_turn).
func (ss *session) runCommand(name, arg string) sdk.PromptResponse {
	ctx := ss.srv.base
	var msg string
	switch name {
	case "compact":
		msg = ss.compact(ctx)
	case "revert":
		msg = ss.revert(ctx, arg)
	case "mode":
		msg = ss.modeCommand(arg)
	case "model":
		msg = ss.modelCommand(arg)
	case "checkpoints":
		msg = ss.checkpoints(ctx)
	case "restore":
		msg = ss.restore(ctx, arg)
	}
	ss.send(sdk.UpdateAgentMessageText(msg))
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
}

func (ss *session) compact(ctx context.Context) string {
	ss.tr.startTurn()
	if err := ss.as.Compact(ctx, ss.tr.event); err != nil {
		return "agentls: the conversation was not compacted: " + err.Error()
	}
	if ss.tr.takeCompacted() {
		return "agentls: the conversation is compacted."
	}
	return "agentls: the conversation fits its context window; nothing needed compacting."
}

func (ss *session) revert(ctx context.Context, turnID string) string {
	h, err := ss.env.History(ctx)
	if err != nil {
		return "agentls: nothing was reverted: " + err.Error()
	}
	// This session's turns only: other sessions on the workspace (another
	// ACP session, the editor's own chat) keep theirs.
	rep, err := h.RevertSessionTurn(ctx, ss.id, turnID)
	if err != nil {
		return "agentls: nothing was reverted: " + err.Error()
	}
	return "agentls: " + rep.Text(ss.env.Workspace().Rel)
}

// checkpoints lists the session's checkpoints, newest last.
func (ss *session) checkpoints(ctx context.Context) string {
	eng, err := ss.env.Checkpoints(ctx)
	if err != nil {
		return "agentls: no checkpoints: " + err.Error()
	}
	list, err := eng.List(ctx, ss.id)
	if err != nil {
		return "agentls: no checkpoints: " + err.Error()
	}
	if len(list) == 0 {
		return "agentls: this session has no checkpoints yet: one is taken before every step that may change files."
	}
	var b strings.Builder
	b.WriteString("agentls: checkpoints of this session (restore with /restore ID; /restore ID both also takes the conversation back):")
	for _, c := range list {
		fmt.Fprintf(&b, "\n- %d  %s  %s (%d path(s))", c.ID, c.Time.Format("15:04:05"), c.Title, c.Changed)
		for _, n := range c.Notes {
			b.WriteString("\n  note: " + n)
		}
	}
	return b.String()
}

// restore restores to a checkpoint ("ID [files|conversation|both]") or
// undoes the last restore ("undo").
func (ss *session) restore(ctx context.Context, arg string) string {
	words := strings.Fields(arg)
	var (
		rep app.CheckpointRestore
		err error
	)
	switch {
	case len(words) == 1 && words[0] == "undo":
		rep, err = ss.env.UndoRestore(ctx, ss.id, ss.as.Session)
	case len(words) == 1 || len(words) == 2:
		id, perr := strconv.ParseInt(words[0], 10, 64)
		what := "files"
		if len(words) == 2 {
			what = words[1]
		}
		if perr != nil || (what != "files" && what != "conversation" && what != "both") {
			return "agentls: usage: /restore ID [files | conversation | both], or /restore undo (the ids are in /checkpoints)"
		}
		rep, err = ss.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: ss.id, Checkpoint: id,
			Files: what != "conversation", Conversation: what != "files", Live: ss.as.Session})
	default:
		return "agentls: usage: /restore ID [files | conversation | both], or /restore undo (the ids are in /checkpoints)"
	}
	if rep.Conversation != nil {
		// The client's plan is the conversation's todo list, which went
		// back with it.
		ss.send(planUpdate(agent.Event{Type: agent.EventTodos, Todos: rep.Conversation.Todos}))
	}
	if err != nil {
		return "agentls: " + rep.ErrorText(ss.env.Workspace().Rel, err)
	}
	return "agentls: " + rep.Text(ss.env.Workspace().Rel)
}

// modeCommand shows the mode, or switches to the one named.
func (ss *session) modeCommand(arg string) string {
	if arg == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "agentls: the permission mode is %s. Modes:", ss.as.Gate.Mode())
		for _, m := range modeList() {
			fmt.Fprintf(&b, "\n- %s: %s", m.Id, *m.Description)
		}
		b.WriteString("\nSwitch with /mode NAME or the editor's mode menu.")
		return b.String()
	}
	if err := ss.setMode(arg); err != nil {
		return "agentls: the mode stays " + string(ss.as.Gate.Mode()) + ": " + err.Error()
	}
	return "agentls: the permission mode is now " + arg + "."
}

// modeList is agentls's permission modes as ACP session modes.
func modeList() []sdk.SessionMode {
	mode := func(m permission.Mode, name, desc string) sdk.SessionMode {
		return sdk.SessionMode{Id: sdk.SessionModeId(m), Name: name, Description: &desc}
	}
	return []sdk.SessionMode{
		mode(permission.ModeChat, "Chat", "answers from what it knows; no tool runs"),
		mode(permission.ModeApprove, "Approve", "asks before every tool call, reads included"),
		mode(permission.ModeSmart, "Smart", "reads the workspace without asking; asks before edits and commands"),
		mode(permission.ModeAuto, "Auto", "runs every call that is not blocked or denied, without asking"),
	}
}

// modeState is the session's modes with the current one.
func (ss *session) modeState() *sdk.SessionModeState {
	return &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(ss.as.Gate.Mode()), AvailableModes: modeList()}
}

// setMode switches the session's gate and tells the client, as a mode
// and as a config option.
func (ss *session) setMode(m string) error {
	if err := ss.as.Gate.SetMode(permission.Mode(m)); err != nil {
		return err
	}
	ss.srv.log.Info("acp: mode", "session", ss.id, "mode", m)
	ss.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m)}})
	ss.sendConfigOptions()
	return nil
}

// SetSessionMode implements ACP's session/set_mode. The new mode applies
// to the next tool call, also in a running turn.
func (s *Server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.lookup("session/set_mode", p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := ss.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, reqErr(codeInvalidParams, "session/set_mode: %v (the modes are in session/new's modes.availableModes)", err)
	}
	return sdk.SetSessionModeResponse{}, nil
}
