package editmatch

import (
	"fmt"
	"strings"
	"testing"
)

// bigFile is a ~1 MiB, 30,000-line Go-like file, tab-indented, and a
// distinctive three-line block near its end (the worst place for a scan).
func bigFile(tb testing.TB, eol string) (content, block string) {
	tb.Helper()
	const n = 30000
	lines := make([]string, n)
	for i := range lines {
		lines[i] = benchLine(i)
	}
	content = strings.Join(lines, eol) + eol
	k := n - 400 - (n-400)%8 + 1 // an "if" line
	block = strings.Join(lines[k:k+3], "\n")
	if c := strings.Count(strings.ReplaceAll(content, "\r\n", "\n"), block); c != 1 {
		tb.Fatalf("benchmark block occurs %d times", c)
	}
	if n := len(strings.ReplaceAll(content, "\r\n", "\n")); n < 1<<20-1<<16 || n > 1<<20+1<<16 {
		tb.Fatalf("file has %d bytes, want about 1 MiB", n)
	}
	return content, block
}

func benchLine(i int) string {
	switch i % 8 {
	case 0:
		return fmt.Sprintf("func step%05d(x int, label string) (int, error) {", i)
	case 1:
		return fmt.Sprintf("\tif x > %d && label != \"\" && x%%2 == 0 {", i)
	case 2:
		return fmt.Sprintf("\t\tx = compute(x, %d) // keeps the running total of steps", i*7)
	case 3:
		return "\t}"
	case 4:
		return fmt.Sprintf("\ty, err := transform(x, \"label-%05d\", label)", i)
	case 5:
		return fmt.Sprintf("\tif err != nil { return 0, fmt.Errorf(\"step %d: %%w\", err) }", i)
	case 6:
		return "\treturn y + len(label), nil"
	}
	return "}"
}

func benchApply(b *testing.B, content string, e Edit, fuzzy bool) {
	b.Helper()
	res, err := Apply(content, e)
	if err != nil || res.Fuzzy != fuzzy {
		b.Fatalf("Apply: fuzzy=%v err=%v", res.Fuzzy, err)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(content, e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyExact(b *testing.B) {
	content, block := bigFile(b, "\n")
	benchApply(b, content, Edit{Old: block, New: strings.Replace(block, "compute", "recompute", 1)}, false)
}

func BenchmarkApplyExactCRLF(b *testing.B) {
	content, block := bigFile(b, "\r\n")
	benchApply(b, content, Edit{Old: block, New: strings.Replace(block, "compute", "recompute", 1)}, false)
}

func BenchmarkApplyFuzzy(b *testing.B) {
	content, block := bigFile(b, "\n")
	old := strings.ReplaceAll(block, "\t", "    ")
	benchApply(b, content, Edit{Old: old, New: strings.Replace(old, "compute", "recompute", 1)}, true)
}

func BenchmarkApplyNotFound(b *testing.B) {
	content, block := bigFile(b, "\n")
	e := Edit{Old: strings.Replace(block, "compute", "comptue", 1), New: "x"}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(content, e); err == nil {
			b.Fatal("matched")
		}
	}
}
