package shell

import (
	"strings"
	"sync"
)

// grantSpec says how much of a command a session or "Always" grant
// remembers, and which variations it may cover without adding a
// capability. Programs without a spec are remembered word for word.
type grantSpec struct {
	// subs is how many leading operands name what runs and are kept in the
	// fingerprint (go test: 1; go mod tidy: 2; make: every target).
	subs int
	// allSubs: every operand is part of the fingerprint (make targets).
	allSubs bool
	// opts are the options a covered call may carry, per subcommand ("" for
	// options before the subcommand). An option that is missing, or that
	// runs a program, makes the call not grantable; one that reads or
	// writes must stay inside the workspace.
	opts func(sub string) (*optTable, bool)
	// rest: after the fingerprinted operands, operands are data (test
	// names, files) that must only stay inside the workspace.
	rest bool
	// check refuses forms the table cannot express ("" = fine).
	check func(sub string, cl cmdLine) string
}

// goBuildFlags are the build flags shared by go build, test, run, vet,
// list and generate (go help build). -C, -o, -toolexec, -exec, -vettool
// and linker settings are left out: they run programs or write
// elsewhere, so a call with them is asked every time.
const goBuildFlags = `
	-a
	-n
	-p=
	-race
	-msan
	-asan
	-cover
	-covermode=
	-coverpkg=
	-v
	-work
	-x
	-buildmode=
	-buildvcs[=]
	-installsuffix=
	-json
	-linkshared
	-mod=
	-modcacherw
	-modfile= >read
	-overlay= >read
	-pgo= >read
	-tags=
	-trimpath
	-gcflags=`

// goTestFlags are go test's own flags (go help testflag), without -c, -o
// and -exec.
const goTestFlags = `
	-artifacts
	-bench=
	-benchtime=
	-count=
	-cpu=
	-failfast
	-fullpath
	-fuzz=
	-fuzztime=
	-fuzzminimizetime=
	-list=
	-outputdir= >write
	-parallel=
	-run=
	-short
	-shuffle=
	-skip=
	-timeout=
	-vet=
	-benchmem
	-blockprofile= >write
	-blockprofilerate=
	-coverprofile= >write
	-cpuprofile= >write
	-memprofile= >write
	-memprofilerate=
	-mutexprofile= >write
	-mutexprofilefraction=
	-trace= >write
	-args`

// grantSpecs are the programs whose grants cover more than the exact
// words the person saw.
var grantSpecs = sync.OnceValue(func() map[string]grantSpec {
	g := func(spec string) *optTable { return optionTable(styleGoAny, spec) }
	goTables := map[string]*optTable{
		"build":    g(goBuildFlags),
		"test":     g(goBuildFlags + goTestFlags),
		"vet":      g(goBuildFlags),
		"run":      optionTable(styleGo, goBuildFlags), // after the package come the program's own arguments
		"list":     g(goBuildFlags + "\n-m\n-u\n-e\n-f=\n-deps\n-find\n-test\n-compiled\n-export\n-retracted\n-reuse= >read"),
		"generate": g(goBuildFlags + "\n-run=\n-skip="),
		"mod":      g("-v\n-e\n-go=\n-compat=\n-x\n-json"),
		"work":     g("-v\n-e\n-go=\n-json"),
		"fmt":      g("-n\n-x\n-mod="),
		"version":  g("-m\n-v\n-json"),
		"doc":      g("-all\n-c\n-cmd\n-short\n-src\n-u"),
		"get":      g("-d\n-t\n-u[=]\n-v\n-x\n-tool"),
		"clean":    g("-i\n-n\n-r\n-x"),
	}
	gnu := func(spec string) *optTable { return optionTable(styleGNU, spec) }
	cargo := gnu(`
		-q --quiet
		-v --verbose
		--color=
		--offline
		--locked
		--frozen
		--release
		-r
		--profile=
		--all-features
		--no-default-features
		-F= --features=
		-p= --package=
		--workspace --all
		--exclude=
		--lib
		--bins
		--bin=
		--tests
		--test=
		--benches
		--bench=
		--examples
		--example=
		--all-targets
		--doc
		--no-run
		--no-fail-fast
		--keep-going
		-j= --jobs=
		--target=
		--message-format=
		--timings[=]
		--ignore-rust-version
		--future-incompat-report
		--manifest-path= >read
		--target-dir= >write
		--check
		--open >exec
		--no-deps
		--document-private-items`)
	npm := gnu(`
		-s --silent
		-q --quiet
		-d
		--loglevel=
		--if-present
		--ignore-scripts
		--no-audit
		--no-fund
		--no-progress
		--prefer-offline
		--offline
		--legacy-peer-deps
		--strict-peer-deps
		--foreground-scripts
		-w= --workspace= >read
		--workspaces
		--include-workspace-root
		--frozen-lockfile
		--immutable
		--prod --production
		--omit=
		--include=`)
	make := gnu(`
		#digits
		-j[=] --jobs[=]
		-k --keep-going
		-s --silent --quiet
		-B --always-make
		-n --just-print --dry-run --recon
		-q --question
		-w --print-directory
		--no-print-directory
		-O[=] --output-sync[=]
		-l[=] --load-average[=]
		-r --no-builtin-rules
		-R --no-builtin-variables
		-i --ignore-errors
		-t --touch
		--warn-undefined-variables
		-d
		--debug[=]
		--trace`)
	python := optionTable(stylePOSIX, `
		-u
		-B
		-O
		-OO
		-b
		-I
		-s
		-S
		-v
		-q
		-W=
		-X=
		-P
		-m=`)
	node := optionTable(stylePOSIX, `
		--no-warnings
		--enable-source-maps
		--trace-warnings
		--trace-uncaught
		--max-old-space-size=
		--test
		--experimental-vm-modules`)
	pytest := gnu(`
		-x --exitfirst
		-v --verbose
		-vv
		-q --quiet
		-s
		--capture=
		-k=
		-m=
		--maxfail=
		--tb=
		-r=
		-l --showlocals
		--lf --last-failed
		--ff --failed-first
		--nf --new-first
		--sw --stepwise
		--co --collect-only
		--durations=
		--no-header
		--no-summary
		-n=
		--color=
		--strict-markers
		-W= --pythonwarnings=
		--import-mode=
		--basetemp= >write
		--junitxml= >write
		--junit-xml= >write
		--cov[=]
		--cov-report=
		--deselect=
		--ignore= >read
		--runxfail
		--doctest-modules`)
	mkdir := gnu(`
		-p --parents
		-v --verbose
		-m= --mode=`)
	touch := gnu(`
		-a
		-c --no-create
		-m
		-d= --date=
		-r= --reference= >read
		-t=`)
	return map[string]grantSpec{
		"go": {subs: 1, rest: true, check: goGrantCheck, opts: func(sub string) (*optTable, bool) {
			t, ok := goTables[sub]
			return t, ok
		}},
		"cargo": {subs: 1, rest: true, check: cargoGrantCheck, opts: func(sub string) (*optTable, bool) {
			switch sub {
			case "", "build", "b", "test", "t", "check", "c", "clippy", "fmt", "doc", "bench", "run", "r", "tree", "metadata", "update":
				return cargo, true
			}
			return nil, false
		}},
		"npm":   {subs: 1, rest: false, check: npmGrantCheck, opts: npmOpts(npm)},
		"pnpm":  {subs: 1, check: npmGrantCheck, opts: npmOpts(npm)},
		"yarn":  {subs: 1, check: npmGrantCheck, opts: npmOpts(npm)},
		"bun":   {subs: 1, check: npmGrantCheck, opts: npmOpts(npm)},
		"npx":   {subs: 1, rest: true, opts: func(string) (*optTable, bool) { return gnu("-y --yes\n--no\n-q --quiet"), true }},
		"make":  {allSubs: true, check: makeGrantCheck, opts: func(string) (*optTable, bool) { return make, true }},
		"gmake": {allSubs: true, check: makeGrantCheck, opts: func(string) (*optTable, bool) { return make, true }},
		"python": {rest: true, check: scriptGrantCheck, opts: func(string) (*optTable, bool) {
			return python, true
		}},
		"node":   {rest: true, check: scriptGrantCheck, opts: func(string) (*optTable, bool) { return node, true }},
		"pytest": {rest: true, opts: func(string) (*optTable, bool) { return pytest, true }},
		"mkdir":  {rest: true, opts: func(string) (*optTable, bool) { return mkdir, true }},
		"touch":  {rest: true, opts: func(string) (*optTable, bool) { return touch, true }},
		"git":    {subs: 1, rest: true, check: gitGrantCheck, opts: gitGrantOpts},
	}
})

// npmOpts: the package managers' script and install subcommands.
func npmOpts(t *optTable) func(string) (*optTable, bool) {
	return func(sub string) (*optTable, bool) {
		switch sub {
		case "", "run", "run-script", "test", "t", "ci", "install", "i", "build", "start", "lint", "exec", "x":
			return t, true
		}
		return nil, false
	}
}

// goGrantCheck: linker and compiler settings that run other programs,
// cleaning caches outside the workspace, go env -w and go tool.
func goGrantCheck(sub string, cl cmdLine) string {
	for _, o := range cl.opts {
		if o.name == "-gcflags" && (strings.Contains(o.val, "-extld") || strings.Contains(o.val, "-linkmode")) {
			return "-gcflags with linker settings can run another program"
		}
	}
	if sub == "mod" || sub == "work" {
		if len(cl.operands) == 0 {
			return "go " + sub + " needs a subcommand"
		}
		switch cl.operands[0] {
		case "tidy", "download", "graph", "why", "verify", "init", "sync", "use", "vendor":
		default:
			return "go " + sub + " " + cl.operands[0] + " is asked every time"
		}
	}
	return ""
}

func cargoGrantCheck(sub string, cl cmdLine) string {
	if sub == "" {
		return "cargo needs a subcommand"
	}
	return ""
}

// npmGrantCheck: script names are part of the fingerprint; installing
// named packages is asked each time.
func npmGrantCheck(sub string, cl cmdLine) string {
	switch sub {
	case "":
		return "a subcommand is needed"
	case "install", "i", "add":
		if len(cl.operands) > 0 {
			return "installing named packages runs their install scripts; it is asked every time"
		}
	}
	return ""
}

// makeGrantCheck: make VAR=value replaces any recipe's commands.
func makeGrantCheck(_ string, cl cmdLine) string {
	for _, o := range cl.operands {
		if strings.Contains(o, "=") {
			return "make VAR=value can change what every recipe runs"
		}
	}
	return ""
}

// scriptGrantCheck: an interpreter's grant names its script.
func scriptGrantCheck(sub string, cl cmdLine) string {
	if sub == "" || sub == "-" {
		return "the program comes from standard input"
	}
	return ""
}
