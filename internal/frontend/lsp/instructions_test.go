package lsp_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
)

// TestInstructionsOfThePersonsFolder: asked from a file in a subfolder,
// the AGENTS.md files from the root down to that folder count, and the
// editor is told which (an instructions event); asked from another folder,
// the list changes with it.
func TestInstructionsOfThePersonsFolder(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"text":"one"},{"text":"two"}]}`)
	ed, root := setup(t, map[string]string{
		"AGENTS.md":     "Use tabs.\n",
		"sub/AGENTS.md": "In sub, write tests first.\n",
		"sub/x.go":      "package sub\n",
		"other/y.go":    "package other\n",
	}, prov, nil)
	files := func(prompt, file string) [][]string {
		t.Helper()
		res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: prompt, URI: "file://" + filepath.Join(root, file)})
		if err != nil {
			t.Fatal(err)
		}
		evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]string
		for _, e := range evs {
			if e.Type == agent.EventInstructions {
				out = append(out, e.Files)
			}
		}
		return out
	}
	if got := files("here?", "sub/x.go"); len(got) != 1 || !slices.Equal(got[0], []string{"AGENTS.md", "sub/AGENTS.md"}) {
		t.Errorf("instructions events from sub/x.go: %v, want one naming AGENTS.md and sub/AGENTS.md", got)
	}
	if got := files("and there?", "other/y.go"); len(got) != 1 || !slices.Equal(got[0], []string{"AGENTS.md"}) {
		t.Errorf("instructions events from other/y.go: %v, want one naming AGENTS.md alone", got)
	}
}
