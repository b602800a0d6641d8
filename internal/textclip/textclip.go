// Package textclip shortens text for messages, events and prompts the one
// way: never in the middle of a character (a cut byte sequence is invalid
// UTF-8 that editors and JSON encoders mangle), and saying that it cut.
package textclip

import (
	"strings"
	"unicode/utf8"
)

// Prefix is the longest prefix of s of at most n bytes that ends on a
// character boundary.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Bytes is s cut to at most n bytes (on a character boundary) with mark
// appended when it was cut.
func Bytes(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + mark
}

// Line is s cut to at most n bytes at the last line end before the cut
// (or on a character boundary when there is none), with mark appended when
// it was cut.
func Line(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	p := Prefix(s, n)
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		p = p[:i]
	}
	return p + mark
}

// FirstLine is s's first line, trimmed, cut like Bytes with "…".
func FirstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return Bytes(s, n, "…")
}
