package skills_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/skills"
)

// TestParse: the headers Claude Code and Codex write are read, in their
// YAML forms; a broken one is an error saying what to fix, never a
// skill with a made-up name.
func TestParse(t *testing.T) {
	long := strings.Repeat("é", skills.MaxDescription+10)
	tests := []struct {
		name, text string
		want       skills.Header
		body       string
		err        string // part of the error; "" means none
	}{
		{name: "good",
			text: "---\nname: pdf-forms\ndescription: Fill in PDF forms. Use when the person mentions a form.\n---\n\n# PDF forms\n\nRun scripts/fill.py.\n",
			want: skills.Header{Name: "pdf-forms", Description: "Fill in PDF forms. Use when the person mentions a form."},
			body: "# PDF forms\n\nRun scripts/fill.py."},
		{name: "CRLF",
			text: "---\r\nname: crlf\r\ndescription: Windows line ends\r\n---\r\nline one\r\nline two\r\n",
			want: skills.Header{Name: "crlf", Description: "Windows line ends"}, body: "line one\nline two"},
		{name: "byte-order mark",
			text: "\ufeff---\nname: bom\ndescription: starts with a BOM\n---\nbody",
			want: skills.Header{Name: "bom", Description: "starts with a BOM"}, body: "body"},
		{name: "single-quoted, a doubled quote read as one",
			text: "---\nname: 'it''s-fine'\ndescription: \"Says \\\"hi\\\": greets\" # a comment\nlicense: MIT\nallowed-tools: Bash(rm:*)\nmetadata:\n  author: someone\n  version: 2\n---\nbody",
			err:  `name "it's-fine": use only lowercase letters`},
		{name: "double-quoted with escapes",
			text: "---\nname: \"greet\"\ndescription: \"Says \\\"hi\\\": greets\" # a comment\nallowed-tools: Bash(rm:*)\nmetadata:\n  author: someone\n---\nbody",
			want: skills.Header{Name: "greet", Description: `Says "hi": greets`}, body: "body"},
		{name: "folded block and comment",
			text: "---\n# header comment\nname: fold # the name\ndescription: >\n  Folds these\n  lines into one.\n\n---\nbody",
			want: skills.Header{Name: "fold", Description: "Folds these lines into one."}, body: "body"},
		{name: "literal block becomes one line",
			text: "---\nname: lit\ndescription: |-\n    first line\n    second line\n---\n",
			want: skills.Header{Name: "lit", Description: "first line second line"}, body: ""},
		{name: "plain value continued on indented lines",
			text: "---\nname: cont\ndescription: Use for C# code\n  and issue numbers like x#1.\n---\nb",
			want: skills.Header{Name: "cont", Description: "Use for C# code and issue numbers like x#1."}, body: "b"},
		{name: "description over the limit is cut",
			text: "---\nname: long\ndescription: " + long + "\n---\nb",
			want: skills.Header{Name: "long", Description: strings.Repeat("é", skills.MaxDescription-1) + "…", Cut: true}, body: "b"},
		{name: "no front matter", text: "# Just markdown\n\nname: x\n", err: "no header"},
		{name: "empty file", text: "", err: "no header"},
		{name: "header not closed", text: "---\nname: open\ndescription: never closed\n", err: "not closed"},
		{name: "missing name", text: "---\ndescription: nameless\n---\nb", err: "no name"},
		{name: "empty name", text: "---\nname:\ndescription: d\n---\nb", err: "no name"},
		{name: "missing description", text: "---\nname: mute\n---\nb", err: "no description"},
		{name: "upper-case name", text: "---\nname: PDF-Forms\ndescription: d\n---\n", err: `name "PDF-Forms": use only lowercase letters, digits and hyphens`},
		{name: "name with a space", text: "---\nname: pdf forms\ndescription: d\n---\n", err: "use only lowercase"},
		{name: "name with an underscore", text: "---\nname: pdf_forms\ndescription: d\n---\n", err: "use only lowercase"},
		{name: "name too long", text: "---\nname: " + strings.Repeat("a", skills.MaxName+1) + "\ndescription: d\n---\n", err: "65 bytes long: use at most 64"},
		{name: "name at the limit", text: "---\nname: " + strings.Repeat("a", skills.MaxName) + "\ndescription: d\n---\n",
			want: skills.Header{Name: strings.Repeat("a", skills.MaxName), Description: "d"}},
		{name: "name twice", text: "---\nname: a\nname: b\ndescription: d\n---\n", err: "name is given twice"},
		{name: "line that is not a key", text: "---\nname: a\njust words\ndescription: d\n---\n", err: "header line 3 is not 'key: value'"},
		{name: "unclosed quote", text: "---\nname: \"a\ndescription: d\n---\n", err: "is not closed"},
		{name: "text after a quote", text: "---\nname: \"a\" b\ndescription: d\n---\n", err: "text after the quoted value"},
		{name: "indented line first", text: "---\n  name: a\ndescription: d\n---\n", err: "indented but follows no key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, body, err := skills.Parse(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q (header %+v)", err, tc.err, h)
				}
				if h.Name != "" {
					t.Errorf("a broken header gave the name %q", h.Name)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h != tc.want || body != tc.body {
				t.Errorf("got %+v %q, want %+v %q", h, body, tc.want, tc.body)
			}
		})
	}
}
