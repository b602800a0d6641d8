package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/confine"
	"github.com/agentls/agentls/internal/tools/shell"
)

// confinement is what one bash call's programs run in: the sandbox (the
// session's, or one extended by the outside reads a person approved) and
// the network decisions made for it through the proxy.
type confinement struct {
	sb *sandbox.Sandbox
	// token is the command's proxy token ("" without a network).
	token string

	mu      sync.Mutex
	allowed map[string]bool // hosts the gate let through for this command
	denied  []string        // hosts a person refused: the turn ends
}

// confine sets up opts so the command's programs run confined, with the
// allow-listed environment, their own proxy token (hosts asked through
// call.Check) and TMPDIR at the session's folder.
func (t *BashTool) confine(ctx context.Context, call Call, command string, v shell.Verdict, dir string, opts *shell.Options) (*confinement, error) {
	c := &confinement{sb: t.env.Sandbox(), allowed: map[string]bool{}}
	if c.sb != nil && call.PersonApproved {
		// Reads outside the workspace were asked about before the call ran
		// (the gate blocks outside writes): the person approved exactly
		// these, so the sandbox lets exactly these through. A mode or a rule
		// that allowed the call widens nothing.
		var reads []string
		roots := confine.Roots(t.env.ws.Roots())
		for _, p := range v.Reads {
			if !confine.Inside(roots, dir, p) {
				if real, ok := confine.Resolve(dir, p); ok {
					p = real
				}
				if readable, _ := c.sb.Policy().Allows(p); !readable {
					reads = append(reads, filepath.Clean(p))
				}
			}
		}
		sb, err := c.sb.Extend(reads, nil)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		c.sb = sb
	}
	if c.sb != nil {
		opts.Start = c.sb.Start
	}
	token := ""
	if p := t.env.proxy; p != nil && c.sb.Confined() && c.sb.ProxyURL() != "" {
		var release func()
		token, release = p.Register(ctx, c.checker(call, command))
		opts.Done = release
	}
	c.token = token
	opts.Env = c.sb.Env(token)
	opts.Git = gitRunner(t.env.Sandbox())
	return c, nil
}

// gitRunner runs git for the judge the way commands run: in sb, with the
// allow-listed environment and shell.GitEnv; nil (git run directly) where
// there is no sandbox.
func gitRunner(sb *sandbox.Sandbox) shell.GitRunner {
	if sb == nil {
		return nil
	}
	return func(dir string, args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return runGit(ctx, sb, dir, args...)
	}
}

// checker asks the gate about each new host the command's programs
// connect to, as fetch is asked about its URL; a host allowed once stays
// allowed for the command, also after its call returned (a background
// job), when new hosts are refused.
func (c *confinement) checker(call Call, command string) sandbox.Checker {
	return func(ctx context.Context, host string, port int) error {
		key := net.JoinHostPort(host, strconv.Itoa(port))
		c.mu.Lock()
		ok := c.allowed[key]
		c.mu.Unlock()
		switch {
		case ok:
			return nil
		case ctx.Err() != nil:
			return fmt.Errorf("%s was not allowed while the command's turn ran; run it again in the foreground to be asked", host)
		case call.Check == nil:
			return fmt.Errorf("no permission gate to ask about %s", host)
		}
		url := "https://" + key + "/"
		if port == 80 {
			url = "http://" + host + "/"
		}
		d := call.Check(ctx, permission.Request{
			Tool: "bash", Capability: "net.fetch", Action: permission.ActionRead,
			Destinations: []string{url},
			Summary:      fmt.Sprintf("`%s` wants to connect to %s", abbreviateCommand(command), key),
		})
		if d.Kind == permission.Allow {
			c.mu.Lock()
			c.allowed[key] = true
			c.mu.Unlock()
			return nil
		}
		if d.StopTurn {
			c.mu.Lock()
			c.denied = append(c.denied, key)
			c.mu.Unlock()
		}
		reason := d.Reason
		if reason == "" {
			reason = "denied"
		}
		return errors.New("the connection to " + key + " was not allowed: " + reason)
	}
}

// result adds to a finished command's result what the sandbox refused,
// in words the model can act on, and ends the turn when a person refused
// a host.
func (c *confinement) result(r Result, output string, exit int) Result {
	if c == nil {
		return r
	}
	var notes []string
	if exit != 0 {
		notes = c.sb.Explain(output)
	}
	c.mu.Lock()
	denied := c.denied
	c.mu.Unlock()
	if len(denied) > 0 {
		notes = append(notes, "the person denied the connection to "+strings.Join(denied, ", ")+"; the turn ends here, do not retry")
		r.Stop, r.IsError = true, true
	}
	if len(notes) > 0 {
		r.Content += "\n\nagentls: " + strings.Join(notes, "\nagentls: ")
	}
	return r
}
