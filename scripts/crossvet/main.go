// Command crossvet runs go vet's analyzers on this module's packages and
// their tests for the platform named by GOOS and GOARCH, type-checked from
// source:
//
//	GOOS=windows GOARCH=amd64 go run ./scripts/crossvet ./...
//
// go vet needs every dependency compiled for the platform it checks; for
// agentls's dependencies (two provider SDKs, an SQLite in Go) that is a full
// build per platform, minutes each. crossvet type-checks the module's own
// files in full and its dependencies' declarations only (their function
// bodies are dropped: they cannot change whether agentls's code
// type-checks), then runs go vet's suite (cmd/vet's list) on the module's
// packages: the files of that platform (platform_darwin.go, *_windows.go)
// get the same type errors and findings go vet would give, in seconds.
// What it gives up: facts about dependencies' functions (a dependency's
// printf-like wrapper is not known as one). scripts/test runs it for
// darwin/arm64, windows/amd64 and linux/arm64: the other platforms the
// release ships that have files of their own in agentls.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"golang.org/x/tools/go/packages"
)

// suite is go vet's own (cmd/vet), in its order.
var suite = []*analysis.Analyzer{
	appends.Analyzer, asmdecl.Analyzer, assign.Analyzer, atomic.Analyzer,
	bools.Analyzer, buildtag.Analyzer, cgocall.Analyzer, composite.Analyzer,
	copylock.Analyzer, defers.Analyzer, directive.Analyzer, errorsas.Analyzer,
	framepointer.Analyzer, httpresponse.Analyzer, hostport.Analyzer,
	ifaceassert.Analyzer, loopclosure.Analyzer, lostcancel.Analyzer,
	nilfunc.Analyzer, printf.Analyzer, shift.Analyzer, sigchanyzer.Analyzer,
	slog.Analyzer, stdmethods.Analyzer, stdversion.Analyzer,
	stringintconv.Analyzer, structtag.Analyzer, tests.Analyzer,
	testinggoroutine.Analyzer, timeformat.Analyzer, unmarshal.Analyzer,
	unreachable.Analyzer, unsafeptr.Analyzer, unusedresult.Analyzer,
	waitgroup.Analyzer,
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: GOOS=… GOARCH=… go run ./scripts/crossvet [packages]")
	}
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	problems, err := vet(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		os.Exit(2)
	}
	platform := os.Getenv("GOOS") + "/" + os.Getenv("GOARCH")
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "%s (%s)\n", p, platform)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// vet loads the packages and their tests and returns every type error and
// finding in the module's own files, sorted.
func vet(patterns []string) ([]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	own := func(filename string) bool {
		return strings.HasPrefix(filename, root+string(filepath.Separator))
	}
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax | packages.NeedModule,
		Tests: true,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
			if f != nil && !own(filename) {
				dropBodies(f)
			}
			return f, err
		},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var problems []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			problems = append(problems, s)
		}
	}
	// Without their bodies, dependencies' imports look unused: that soft
	// error is the dropped bodies', not the code's. Any other error is
	// reported, and a package is ill-typed only for errors that remain.
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		var kept []packages.Error
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError && !own(strings.SplitN(e.Pos, ":", 2)[0]) && soft(p, e) {
				continue
			}
			kept = append(kept, e)
			add(e.Error())
		}
		p.Errors = kept
		p.IllTyped = len(kept) > 0
		for _, imp := range p.Imports {
			p.IllTyped = p.IllTyped || imp.IllTyped
		}
	})
	if len(problems) > 0 {
		sort.Strings(problems)
		return problems, nil
	}
	graph, err := checker.Analyze(suite, pkgs, nil)
	if err != nil {
		return nil, err
	}
	for act := range graph.All() {
		if act.Err != nil && act.IsRoot {
			add(fmt.Sprintf("%s: %s: %v", act.Package.PkgPath, act.Analyzer.Name, act.Err))
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			if own(pos.Filename) {
				add(fmt.Sprintf("%s: %s (%s)", pos, d.Message, act.Analyzer.Name))
			}
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// soft reports whether e is one of p's soft type errors (an unused
// import or variable: the types are complete regardless).
func soft(p *packages.Package, e packages.Error) bool {
	for _, te := range p.TypeErrors {
		if te.Soft && te.Msg == e.Msg {
			return true
		}
	}
	return false
}

// dropBodies removes the bodies of a dependency's functions: its
// declarations are what the module's code is checked against.
func dropBodies(f *ast.File) {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			fn.Body = nil
		}
	}
}

// moduleRoot is the folder of the main module's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod in %s or above it: run crossvet inside the module", dir)
		}
	}
}
