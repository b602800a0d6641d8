package editmatch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/benchpair"
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

// indexBaseline is the plain exact edit: strings.Index, a second search
// for uniqueness, and the splice.
func indexBaseline(content string, e Edit) (string, bool) {
	i := strings.Index(content, e.Old)
	if i < 0 || strings.Contains(content[i+1:], e.Old) {
		return "", false
	}
	return content[:i] + e.New + content[i+len(e.Old):], true
}

// normalizeBaseline is the plain whitespace-tolerant edit: both sides
// split into lines with the whitespace around each trimmed, the old
// block's lines looked for in the file's, and replaced by the new text.
func normalizeBaseline(content string, e Edit) (string, bool) {
	lines := strings.SplitAfter(content, "\n")
	old := strings.Split(e.Old, "\n")
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = strings.TrimSpace(l)
	}
	for i := range old {
		old[i] = strings.TrimSpace(old[i])
	}
	at := -1
	for i := 0; i+len(old) <= len(norm); i++ {
		match := true
		for j := range old {
			if norm[i+j] != old[j] {
				match = false
				break
			}
		}
		if match {
			if at >= 0 {
				return "", false
			}
			at = i
		}
	}
	if at < 0 {
		return "", false
	}
	return strings.Join(lines[:at], "") + e.New + "\n" + strings.Join(lines[at+len(old):], ""), true
}

// BenchmarkMatcher measures Apply on a 1 MiB file against a plain
// baseline doing the same job, interleaved and alternating which goes
// first: exact edits against strings.Index, whitespace-fuzzy ones against
// line normalisation. It reports the medians (ours-us, base-us) and the
// median of the per-pair ratios.
func BenchmarkMatcher(b *testing.B) {
	content, block := bigFile(b, "\n")
	fuzzyOld := strings.ReplaceAll(block, "\t", "    ")
	for _, tc := range []struct {
		name     string
		edit     Edit
		fuzzy    bool
		baseline func(string, Edit) (string, bool)
	}{
		{"exact", Edit{Old: block, New: strings.Replace(block, "compute", "recompute", 1)}, false, indexBaseline},
		{"fuzzy", Edit{Old: fuzzyOld, New: strings.Replace(fuzzyOld, "compute", "recompute", 1)}, true, normalizeBaseline},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if res, err := Apply(content, tc.edit); err != nil || res.Fuzzy != tc.fuzzy {
				b.Fatalf("Apply: fuzzy=%v err=%v", res.Fuzzy, err)
			}
			if _, ok := tc.baseline(content, tc.edit); !ok {
				b.Fatal("the baseline found no single match")
			}
			ours := func() time.Duration {
				t0 := time.Now()
				if _, err := Apply(content, tc.edit); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			base := func() time.Duration {
				t0 := time.Now()
				tc.baseline(content, tc.edit)
				return time.Since(t0)
			}
			benchpair.Run(b, time.Microsecond, ours, base)
		})
	}
}
