package textclip

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Bytes("hello", 10, "…"), "hello"},
		{Bytes("hello", 3, "…"), "hel…"},
		{Bytes("héllo", 2, "…"), "h…"}, // é is two bytes: not cut in half
		{Bytes("😀😀", 5, "…"), "😀…"},
		{Bytes("abc", 0, "…"), "…"},
		{Prefix("日本語", 4), "日"},
		{Line("one\ntwo\nthree", 9, " [cut]"), "one\ntwo [cut]"},
		{Line("onetwothree", 5, " [cut]"), "onetw [cut]"},
		{FirstLine("  first line\nsecond", 5), "first…"},
		{FirstLine("short", 10), "short"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for n := 0; n < 12; n++ {
		if s := Bytes("añ😀b€c", n, ""); !utf8.ValidString(s) || len(s) > n {
			t.Errorf("Bytes(_, %d) = %q: invalid or too long", n, s)
		}
	}
}
