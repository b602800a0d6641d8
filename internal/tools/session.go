package tools

import "context"

// sessionKey carries the agent session a tool call runs for.
type sessionKey struct{}

// WithSession marks ctx as a tool call of agent session id, so that a
// front-end adapter serving several sessions (an ACP client's file
// system, shared by the sessions of one workspace) can name the right
// one to its editor.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionOf is the agent session ctx was marked with, or "".
func SessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}
