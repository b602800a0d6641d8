package editmatch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Fixture format (testdata/*.txtar), one case per file.
//
// The comment holds "key: value" lines; other comment lines are prose:
//
//	replace_all: true        ReplaceAll for a single edit
//	replace_all.N: true      ReplaceAll for edit N of a multiedit case
//	error: TEXT              an error is expected and contains TEXT (repeatable)
//	is: ErrNotFound          errors.Is must hold (ErrNotFound, ErrAmbiguous, ErrNoChange, ErrEmptyOld, ErrIndent, ErrBlankLines)
//	index: N                 the error is an *EditError for edit N
//	fuzzy: true|false        Result.Fuzzy
//	note: TEXT               Result.Note contains TEXT
//	replacements: N          Result.Replacements
//	changed: 2-3,7           Result.Changed ("4-3" is a deletion before line 4)
//	raw: true                sections are taken literally (no escapes below)
//
// Sections: file, old, new and want, or old.N/new.N for a multiedit case.
// Unless raw, section text is decoded so invisible bytes are visible:
// ⇥ is a tab, · a space, ␍ a CR, <BOM> a U+FEFF, and a section ending in
// ∎ ends there, without the final newline txtar always adds.

type fixture struct {
	name   string
	header map[string][]string
	files  map[string]string
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fx := fixture{
			name:   strings.TrimSuffix(filepath.Base(p), ".txtar"),
			header: make(map[string][]string),
			files:  make(map[string]string),
		}
		for _, line := range strings.Split(string(a.Comment), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") && !strings.Contains(k, " ") {
				fx.header[k] = append(fx.header[k], v)
			}
		}
		raw := fx.get("raw") == "true"
		for _, f := range a.Files {
			fx.files[f.Name] = decodeSection(string(f.Data), raw)
		}
		out = append(out, fx)
	}
	return out
}

func (fx fixture) get(key string) string {
	if v := fx.header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func decodeSection(s string, raw bool) string {
	if raw {
		return s
	}
	if strings.HasSuffix(s, "∎\n") {
		s = strings.TrimSuffix(s, "∎\n")
	}
	return strings.NewReplacer("⇥", "\t", "·", " ", "␍", "\r", "<BOM>", bom).Replace(s)
}

// edits returns the fixture's edits: old/new, or old.N/new.N.
func (fx fixture) edits(t *testing.T) (edits []Edit, multi bool) {
	if old, ok := fx.files["old"]; ok {
		return []Edit{{Old: old, New: fx.files["new"], ReplaceAll: fx.get("replace_all") == "true"}}, false
	}
	for n := 1; ; n++ {
		old, ok := fx.files[fmt.Sprintf("old.%d", n)]
		if !ok {
			break
		}
		edits = append(edits, Edit{Old: old, New: fx.files[fmt.Sprintf("new.%d", n)],
			ReplaceAll: fx.get(fmt.Sprintf("replace_all.%d", n)) == "true"})
	}
	if len(edits) == 0 {
		t.Fatal("fixture has no old or old.1 section")
	}
	return edits, true
}

var sentinels = map[string]error{
	"ErrNotFound": ErrNotFound, "ErrAmbiguous": ErrAmbiguous,
	"ErrNoChange": ErrNoChange, "ErrEmptyOld": ErrEmptyOld, "ErrIndent": ErrIndent, "ErrBlankLines": ErrBlankLines,
}

func TestFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 60 {
		t.Errorf("only %d fixtures, want at least 60", len(fixtures))
	}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			runFixture(t, fx)
		})
	}
}

func runFixture(t *testing.T, fx fixture) {
	file, ok := fx.files["file"]
	if !ok {
		t.Fatal("fixture has no file section")
	}
	edits, multi := fx.edits(t)
	var res Result
	var err error
	if multi {
		res, err = ApplyAll(file, edits)
	} else {
		res, err = Apply(file, edits[0])
	}
	if wantErrs := fx.header["error"]; len(wantErrs) > 0 || fx.get("is") != "" {
		checkError(t, fx, err)
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	want, ok := fx.files["want"]
	if !ok {
		t.Fatal("fixture has neither want nor error")
	}
	if res.Content != want {
		t.Errorf("content:\n got %q\nwant %q", res.Content, want)
	}
	if v := fx.get("fuzzy"); v != "" && strconv.FormatBool(res.Fuzzy) != v {
		t.Errorf("Fuzzy = %v, want %s", res.Fuzzy, v)
	}
	if res.Fuzzy != (res.Note != "") {
		t.Errorf("Fuzzy = %v but Note = %q", res.Fuzzy, res.Note)
	}
	for _, n := range fx.header["note"] {
		if !strings.Contains(res.Note, n) {
			t.Errorf("note %q does not contain %q", res.Note, n)
		}
	}
	if v := fx.get("replacements"); v != "" && strconv.Itoa(res.Replacements) != v {
		t.Errorf("Replacements = %d, want %s", res.Replacements, v)
	}
	if v := fx.get("changed"); v != "" && formatRanges(res.Changed) != v {
		t.Errorf("Changed = %s, want %s", formatRanges(res.Changed), v)
	}
	checkOutside(t, file, res)
}

// checkOutside verifies that the lines before the first changed range and
// after the last one are the original lines, line breaks included.
func checkOutside(t *testing.T, orig string, res Result) {
	t.Helper()
	if len(res.Changed) == 0 {
		t.Fatal("no Changed ranges")
	}
	orig, content := strings.TrimPrefix(orig, bom), strings.TrimPrefix(res.Content, bom)
	before, after := strings.SplitAfter(orig, "\n"), strings.SplitAfter(content, "\n")
	first, last := res.Changed[0].First, res.Changed[len(res.Changed)-1].Last
	head := first - 1
	if head > len(before) || head > len(after) || strings.Join(before[:head], "") != strings.Join(after[:head], "") {
		t.Errorf("lines before line %d changed", first)
	}
	tail := len(after) - last
	if tail < 0 || tail > len(before) ||
		strings.Join(before[len(before)-tail:], "") != strings.Join(after[len(after)-tail:], "") {
		t.Errorf("lines after line %d changed", last)
	}
}

func checkError(t *testing.T, fx fixture, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, sub := range fx.header["error"] {
		if !strings.Contains(err.Error(), sub) {
			t.Errorf("error does not contain %q:\n%v", sub, err)
		}
	}
	if name := fx.get("is"); name != "" {
		target, ok := sentinels[name]
		if !ok {
			t.Fatalf("unknown sentinel %q", name)
		}
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(err, %s) = false: %v", name, err)
		}
	}
	if v := fx.get("index"); v != "" {
		var ee *EditError
		if !errors.As(err, &ee) || strconv.Itoa(ee.Index) != v {
			t.Errorf("want *EditError with Index %s, got %#v", v, err)
		}
	}
}

func formatRanges(rs []LineRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d-%d", r.First, r.Last)
	}
	return strings.Join(parts, ",")
}
