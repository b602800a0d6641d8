package fim

import (
	"context"
	"strings"

	"github.com/agentls/agentls/internal/agent"
)

// chatSystem tells a chat model what a gap is and how to answer.
const chatSystem = `You complete code at the cursor, as an editor's inline completion does.
The user message is one file with the marker <CURSOR> where the text is missing, after the declarations it uses from elsewhere when the language server knew them.
Reply with exactly the text to insert at <CURSOR>: no explanation, no code fence, no repetition of the text around it.
Insert what most likely comes next — often the rest of the line or block; at most a few lines.
If nothing should be inserted, reply with nothing.`

// cursorMark stands for the cursor in the chat prompt.
const cursorMark = "<CURSOR>"

// Chat fills in the middle with a chat model: the file around the cursor
// goes as one user message with a marker, the answer is the text to
// insert. Any provider agentls knows works (Anthropic's too); a model
// trained to fill in the middle on the completions API is faster.
func Chat(p agent.Provider) Filler { return chatFiller{p} }

type chatFiller struct{ p agent.Provider }

func (c chatFiller) Name() string { return c.p.Name() }

// Fill implements Filler.
func (c chatFiller) Fill(ctx context.Context, r Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var b strings.Builder
	if ctx := strings.TrimRight(r.Context, "\n"); ctx != "" {
		b.WriteString(contextHeading + "\n" + ctx + "\n\n")
	}
	if r.Path != "" {
		b.WriteString("File: " + r.Path + "\n\n")
	}
	b.WriteString(r.Prefix + cursorMark + r.Suffix)
	resp, err := c.p.Complete(ctx, agent.Request{System: chatSystem, Messages: []agent.Message{{Role: agent.RoleUser, Content: b.String()}}}, agent.Stream{})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	return clipAnswer(unfence(resp.Text)), nil
}

// unfence takes the code out of a fenced block, which chat models add
// although asked not to.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		return strings.TrimSuffix(t[i+1:], "\n")
	}
	return s
}
