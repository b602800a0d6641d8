package skills

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/textclip"
)

// Limits of a SKILL.md header, as Claude Code and Codex set them.
const (
	// MaxName bounds a skill's name, in bytes (it is ASCII).
	MaxName = 64
	// MaxDescription bounds a description, in characters; a longer one is
	// cut (Header.Cut), not refused.
	MaxDescription = 1024
)

// Header is what a SKILL.md says about itself in its front matter.
type Header struct {
	// Name is lowercase letters, digits and hyphens; Description says
	// what the skill does and when to use it, on one line.
	Name, Description string
	// Cut says Description was longer than MaxDescription and was cut.
	Cut bool
}

// Parse splits a SKILL.md into its header and its body. The header is
// the front matter between two "---" lines: `name:` and `description:`
// are read (plain, quoted or block values, as YAML writes them) and every
// other key — license, metadata, allowed-tools … — is ignored: a skill
// never grants anything. A byte-order mark and CRLF line ends are
// accepted. The error says what to fix.
func Parse(text string) (Header, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return Header{}, "", errors.New("no header: SKILL.md starts with a line '---', then 'name:' and 'description:' lines, then another '---'")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return Header{}, "", errors.New("the header is not closed: add a line '---' after its last key")
	}
	keys, err := frontMatter(lines[1:end])
	if err != nil {
		return Header{}, "", err
	}
	h := Header{Name: keys["name"], Description: strings.Join(strings.Fields(keys["description"]), " ")}
	if err := checkName(h.Name); err != nil {
		return Header{}, "", err
	}
	if h.Description == "" {
		return Header{}, "", errors.New("no description: add 'description:' saying what the skill does and when to use it")
	}
	if utf8.RuneCountInString(h.Description) > MaxDescription {
		h.Description = string([]rune(h.Description)[:MaxDescription-1]) + "…"
		h.Cut = true
	}
	body := strings.Join(lines[end+1:], "\n")
	return h, strings.TrimSpace(body), nil
}

// checkName refuses a name the skill tool could not be called with.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("no name: add 'name:' (lowercase letters, digits and hyphens)")
	case len(name) > MaxName:
		return fmt.Errorf("name %q is %d bytes long: use at most %d", textclip.Bytes(name, 70, "…"), len(name), MaxName)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q: use only lowercase letters, digits and hyphens", name)
		}
	}
	return nil
}

// frontMatter reads the header's top-level keys: "key: value" lines,
// with the value plain (to a " #" comment), quoted ('…' or "…"), a block
// ("|" or ">", then indented lines), or continued on indented lines.
// Indented lines under a key without a value (a nested list or map) are
// kept as its text, which only matters for the two keys read. A name or
// description given twice is an error; so is a top-level line that is
// not "key: value".
func frontMatter(lines []string) (map[string]string, error) {
	keys := map[string]string{}
	indented := func(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if indented(line) {
			return nil, fmt.Errorf("header line %d is indented but follows no key: %q", i+2, textclip.Bytes(trimmed, 60, "…"))
		}
		key, value, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("header line %d is not 'key: value': %q", i+2, textclip.Bytes(trimmed, 60, "…"))
		}
		// The lines that belong to this key.
		var more []string
		for i+1 < len(lines) && (indented(lines[i+1]) || strings.TrimSpace(lines[i+1]) == "") {
			i++
			more = append(more, lines[i])
		}
		v, err := scalar(strings.TrimSpace(value), more)
		if err != nil {
			return nil, fmt.Errorf("header key %s: %v", key, err)
		}
		if _, twice := keys[key]; twice && (key == "name" || key == "description") {
			return nil, fmt.Errorf("header key %s is given twice: keep one", key)
		}
		keys[key] = v
	}
	return keys, nil
}

// scalar is a key's value: first is what follows the colon, more the
// indented (or blank) lines after it.
func scalar(first string, more []string) (string, error) {
	for len(more) > 0 && strings.TrimSpace(more[len(more)-1]) == "" {
		more = more[:len(more)-1]
	}
	switch {
	case first != "" && (first[0] == '|' || first[0] == '>'):
		// A block: the lines without the first one's indentation; "|"
		// keeps the line ends, ">" folds them into spaces.
		indent := -1
		out := make([]string, len(more))
		for i, l := range more {
			lead := len(l) - len(strings.TrimLeft(l, " \t"))
			if lead == len(l) {
				continue // a blank line
			}
			if indent < 0 {
				indent = lead
			}
			out[i] = strings.TrimRight(l[min(indent, lead):], " \t")
		}
		sep := "\n"
		if first[0] == '>' {
			sep = " "
		}
		return strings.TrimSpace(strings.Join(out, sep)), nil
	case first != "" && (first[0] == '"' || first[0] == '\''):
		// Quoted, perhaps over several lines (folded with spaces), perhaps
		// followed by a comment.
		all := first
		for _, l := range more {
			all += " " + strings.TrimSpace(l)
		}
		end := closingQuote(all)
		if end < 0 {
			return "", fmt.Errorf("the quoted value %s is not closed", textclip.Bytes(all, 40, "…"))
		}
		if rest := strings.TrimSpace(all[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return "", fmt.Errorf("text after the quoted value: %s", textclip.Bytes(rest, 40, "…"))
		}
		quoted := all[:end+1]
		if quoted[0] == '\'' {
			return strings.ReplaceAll(quoted[1:end], "''", "'"), nil // YAML's escape of a single quote
		}
		if s, err := strconv.Unquote(quoted); err == nil {
			return s, nil
		}
		return quoted[1:end], nil // an escape Go does not know: the text as written
	}
	// Plain: the rest of the line and the indented lines, each up to a
	// comment, folded into one line.
	parts := []string{uncomment(first)}
	for _, l := range more {
		parts = append(parts, uncomment(strings.TrimSpace(l)))
	}
	return strings.TrimSpace(strings.Join(parts, " ")), nil
}

// closingQuote is the index of the quote that closes the one s starts
// with, or -1. A doubled quote inside single quotes and an escaped one
// inside double quotes do not close.
func closingQuote(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// uncomment is a plain value's text before a comment (" #…").
func uncomment(s string) string {
	if strings.HasPrefix(s, "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "\t#"); i >= 0 {
		s = s[:i]
	}
	return s
}
