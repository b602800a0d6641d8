package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/textclip"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
)

// progressCreateTimeout bounds how long a turn waits for the client to
// accept a progress token before it reports without one.
const progressCreateTimeout = 5 * time.Second

// turnReporter carries one turn's events to the editor, in order, on its
// own goroutine, so a slow client never stalls the agent: agentls/event
// and window/logMessage for every event, work-done progress begin/report/
// end when the client supports it, and window/showMessage at the end.
type turnReporter struct {
	s      *Server
	prompt string
	token  string

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []agent.Event
	closed bool
	turn   *agent.Turn
}

func (s *Server) newReporter(prompt string) *turnReporter {
	r := &turnReporter{s: s, prompt: prompt}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// emit queues an event; it never blocks on the client.
func (r *turnReporter) emit(e agent.Event) {
	r.mu.Lock()
	r.queue = append(r.queue, e)
	r.mu.Unlock()
	r.cond.Signal()
}

// start begins delivering events for a running turn.
func (r *turnReporter) start(t *agent.Turn) {
	r.turn = t
	r.token = "agentls/turn/" + t.ID
	go r.loop()
}

func (r *turnReporter) loop() {
	ctx := r.s.base
	progress := r.beginProgress(ctx)
	if progress {
		r.s.mu.Lock()
		r.s.turns[r.token] = r
		r.s.mu.Unlock()
		defer func() {
			r.s.mu.Lock()
			delete(r.s.turns, r.token)
			r.s.mu.Unlock()
		}()
	}
	var final agent.Event
	recent := "" // the answer's latest words, for progress
	for {
		r.mu.Lock()
		for len(r.queue) == 0 {
			r.cond.Wait()
		}
		e := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()

		if err := r.s.conn.Notify(ctx, "agentls/event", e); err != nil {
			r.s.log.Debug("agentls/event failed", "error", err)
		}
		switch e.Type {
		case agent.EventTextDelta, agent.EventThinkingDelta, agent.EventUsage:
			// Streamed pieces reach the transcript whole, with the step's
			// text event; the progress shows the latest words.
			if e.Type == agent.EventTextDelta && progress {
				recent = lastWords(recent+e.Text, 60)
				r.progress(ctx, protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: recent})
			}
		default:
			r.s.logMessage(ctx, 4, "agentls: "+e.String())
		}
		if e.Type == agent.EventText {
			recent = ""
		}
		if progress && e.Type == agent.EventToolCall {
			r.progress(ctx, protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: e.Title})
		}
		if progress && e.Type == agent.EventTodos {
			r.progress(ctx, protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: e.Message})
		}
		if e.ParentID != "" {
			continue // a subagent's events: its turn is not this one
		}
		if e.Type == agent.EventError {
			final = e
		}
		if e.Type == agent.EventTurnEnd {
			r.finish(ctx, progress, e, final)
			return
		}
	}
}

// lastWords keeps the end of s, at most n runes on one line, cut at a
// word.
func lastWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	tail := string(r[len(r)-n:])
	if i := strings.IndexByte(tail, ' '); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return "…" + tail
}

// beginProgress creates the turn's progress token and sends begin.
func (r *turnReporter) beginProgress(ctx context.Context) bool {
	r.s.mu.Lock()
	supported := r.s.caps.Window.WorkDoneProgress
	r.s.mu.Unlock()
	if !supported {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, progressCreateTimeout)
	defer cancel()
	if _, err := r.s.conn.Call(cctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: *protocol.NewProgressToken(r.token)}, nil); err != nil {
		r.s.log.Warn("client refused a progress token; reporting without progress", "error", err)
		return false
	}
	r.progress(ctx, protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: "agentls", Cancellable: true, Message: firstLine(r.prompt, 80)})
	return true
}

func (r *turnReporter) progress(ctx context.Context, v any) {
	if err := r.s.conn.Notify(ctx, "$/progress", &protocol.ProgressParams{Token: *protocol.NewProgressToken(r.token), Value: v}); err != nil {
		r.s.log.Debug("$/progress failed", "error", err)
	}
}

// finish ends progress and tells the person how the turn ended.
func (r *turnReporter) finish(ctx context.Context, progress bool, end, errEvent agent.Event) {
	res := r.turn.Wait()
	if progress {
		r.progress(ctx, protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: end.Reason})
	}
	switch res.Reason {
	case agent.ReasonCompleted:
		msg := answerLine(res.Text, 200)
		if msg == "" {
			msg = "done"
		}
		r.s.showMessage(ctx, 3, "agentls: "+msg)
	case agent.ReasonCancelled:
		r.s.showMessage(ctx, 3, "agentls: turn cancelled")
	case agent.ReasonDenied:
		r.s.showMessage(ctx, 2, "agentls: turn ended: permission denied")
	default:
		reason := res.Reason
		if errEvent.Message != "" {
			reason = errEvent.Message
		}
		r.s.showMessage(ctx, 1, "agentls: turn failed: "+reason)
	}
}

// progressCancel handles window/workDoneProgress/cancel for a turn.
func (s *Server) progressCancel(params json.RawMessage) error {
	var p protocol.WorkDoneProgressCancelParams
	if err := decode(params, &p); err != nil {
		return err
	}
	token := p.Token.String() // a numeric token is never one of ours: it finds no turn
	s.mu.Lock()
	r := s.turns[token]
	s.mu.Unlock()
	if r != nil {
		r.turn.Cancel()
	}
	return nil
}

func firstLine(s string, max int) string { return textclip.FirstLine(s, max) }

// answerLine is the line of an answer (Markdown) a notification shows:
// its first line of prose, without the Markdown that marks it (a list
// item's or a quote's marker), clipped to max bytes. Headings, code
// fences and rules are skipped ("## Done" is a title, not what the agent
// says); an answer of headings only gives its first heading's text.
func answerLine(s string, max int) string {
	heading := ""
	fenced := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fenced = !fenced
			continue
		case fenced || line == "":
			continue
		case isHeading(line):
			if t := strings.TrimSpace(strings.TrimRight(strings.TrimLeft(line, "#"), "#")); heading == "" && t != "" {
				heading = t
			}
			continue
		case strings.Trim(line, "-*_ ") == "":
			continue // a rule
		}
		for _, marker := range []string{"- ", "* ", "+ ", "> "} {
			line = strings.TrimSpace(strings.TrimPrefix(line, marker))
		}
		if line != "" {
			return firstLine(line, max)
		}
	}
	return firstLine(heading, max)
}

// isHeading reports whether line is a Markdown ATX heading: one to six #
// then a space or nothing.
func isHeading(line string) bool {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t')
}
