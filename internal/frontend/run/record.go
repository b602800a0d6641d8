package run

import (
	"context"
	"encoding/json"
	"os"

	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/app"
)

// writeReplay writes a stored session as a replay script file
// (--record), which `--model replay:FILE` plays back.
func writeReplay(ctx context.Context, env *app.Env, id, path string) error {
	recs, err := env.Journal(ctx, id)
	if err != nil {
		return err
	}
	script, err := replay.FromJournal(recs)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(script, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
