//go:build unix

package nvim_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/fim/fimtest"
)

// TestNvimInlineCompletion: Neovim gets agentls's inline completion from
// a fill-in-the-middle model — a request of its own on every version and,
// on 0.12, the native ghost text of vim.lsp.inline_completion, accepted
// into the buffer, and after a parameter's rename the next edit (its
// other use) shown there and accepted in its place.
func TestNvimInlineCompletion(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		const calc = "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\t\n}\n"
		srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
			if strings.HasSuffix(r.Prompt, "func Add(a, b int) int {\n\t") {
				return fimtest.Reply{Parts: []string{"return", " a + b"}}
			}
			if strings.Contains(r.Prompt, "Recent edits:") { // a next edit
				if strings.Contains(r.Prompt, "+func Add(x, b int) int {\n") {
					return fimtest.Reply{Parts: []string{"\treturn a + b\n=======\n\treturn x + b\n"}}
				}
				return fimtest.Reply{Parts: []string{"NONE"}}
			}
			if strings.HasSuffix(r.Prompt, "func Add(x") {
				return fimtest.Reply{} // nothing at the cursor after the rename
			}
			return fimtest.Reply{Parts: []string{"WRONG PLACE"}}
		})
		defer srv.Close()
		r := newRun(t, map[string]string{"calc.go": calc})
		r.env["AGENTLS_E2E_FILE"] = "calc.go"
		r.env["AGENTLS_E2E_FIM_URL"] = srv.URL
		r.nvim("inline_completion.lua")
		var rec struct {
			InlineCapability bool `json:"inline_capability"`
			Request          struct {
				Error  string `json:"error"`
				Result struct {
					Items []struct {
						InsertText string `json:"insertText"`
					} `json:"items"`
				} `json:"result"`
			} `json:"request"`
			Native          bool   `json:"native"`
			Ghost           string `json:"ghost"`
			GhostRow        int    `json:"ghost_row"`
			Accepted        bool   `json:"accepted"`
			LineAfterAccept string `json:"line_after_accept"`
			NextGhost       string `json:"next_ghost"`
			NextRow         int    `json:"next_row"`
			NextCol         int    `json:"next_col"`
			NextAccepted    bool   `json:"next_accepted"`
			LineAfterNext   string `json:"line_after_next"`
		}
		data, err := os.ReadFile(r.path("result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if !rec.InlineCapability {
			t.Errorf("inlineCompletionProvider not declared")
		}
		if items := rec.Request.Result.Items; rec.Request.Error != "" || len(items) != 1 || items[0].InsertText != "return a + b" {
			t.Errorf("inlineCompletion = %+v, want one item: return a + b", rec.Request)
		}
		if wantNative := nvimOf(t).minor >= 12; rec.Native != wantNative {
			t.Fatalf("vim.lsp.inline_completion present = %v on %s", rec.Native, nvimOf(t).label)
		}
		if !rec.Native {
			return
		}
		if rec.Ghost != "return a + b" || rec.GhostRow != 4 {
			t.Errorf("ghost text %q on row %d, want return a + b on row 4", rec.Ghost, rec.GhostRow)
		}
		if !rec.Accepted || rec.LineAfterAccept != "\treturn a + b" {
			t.Errorf("accepted %v, line now %q; want \\treturn a + b", rec.Accepted, rec.LineAfterAccept)
		}
		if rec.NextGhost != "x" || rec.NextRow != 4 || rec.NextCol != 8 {
			t.Errorf("next edit shown as %q at %d:%d, want x over the a of return a + b (4:8)", rec.NextGhost, rec.NextRow, rec.NextCol)
		}
		if !rec.NextAccepted || rec.LineAfterNext != "\treturn x + b" {
			t.Errorf("next edit accepted %v, line now %q; want \\treturn x + b", rec.NextAccepted, rec.LineAfterNext)
		}
	})
}
