package tools

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/benchtree"
)

// benchTreeFiles is the size of the generated tree of BenchmarkSearch.
const benchTreeFiles = 100_000

// BenchmarkSearch (issue 31) measures grep and glob against ripgrep on
// the same tree, interleaved (benchpair: ours-ms, base-ms, ratio): the
// tool's Run in this process, so agentls's start-up is left out, against
// an rg process searching the same files (--hidden: agentls searches
// hidden files; --no-require-git: it reads .gitignore outside a git
// repository). The trees are GOROOT/src and a generated one of 100,000
// files (internal/benchtree; set AGENTLS_BENCH_TREE to a folder to keep it
// between runs). Before timing, each pair must find the same files.
func BenchmarkSearch(b *testing.B) {
	requireProgram(b, "rg")
	big := os.Getenv("AGENTLS_BENCH_TREE")
	if big == "" {
		big = filepath.Join(b.TempDir(), "tree")
	}
	if err := benchtree.Ensure(context.Background(), big, benchTreeFiles); err != nil {
		b.Fatal(err)
	}
	trees := []struct{ name, root string }{{"goroot", filepath.Join(goroot(b), "src")}, {"100k", big}}
	for _, tree := range trees {
		ws, err := NewWorkspace([]string{tree.root}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		b.Run("grep/"+tree.name, func(b *testing.B) {
			in := grepInput{Pattern: `func NewReader\(`, Include: "*.go"}
			rg := []string{"-n", "--hidden", "--no-require-git", in.Pattern, "-g", in.Include}
			want := rgOutput(b, tree.root, "-l", "--hidden", "--no-require-git", in.Pattern, "-g", in.Include)
			if got := grepFilesOf(runTool(b, NewGrepTool(ws), in)); !slices.Equal(got, want) {
				b.Fatalf("grep found %q, rg %q", got, want)
			}
			searchPair(b, NewGrepTool(ws), in, tree.root, rg)
		})
		b.Run("glob/"+tree.name, func(b *testing.B) {
			in := globInput{Pattern: "**/*_test.go"}
			rg := []string{"--files", "--hidden", "--no-require-git", "-g", "*_test.go"}
			want := len(rgOutput(b, tree.root, rg...))
			if got := globCountOf(b, runTool(b, NewGlobTool(ws), in)); got != want {
				b.Fatalf("glob matched %d files, rg %d", got, want)
			}
			searchPair(b, NewGlobTool(ws), in, tree.root, rg)
		})
	}
}

// searchPair times the tool on input against rg with args in root.
func searchPair(b *testing.B, tool Tool, input any, root string, args []string) {
	benchpair.Run(b, time.Millisecond, func() time.Duration {
		start := time.Now()
		runTool(b, tool, input)
		return time.Since(start)
	}, func() time.Duration {
		cmd := exec.Command("rg", args...)
		cmd.Dir, cmd.Stdout = root, io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("rg %q: %v", args, err)
		}
		return time.Since(start)
	})
}

// runTool runs tool on input and returns its text.
func runTool(b *testing.B, tool Tool, input any) string {
	raw, err := json.Marshal(input)
	if err != nil {
		b.Fatal(err)
	}
	res, err := tool.Run(context.Background(), Call{ID: "b", Input: raw})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", tool.Spec().Name, err, res.Content)
	}
	return res.Content
}

// rgOutput is rg's output lines in root, sorted.
func rgOutput(b *testing.B, root string, args ...string) []string {
	cmd := exec.Command("rg", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("rg %q: %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(lines)
	return lines
}

// grepFilesOf is the files a grep result lists, sorted.
func grepFilesOf(content string) []string {
	var files []string
	for _, line := range strings.Split(content, "\n") {
		if p, ok := strings.CutSuffix(line, ":"); ok && !strings.HasPrefix(line, " ") {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return files
}

// globCountOf is how many files a glob result says matched.
func globCountOf(b *testing.B, content string) int {
	if m := regexp.MustCompile(`most recently modified of (\d+) matching files`).FindStringSubmatch(content); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if strings.HasPrefix(content, "No files found") {
		return 0
	}
	return len(strings.Split(content, "\n"))
}
