package lsp

import "testing"

// The notification at a turn's end is the answer's first line of prose:
// never a heading's marker ("agentls: ## Done", issue 27), a fence or a
// rule; a list item's marker is dropped; headings alone give the first
// heading's text.
func TestAnswerLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"The file prints UNSAVED.\nDetails follow.", "The file prints UNSAVED."},
		{"## Done\n\na.txt greets agentls now.\n", "a.txt greets agentls now."},
		{"# Summary\n---\n- Renamed `x` to `count`.\n- Added a test.", "Renamed `x` to `count`."},
		{"```go\nfunc main() {}\n```\nThat is the program.", "That is the program."},
		{"> Quoted first.", "Quoted first."},
		{"#1 priority is the fix.", "#1 priority is the fix."},
		{"## Done ##\n", "Done"},
		{"", ""},
	} {
		if got := answerLine(c.in, 200); got != c.want {
			t.Errorf("answerLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
