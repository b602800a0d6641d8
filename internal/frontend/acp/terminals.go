package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/tools"
)

// terminalCleanup bounds the kill, output and release requests made after
// a command's turn ended (their own context is then gone).
const terminalCleanup = 5 * time.Second

// clientTerminals runs the bash tool's foreground commands in the ACP
// client's terminals (terminal/create, wait_for_exit, output, kill,
// release) for a client that declares the terminal capability: the person
// watches the command live in the call, while the command the terminal
// runs is `agentls exec`, judged and confined as in agentls. It implements
// tools.Terminals.
type clientTerminals struct {
	conn  *sdk.AgentSideConnection
	log   *slog.Logger
	known func(session string) bool // the connection's sessions on these folders

	mu sync.Mutex
	// shown is the terminal each tool call (ACP id) ran in, for the call's
	// final update, whose content replaces what the call showed.
	shown map[sdk.ToolCallId]string
}

func newClientTerminals(conn *sdk.AgentSideConnection, known func(string) bool, log *slog.Logger) *clientTerminals {
	return &clientTerminals{conn: conn, log: log, known: known, shown: map[sdk.ToolCallId]string{}}
}

// RunInTerminal implements tools.Terminals. A call of no session of the
// client (a subagent's) and a client without terminal/create after all
// get tools.ErrNoTerminal: the command then runs in agentls, as safely.
// Any other refusal of terminal/create (a client's own policy: acpx asks
// its person) is the client saying no: the command does not run.
func (c *clientTerminals) RunInTerminal(ctx context.Context, tc tools.TerminalCommand) (tools.TerminalResult, error) {
	if tc.SessionID == "" || !c.known(tc.SessionID) {
		return tools.TerminalResult{}, tools.ErrNoTerminal
	}
	session := sdk.SessionId(tc.SessionID)
	env := make([]sdk.EnvVariable, 0, len(tc.Env))
	for _, kv := range tc.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, sdk.EnvVariable{Name: k, Value: v})
	}
	limit := tc.OutputLimit
	created, err := c.conn.CreateTerminal(ctx, sdk.CreateTerminalRequest{
		SessionId: session, Command: tc.Program, Args: tc.Args, Cwd: &tc.Dir, Env: env, OutputByteLimit: &limit,
	})
	var re *sdk.RequestError
	switch {
	case errors.As(err, &re) && re.Code == codeMethodNotFound:
		c.log.Warn("acp: the client has no terminal/create after all; the command runs in agentls", "session", tc.SessionID)
		return tools.TerminalResult{}, fmt.Errorf("%w: terminal/create: %v", tools.ErrNoTerminal, err)
	case err != nil:
		return tools.TerminalResult{}, &tools.TerminalRefusedError{Reason: requestErrorText(err)}
	}
	id := created.TerminalId
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminalCleanup)
	defer cancel()
	defer func() {
		if _, err := c.conn.ReleaseTerminal(cleanup, sdk.ReleaseTerminalRequest{SessionId: session, TerminalId: id}); err != nil {
			c.log.Debug("acp: terminal/release", "terminal", id, "error", err)
		}
	}()
	call := callID(tc.TurnID, tc.CallID)
	c.mu.Lock()
	c.shown[call] = id
	c.mu.Unlock()
	if err := c.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: session, Update: sdk.SessionUpdate{
		ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: call, Status: sdk.Ptr(sdk.ToolCallStatusInProgress), Content: []sdk.ToolCallContent{sdk.ToolTerminalRef(id)}},
	}}); err != nil {
		c.log.Debug("acp: session/update with the terminal not sent", "error", err)
	}

	var res tools.TerminalResult
	exited, waitErr := c.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: session, TerminalId: id})
	if waitErr != nil {
		// Cancelled, timed out, or the client failed: stop the command
		// before reading what it left.
		if _, err := c.conn.KillTerminal(cleanup, sdk.KillTerminalRequest{SessionId: session, TerminalId: id}); err != nil {
			c.log.Debug("acp: terminal/kill", "terminal", id, "error", err)
		}
	}
	out, err := c.conn.TerminalOutput(cleanup, sdk.TerminalOutputRequest{SessionId: session, TerminalId: id})
	if err != nil {
		if waitErr != nil {
			return res, fmt.Errorf("terminal/wait_for_exit: %w", waitErr)
		}
		return res, fmt.Errorf("terminal/output: %w", err)
	}
	res.Output, res.Truncated = out.Output, out.Truncated
	code, signal := exited.ExitCode, exited.Signal
	if out.ExitStatus != nil {
		code, signal = out.ExitStatus.ExitCode, out.ExitStatus.Signal
	}
	switch {
	case code != nil:
		res.ExitCode = *code
	case signal != nil:
		res.ExitCode, res.Signal = -1, *signal
	case waitErr == nil:
		res.ExitCode = -1 // the client said it exited, without a status
	}
	if waitErr != nil {
		return res, fmt.Errorf("terminal/wait_for_exit: %w", waitErr)
	}
	return res, nil
}

// take returns, once, the terminal tool call call ran in.
func (c *clientTerminals) take(call sdk.ToolCallId) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.shown[call]
	delete(c.shown, call)
	return id, ok
}

// requestErrorText is what a client's error says, its details included
// (acpx puts the reason there: "Permission denied for terminal/create").
func requestErrorText(err error) string {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	msg := re.Message
	var data struct {
		Details string `json:"details"`
	}
	if b, jerr := json.Marshal(re.Data); jerr == nil && json.Unmarshal(b, &data) == nil && data.Details != "" {
		msg += ": " + data.Details
	}
	return msg
}
