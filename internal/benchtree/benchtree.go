// Package benchtree writes the generated source tree that grep and glob
// are measured on beside ripgrep (internal/tools, bench, bench/report): a
// monorepo-like tree of Go, TypeScript, Markdown and JSON files in three
// levels of folders, with test files, a few binary files, a .gitignore and
// the files it ignores. The same count gives the same tree.
package benchtree

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// NeedleEvery is how often a file defines NewReader: the grep benchmark's
// pattern, func NewReader\(, matches in one Go file of this many.
const NeedleEvery = 3000

// perFolder is how many files a leaf folder holds.
const perFolder = 50

// Ensure makes dir hold the tree of files files, writing it unless an
// earlier Ensure did (a marker file, .benchtree-N, says so), so that
// benchmarks run one after another can share one tree.
func Ensure(ctx context.Context, dir string, files int) error {
	marker := filepath.Join(dir, fmt.Sprintf(".benchtree-%d", files))
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := Write(ctx, dir, files); err != nil {
		return err
	}
	return os.WriteFile(marker, nil, 0o644)
}

// Write creates files files below dir (made if missing): 50 a folder in
// pkgNN/modNN/subNN, plus a .gitignore and a few files it ignores (*.log,
// dist/), which are not counted.
func Write(ctx context.Context, dir string, files int) error {
	if err := writeFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n/dist/\n")); err != nil {
		return err
	}
	for i := range 100 {
		if err := writeFile(filepath.Join(dir, "dist", fmt.Sprintf("bundle%03d.js", i)), []byte(source(i, "js"))); err != nil {
			return err
		}
	}
	folders := make(chan int)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range cap(errs) {
		go func() {
			var err error
			for f := range folders {
				if err == nil {
					err = writeFolder(dir, f, min(perFolder, files-f*perFolder))
				}
			}
			errs <- err
		}()
	}
	var err error
	for f := range (files + perFolder - 1) / perFolder {
		if err = ctx.Err(); err != nil {
			break
		}
		folders <- f
	}
	close(folders)
	for range cap(errs) {
		if e := <-errs; err == nil {
			err = e
		}
	}
	return err
}

// writeFolder writes the n files of folder number f.
func writeFolder(dir string, f, n int) error {
	folder := filepath.Join(dir, fmt.Sprintf("pkg%02d", f/100), fmt.Sprintf("mod%02d", f/10%10), fmt.Sprintf("sub%02d", f%10))
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	for i := range n {
		id := f*perFolder + i
		name, data := file(id)
		if err := os.WriteFile(filepath.Join(folder, name), data, 0o644); err != nil {
			return err
		}
	}
	if f%20 == 0 {
		return os.WriteFile(filepath.Join(folder, "debug.log"), []byte(source(f, "log")), 0o644)
	}
	return nil
}

// writeFile writes data at path, making its folder.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// file is the name and content of file number id.
func file(id int) (string, []byte) {
	switch k := id % 20; {
	case id%500 == 7:
		return fmt.Sprintf("image%d.png", id), binary(id)
	case k < 9:
		return fmt.Sprintf("file%d.go", id), []byte(source(id, "go"))
	case k < 13:
		return fmt.Sprintf("file%d_test.go", id), []byte(source(id, "go"))
	case k < 16:
		return fmt.Sprintf("file%d.ts", id), []byte(source(id, "ts"))
	case k < 18:
		return fmt.Sprintf("README%d.md", id), []byte(source(id, "md"))
	}
	return fmt.Sprintf("data%d.json", id), []byte(source(id, "json"))
}

// binary is a small PNG-like file with NUL bytes.
func binary(id int) []byte {
	r := rand.New(rand.NewPCG(uint64(id), 7))
	data := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	for range 2048 {
		data = append(data, byte(r.Uint32()))
	}
	return data
}

// lines is what the generated files are made of.
var lines = []string{
	"func (s *Server) handle%d(ctx context.Context, req *Request) (*Response, error) {",
	"\tif err := s.validate(req); err != nil {",
	"\t\treturn nil, fmt.Errorf(\"handle %d: %%w\", err)",
	"\t}",
	"}",
	"// %d: the cache keeps the last result per key so repeated requests are cheap.",
	"\tresult := make([]string, 0, %d)",
	"\tfor i, item := range items {",
	"\t\tresult = append(result, item.Name+strconv.Itoa(i))",
	"\tvalue := compute(x, y) * %d",
	"",
	"type Config%d struct {",
	"\tName    string `json:\"name\"`",
	"\tTimeout int    `json:\"timeout\"`",
	"\tlog.Printf(\"request %%s took %%v\", req.ID, time.Since(start))",
	"export function render%d(props: Props): string {",
	"  \"key%d\": \"a value that is long enough to look like data\",",
}

// source is the text of a file of the kind (its extension) number id:
// 20 to 160 lines.
func source(id int, kind string) string {
	r := rand.New(rand.NewPCG(uint64(id), 1))
	var b strings.Builder
	if kind == "go" {
		fmt.Fprintf(&b, "package pkg%d\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", id%97)
		if id%NeedleEvery == 11 {
			b.WriteString("// NewReader returns a reader of the stream.\nfunc NewReader(r io.Reader) *Reader {\n\treturn &Reader{r: r}\n}\n\n")
		}
	}
	for range 20 + r.IntN(140) {
		line := lines[r.IntN(len(lines))]
		if strings.Contains(line, "%d") {
			line = fmt.Sprintf(line, r.IntN(10000))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
