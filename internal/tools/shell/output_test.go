package shell

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateShort(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"", "hello\n", strings.Repeat("漢", MaxOutputChars)} {
		shown, path, err := Truncate(s, dir)
		if err != nil || shown != s || path != "" {
			t.Errorf("Truncate(%d runes) = %d runes, %q, %v", utf8.RuneCountInString(s), utf8.RuneCountInString(shown), path, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("short output saved a file: %v", entries)
	}
}

func TestTruncateCJK(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "行%05d：漢字とかな🙂\n", i) // 14 runes per line, multibyte everywhere
	}
	text := b.String()
	shown, path, err := Truncate(text, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(shown) {
		t.Fatal("truncated output is not valid UTF-8")
	}
	half := MaxOutputChars / 2
	runes := []rune(text)
	head, tail := string(runes[:half]), string(runes[len(runes)-half:])
	if !strings.HasPrefix(shown, head) || !strings.HasSuffix(shown, tail) {
		t.Fatal("head or tail not kept exactly")
	}
	middle := string(runes[half : len(runes)-half])
	marker := fmt.Sprintf("\n\n... [%d lines truncated] ...\n\n", strings.Count(middle, "\n"))
	if shown != head+marker+tail {
		t.Fatalf("marker wrong; around it: %q", shown[len(head)-10:len(head)+len(marker)+10])
	}
	saved, err := os.ReadFile(path)
	if err != nil || string(saved) != text {
		t.Fatalf("full output not saved at %q: %v", path, err)
	}
}

func TestTruncateZWJAndInvalid(t *testing.T) {
	family := "👩‍👩‍👧‍👦" // joined by zero-width joiners
	text := strings.Repeat(family, MaxOutputChars/3) + "\xff\xfe"
	shown, _, err := Truncate(text, "")
	if err != nil || !utf8.ValidString(shown) || !strings.Contains(shown, "lines truncated") {
		t.Fatalf("valid=%v err=%v", utf8.ValidString(shown), err)
	}
	shown, _, _ = Truncate("ok\xff", "")
	if shown != "ok\uFFFD" {
		t.Errorf("invalid byte not replaced: %q", shown)
	}
}

func TestRing(t *testing.T) {
	r := ring{size: 8}
	r.write([]byte("abc"))
	if b, d := r.since(0); string(b) != "abc" || d != 0 {
		t.Fatalf("got %q %d", b, d)
	}
	r.write([]byte("defghij")) // total 10: keeps "cdefghij"
	if b, d := r.since(0); string(b) != "cdefghij" || d != 2 {
		t.Fatalf("after wrap: %q dropped %d", b, d)
	}
	if b, d := r.since(7); string(b) != "hij" || d != 0 {
		t.Fatalf("since 7: %q %d", b, d)
	}
	r.write([]byte("0123456789abcdef")) // larger than the ring
	if b, d := r.since(10); string(b) != "89abcdef" || d != 8 {
		t.Fatalf("big write: %q %d", b, d)
	}
	if b, _ := r.since(r.total); len(b) != 0 {
		t.Fatalf("nothing new expected, got %q", b)
	}
}

func TestCapture(t *testing.T) {
	c := newCapture(10)
	c.Write([]byte("hello"))
	if c.String() != "hello" {
		t.Fatalf("got %q", c.String())
	}
	c.Write([]byte(" wonderful world"))
	// head keeps 5 bytes, tail keeps the last 5, 11 dropped.
	if got, want := c.String(), "hello\n... [11 bytes omitted] ...\nworld"; got != want || c.dropped() != 11 {
		t.Fatalf("got %q (dropped %d), want %q", got, c.dropped(), want)
	}
}
