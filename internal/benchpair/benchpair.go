// Package benchpair measures a benchmark against its baseline in the same
// run, so its figure reads as a ratio that holds on any machine: the two
// run interleaved, alternating which goes first, so drift in the
// machine's speed (other work, frequency scaling) falls on both alike.
package benchpair

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Run times ours and base once per iteration of b.Loop and reports the
// medians as ours-UNIT and base-UNIT (unit is time.Microsecond: "us",
// time.Millisecond: "ms", else "ns") and the median of the per-pair
// ratios ours/base as "ratio". Each function returns the time of the
// part it measures.
func Run(b *testing.B, unit time.Duration, ours, base func() time.Duration) {
	b.Helper()
	var o, r, ratios []float64
	i := 0
	for b.Loop() {
		var x, y time.Duration
		if i%2 == 0 {
			x, y = ours(), base()
		} else {
			y, x = base(), ours()
		}
		i++
		o, r = append(o, float64(x)), append(r, float64(y))
		ratios = append(ratios, float64(x)/float64(max(y, 1)))
	}
	name := unitName(unit)
	b.ReportMetric(Median(o)/float64(unit), "ours-"+name)
	b.ReportMetric(Median(r)/float64(unit), "base-"+name)
	b.ReportMetric(Median(ratios), "ratio")
}

func unitName(unit time.Duration) string {
	switch unit {
	case time.Microsecond:
		return "us"
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "s"
	}
	return strings.TrimPrefix(time.Duration(unit).String(), "1")
}

// Median is the middle value of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
