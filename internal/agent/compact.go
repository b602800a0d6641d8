package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/textclip"

	"github.com/agentls/agentls/internal/tools"
)

// Context management: before a request would pass compactAt of the
// model's window, the session makes room — first by cutting large old
// tool results, then by having the model summarise the older conversation
// — and a provider's "too long" answer triggers the same once.

const (
	// compactAt is the share of the window a request may fill.
	compactAt = 0.85
	// keepShare is the share of the window the kept, latest messages may
	// fill after a compaction.
	keepShare = 0.35
	// elideOver is the size above which an old tool result is cut.
	elideOver = 2048
	// keepRecent messages at the end are never elided.
	keepRecent = 6
	// elideTo is the share of the window elision aims for, well under
	// compactAt, so it does not have to run again at the next step.
	elideTo = 0.6
	// fallbackWindow is assumed for a model whose window nobody knows.
	fallbackWindow = 32768
	// summaryReserve is kept free for the summary the model writes.
	summaryReserve = 4096
)

// summaryPrefix starts the message that stands for a summarised part.
const summaryPrefix = "[Summary of the earlier conversation, written when it was compacted]\n"

// summarySystem asks the model for the summary.
const summarySystem = `You compact a coding session so it can go on within a limited context.
Write a summary the same agent will continue from. Keep, concisely:
- the user's goals and requests (quote short ones);
- decisions made and why;
- files read or changed, with what matters in them (names, values, errors);
- facts learned that later steps need;
- open todos and the next steps.
Write plain text. Do not call tools.`

func summaryMessage(s string) Message {
	return Message{Role: RoleUser, Content: summaryPrefix + s}
}

// estimate is a rough token count of a request: bytes / 4, plus a little
// per message. The session calibrates it against the provider's reported
// usage.
func estimate(req Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 16
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Input) + 16
		}
		for _, t := range m.Thinking {
			n += len(t.Text)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n/4 + 1
}

// window is the context window the session works with.
func (s *Session) window() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.learned > 0:
		return s.learned
	case s.cfg.ContextWindow > 0:
		return s.cfg.ContextWindow
	}
	return fallbackWindow
}

// predicted is the calibrated token count of req.
func (s *Session) predicted(req Request) int {
	s.mu.Lock()
	f := s.calib
	s.mu.Unlock()
	if f <= 0 {
		f = 1
	}
	return int(float64(estimate(req)) * f)
}

// calibrate learns the ratio of the provider's counted prompt tokens to
// the estimate.
func (s *Session) calibrate(req Request, u Usage) {
	if u.Input <= 0 {
		return
	}
	f := float64(u.Input) / float64(estimate(req))
	f = min(max(f, 0.5), 4)
	s.mu.Lock()
	s.calib = f
	s.mu.Unlock()
}

// CompactionStats is what a compaction did, for the compaction event.
type CompactionStats struct {
	Elided     int `json:"elided"`     // tool results cut
	Summarized int `json:"summarized"` // messages replaced by the summary
	Kept       int `json:"kept"`       // messages kept as they were
	Before     int `json:"tokens_before"`
	After      int `json:"tokens_after"`
}

// ensureRoom compacts when req would pass compactAt of the window (or
// always, with force). It returns the request to send.
func (s *Session) ensureRoom(ctx context.Context, req Request, force bool, send func(Event)) (Request, error) {
	limit := int(float64(s.window()) * compactAt)
	before := s.predicted(req)
	if !force && before <= limit {
		return req, nil
	}
	st := CompactionStats{Before: before}
	st.Elided = s.elide(int(float64(s.window())*elideTo), req)
	req.Messages = s.snapshot()
	if force || s.predicted(req) > limit {
		n, err := s.summarize(ctx, req)
		if err != nil {
			return req, fmt.Errorf("compact the conversation: %w", err)
		}
		st.Summarized = n
	}
	req.Messages = s.snapshot()
	st.Kept = len(req.Messages)
	if st.Summarized > 0 {
		st.Kept--
	}
	st.After = s.predicted(req)
	b, _ := json.Marshal(st)
	send(Event{Type: EventCompaction, Message: fmt.Sprintf("compacted the conversation: %d tool results cut, %d messages summarised, %d kept (about %d → %d tokens)",
		st.Elided, st.Summarized, st.Kept, st.Before, st.After), Input: b})
	return req, nil
}

// elide cuts large tool results outside the latest messages until the
// request is under target, oldest first. The journal keeps their full
// text.
func (s *Session) elide(target int, req Request) int {
	n := 0
	for {
		s.mu.Lock()
		idx := -1
		for i := 0; i < len(s.history)-keepRecent; i++ {
			m := s.history[i]
			if m.Role == RoleTool && len(m.Content) > elideOver && !strings.HasPrefix(m.Content, elidedPrefix) {
				idx = i
				break
			}
		}
		if idx < 0 {
			s.mu.Unlock()
			return n
		}
		m := s.history[idx]
		cut := elidedText(m)
		s.history[idx].Content = cut
		s.mu.Unlock()
		s.journal(RecordElision, elisionRecord{Index: idx, Content: cut})
		n++
		req.Messages = s.snapshot()
		if s.predicted(req) <= target {
			return n
		}
	}
}

const elidedPrefix = "[Output elided to save context: "

// elidedText keeps the head of a long tool result and says what was cut.
func elidedText(m Message) string {
	head := m.Content
	if len(head) > 512 {
		head = head[:512]
		for len(head) > 0 && head[len(head)-1]&0xC0 == 0x80 {
			head = head[:len(head)-1] // no cut rune
		}
	}
	return fmt.Sprintf("%s%d bytes of %s output; run the tool again if you need it]\n%s…", elidedPrefix, len(m.Content), m.Name, head)
}

// summarize replaces the older part of the history with a model-written
// summary and returns how many messages it replaced. The cut never falls
// between a tool call and its results, and the latest messages stay.
func (s *Session) summarize(ctx context.Context, req Request) (int, error) {
	hist := s.snapshot()
	k := s.cutPoint(hist, req)
	if k <= 0 {
		return 0, nil
	}
	prompt := transcript(hist[:k], int(float64(s.window())*0.6)*4)
	resp, err := s.cfg.Provider.Complete(ctx, Request{System: summarySystem, Messages: []Message{{Role: RoleUser, Content: prompt}}, Purpose: PurposeCompaction}, Stream{})
	if err != nil {
		return 0, fmt.Errorf("model %s: %w", s.cfg.Provider.Name(), err)
	}
	summary := strings.TrimSpace(resp.Text)
	if summary == "" {
		return 0, fmt.Errorf("model %s wrote an empty summary", s.cfg.Provider.Name())
	}
	if todos := s.Todos(); len(todos) > 0 {
		// The plan outlives the conversation that made it.
		summary += "\n\nYour todo list (keep it current with the todos tool):\n" + tools.FormatTodos(todos)
	}
	// The summary's call is the running turn's (none when compacting
	// between turns) and the session's.
	u := s.priced(resp.Usage)
	s.addUsage(u)
	s.mu.Lock()
	if t := s.current; t != nil {
		t.addUsage(u)
	}
	if len(s.history) < k { // cannot happen while the turn runs; be safe
		s.mu.Unlock()
		return 0, nil
	}
	s.history = append([]Message{summaryMessage(summary)}, s.history[k:]...)
	s.mu.Unlock()
	s.journal(RecordCompaction, compactionRecord{Replaced: k, Summary: summary})
	return k, nil
}

// cutPoint picks how many leading messages to summarise: as few as leave
// the rest within keepShare of the window, cut where the kept part starts
// with a user or assistant message (a tool result must follow its call).
// When even the last such part is over the budget, it is kept anyway. 0
// means there is nothing to summarise.
func (s *Session) cutPoint(hist []Message, req Request) int {
	budget := int(float64(s.window()) * keepShare)
	keep := Request{System: req.System, Tools: req.Tools}
	best := 0
	for i := len(hist) - 1; i >= 1; i-- {
		if hist[i].Role == RoleTool {
			continue
		}
		keep.Messages = hist[i:]
		if s.predicted(keep) > budget {
			if best == 0 {
				best = i
			}
			break
		}
		best = i
	}
	return best
}

// transcript renders messages as text for the summary, within limit bytes:
// long tool results lose their middle first.
func transcript(msgs []Message, limit int) string {
	var b strings.Builder
	b.WriteString("Summarise this conversation between a user and a coding agent:\n\n")
	per := limit / (len(msgs) + 1)
	per = min(max(per, 400), 8000)
	for _, m := range msgs {
		text := m.Content
		if len(text) > per {
			text = text[:per/2] + "\n[…]\n" + text[len(text)-per/2:]
		}
		switch m.Role {
		case RoleUser:
			fmt.Fprintf(&b, "USER: %s\n\n", text)
		case RoleAssistant:
			fmt.Fprintf(&b, "AGENT: %s\n", text)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "AGENT CALLS %s %s\n", c.Name, clipString(string(c.Input), 400))
			}
			b.WriteString("\n")
		case RoleTool:
			fmt.Fprintf(&b, "RESULT OF %s: %s\n\n", m.Name, text)
		}
		if b.Len() > limit {
			break
		}
	}
	return b.String()
}

func clipString(s string, n int) string { return textclip.Bytes(s, n, "…") }
