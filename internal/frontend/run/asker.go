package run

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

// terminalAsker asks on the terminal.
type terminalAsker struct {
	in  *bufio.Reader
	out io.Writer
}

// Ask implements permission.Asker: the choices are numbered; a number or
// "y" (the first choice, Allow) answers; anything else denies.
func (a *terminalAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	fmt.Fprintln(a.out, q.Message)
	if q.Request.Diff != "" {
		fmt.Fprintln(a.out, q.Request.Diff)
	}
	for i, c := range q.Choices {
		fmt.Fprintf(a.out, "  %d) %s\n", i+1, c.Title)
	}
	fmt.Fprint(a.out, "Answer [1-", len(q.Choices), ", y = Allow, anything else = Deny]: ")
	line := make(chan string, 1)
	go func() {
		s, _ := a.in.ReadString('\n')
		line <- s
	}()
	var ans string
	select {
	case ans = <-line:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	ans = strings.ToLower(strings.TrimSpace(ans))
	if ans == "y" || ans == "yes" {
		return permission.AnswerAllow, nil
	}
	if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(q.Choices) {
		return q.Choices[n-1].Answer, nil
	}
	return permission.AnswerDeny, nil
}
