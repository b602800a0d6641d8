package fim

// Next edits: from the person's recent edits to a file and the file as
// it is now, the change that most likely comes next elsewhere in it (a
// renamed parameter's other uses, a changed signature's callers). The
// completion model is asked for one search/replace block: a chat model
// with a system prompt, a completions model with the same text as a
// plain prompt that already opens the block.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/agent"
)

// Edit is one recent edit: the lines from Line (zero-based, in the text
// after it) that were Old and are now New.
type Edit struct {
	Line     int
	Old, New string
}

// EditRequest is what a next edit is predicted from, bounded by the
// caller.
type EditRequest struct {
	// Path names the file (relative to the workspace).
	Path string
	// Edits are the recent edits, oldest first.
	Edits []Edit
	// Text is the file now (or the part of it around the edits).
	Text string
	// MaxTokens bounds the answer; 0 means DefaultEditTokens.
	MaxTokens int
}

// DefaultEditTokens bounds a next edit's answer when the request does
// not: a block of a few lines, twice.
const DefaultEditTokens = 256

// Suggestion is a predicted edit: the text Search, found in the file,
// becomes Replace. The zero Suggestion means none.
type Suggestion struct {
	Search, Replace string
}

// The search/replace block's markers.
const (
	markSearch  = "<<<<<<< SEARCH\n"
	markDivide  = "=======\n"
	markReplace = ">>>>>>> REPLACE"
)

// editSystem tells the model what to predict and how to answer.
const editSystem = `You predict the next edit a programmer makes to a file, from their recent edits.
You are shown the recent edits (oldest first, as diffs), then the file as it is now.
Answer with the one edit elsewhere in the file that the recent edits call for (a renamed name's other uses, a changed signature's calls, a repeated pattern's next instance), as one block:
<<<<<<< SEARCH
the exact lines of the file as they are now
=======
the same lines as they should become
>>>>>>> REPLACE
SEARCH holds whole lines, as few as make it unique. Do not repeat or undo the recent edits. Nothing else: no explanation, no code fence.
If no further edit follows from them, answer NONE.`

// editPrompt is the request's text for the model.
func editPrompt(r EditRequest) string {
	var b strings.Builder
	if r.Path != "" {
		fmt.Fprintf(&b, "File: %s\n\n", r.Path)
	}
	b.WriteString("Recent edits:\n")
	for _, e := range r.Edits {
		fmt.Fprintf(&b, "@@ line %d @@\n", e.Line+1)
		for _, l := range lines(e.Old) {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range lines(e.New) {
			b.WriteString("+" + l + "\n")
		}
	}
	b.WriteString("\nThe file now:\n")
	b.WriteString(r.Text)
	if !strings.HasSuffix(r.Text, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// lines splits text into its lines, without their ends.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// editor is a Filler that can also answer a whole prompt.
type editor interface {
	complete(ctx context.Context, system, user, primer string, maxTokens int) (string, error)
}

// NextEdit asks f's model for the edit that follows r.Edits. It returns
// the zero Suggestion when the model sees none, or answers with no block.
// Like Fill, it is asked once and ends with ctx.
func NextEdit(ctx context.Context, f Filler, r EditRequest) (Suggestion, error) {
	e, ok := f.(editor)
	if !ok {
		return Suggestion{}, errors.New("this completion model cannot suggest edits")
	}
	if len(r.Edits) == 0 {
		return Suggestion{}, nil
	}
	maxTokens := r.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultEditTokens
	}
	ans, err := e.complete(ctx, editSystem, editPrompt(r), markSearch, maxTokens)
	if err != nil {
		return Suggestion{}, err
	}
	return ParseEdit(ans), nil
}

// ParseEdit reads the first search/replace block of a model's answer
// (its opening marker may be missing: a completions model continues a
// prompt that has it). No block, an empty search or a block that
// changes nothing is the zero Suggestion.
func ParseEdit(ans string) Suggestion {
	ans = strings.ReplaceAll(ans, "\r\n", "\n")
	if i := strings.Index(ans, markSearch); i >= 0 {
		ans = ans[i+len(markSearch):]
	}
	search, rest, ok := strings.Cut(ans, "\n"+markDivide)
	if !ok {
		if rest, ok = strings.CutPrefix(ans, markDivide); !ok { // an empty SEARCH
			return Suggestion{}
		}
		search = ""
	}
	replace, _, _ := strings.Cut(rest, markReplace) // the end marker may be cut off
	search = strings.TrimPrefix(search, "\n")
	if strings.TrimSpace(search) == "" || strings.TrimSuffix(search, "\n") == strings.TrimSuffix(replace, "\n") {
		return Suggestion{}
	}
	// Whole lines: the search's last line end is not in it, the
	// replacement's is cut the same way.
	return Suggestion{Search: strings.TrimSuffix(search, "\n"), Replace: strings.TrimSuffix(replace, "\n")}
}

// complete implements editor: the system text, the prompt and the primer
// as one plain prompt on /v1/completions (llama.cpp serves it beside
// /infill), stopped at the block's end; the answer comes back with the
// primer in front.
func (f *httpFiller) complete(ctx context.Context, system, user, primer string, maxTokens int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.c.Policy.Timeout)
	defer cancel()
	body := map[string]any{"model": f.c.Model, "max_tokens": maxTokens, "stream": true, "temperature": 0,
		"prompt": system + "\n\n" + user + "\nThe next edit:\n" + primer, "stop": []string{markReplace}}
	ans, err := f.post(ctx, f.c.BaseURL+"/completions", body, f.target(APICompletions))
	return primer + ans, err
}

// complete implements editor with one chat request.
func (c chatFiller) complete(ctx context.Context, system, user, _ string, _ int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	resp, err := c.p.Complete(ctx, agent.Request{System: system, Messages: []agent.Message{{Role: agent.RoleUser, Content: user}}}, agent.Stream{})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	return unfence(resp.Text), nil
}
