package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// The safe forms of the built-in servers: what each gets in a workspace
// folder the person has not trusted so that it runs no code from it (on
// top of the cleaned PATH and the program check of trust.go). Each form
// records in s.code what the full form would run from the folder, which
// is what the person is asked about.
var safeForms = map[string]func(s *safeStart) error{
	"gopls":                      safeGopls,
	"pyright":                    safePyright,
	"typescript-language-server": safeTypeScript,
	"rust-analyzer":              safeRust,
	"clangd":                     safeClangd,
}

// safeGopls: GOTOOLCHAIN=local, so a go.mod or go.work `toolchain` (or a
// newer `go`) line cannot make the go command that gopls runs download and
// run another toolchain. go list, which gopls runs, runs no code of the
// module otherwise: no go:generate, no tests, no build; cgo files are
// preprocessed by the C compiler of the user's environment, with the flags
// the go command's allowlist admits.
func safeGopls(s *safeStart) error {
	s.l.env["GOTOOLCHAIN"] = "local"
	for _, name := range []string{"go.work", "go.mod"} {
		if v := goDirective(filepath.Join(s.root, name), "toolchain"); v != "" {
			s.code = append(s.code, fmt.Sprintf("the Go toolchain %s that %s names (the go command would download and run it)", v, s.rel(filepath.Join(s.root, name))))
			s.meanwhile = "Until you do, gopls runs with your installed Go (GOTOOLCHAIN=local)."
			break
		}
	}
	return nil
}

// goDirective is the argument of the first `name` line of a go.mod or
// go.work file, or "".
func goDirective(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == name {
			return fields[1]
		}
	}
	return ""
}

// safePyright: python.pythonPath names an interpreter outside the folder.
// pyright runs the interpreter to learn its search paths; without a
// setting it runs `python3` from PATH, which an activated virtual
// environment inside the repository would supply.
func safePyright(s *safeStart) error {
	settings := asMap(s.l.settings)
	python := asMap(settings["python"])
	s.dropInside(python, "pythonPath", "the Python interpreter %s that python.pythonPath names")
	for _, name := range []string{"python3", "python"} {
		if full := lookIn(name, s.fullPath, s.root); full != "" {
			if s.g.Inside(full) {
				s.code = append(s.code, fmt.Sprintf("the Python interpreter %s from this repository, which pyright runs to find its search paths", s.rel(full)))
			}
			break
		}
	}
	if _, set := python["pythonPath"]; !set {
		if py := s.m.outsidePython(s); py != "" {
			python["pythonPath"] = py
			s.meanwhile = "Until you do, pyright uses " + py + "."
		}
	}
	settings["python"] = python
	s.l.settings = settings
	return nil
}

// outsidePython is the interpreter pyright gets in an untrusted folder:
// python3 (else python) on the cleaned PATH, asked from outside the
// workspace for its real executable (a pyenv shim would otherwise pick a
// version from the project's .python-version). "" when there is none.
func (m *Manager) outsidePython(s *safeStart) string {
	m.pyMu.Lock()
	defer m.pyMu.Unlock()
	if py, ok := m.python[s.path]; ok && (py == "" || !s.g.Inside(py)) {
		return py
	}
	py := ""
	for _, name := range []string{"python3", "python"} {
		if py = s.g.Program(name, s.path); py != "" {
			break
		}
	}
	if py != "" {
		out, err := m.probe(py, map[string]string{"PATH": s.path}, "-I", "-c", "import sys; print(sys.executable)")
		if real := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(real) && proc.Executable(real) && !s.g.Inside(real) {
			py = real
		}
	}
	m.python[s.path] = py
	return py
}

// tsModuleFolders are where typescript-language-server looks for a
// project's own TypeScript, from the project root upwards.
var tsModuleFolders = []string{"node_modules/typescript/lib", ".vscode/pnpify/typescript/lib", ".yarn/sdks/typescript/lib"}

// safeTypeScript: initializationOptions.tsserver.path names a TypeScript
// outside the folder (without it typescript-language-server runs the
// project's node_modules/typescript/lib/tsserver.js, and that tsserver
// loads the tsconfig's plugins from the project), automatic type
// acquisition (npm installs the project's dependencies pick) is off, and
// plugins, npm and the fallback tsserver from inside the folder are
// dropped.
func safeTypeScript(s *safeStart) error {
	init := asMap(s.l.init)
	ts := asMap(init["tsserver"])
	s.dropInside(ts, "path", "the TypeScript that tsserver.path names (%s)")
	s.dropInside(ts, "fallbackPath", "the TypeScript that tsserver.fallbackPath names (%s)")
	s.dropInside(init, "npmLocation", "the npm that npmLocation names (%s)")
	if plugins, ok := init["plugins"].([]any); ok {
		kept := plugins[:0]
		for _, p := range plugins {
			if loc, _ := asMap(p)["location"].(string); loc != "" && s.g.Inside(loc) {
				s.code = append(s.code, fmt.Sprintf("the tsserver plugin in %s", s.rel(loc)))
				continue
			}
			kept = append(kept, p)
		}
		init["plugins"] = kept
	}
	for dir := s.root; within(s.folder, dir); dir = filepath.Dir(dir) {
		found := ""
		for _, mod := range tsModuleFolders {
			if p := filepath.Join(dir, filepath.FromSlash(mod), "tsserver.js"); fileExists(p) {
				found = p
				break
			}
		}
		if found != "" {
			s.code = append(s.code, fmt.Sprintf("this repository's TypeScript (%s)", s.rel(found)))
			break
		}
		if dir == s.folder {
			break
		}
	}
	init["disableAutomaticTypingAcquisition"] = true
	if _, set := ts["path"]; !set {
		global := globalTSServer(s.l.argv[0], s.path, s.g)
		if global == "" {
			s.meanwhile = "Until you do, typescript-language-server does not start: install TypeScript globally (`npm i -g typescript`) for the form that runs nothing from the folder."
			return s.untrusted("no TypeScript is installed outside the folder (install one with `npm i -g typescript`), and typescript-language-server would run the repository's own")
		}
		ts["path"] = global
		s.meanwhile = "Until you do, it uses the TypeScript installed globally (" + global + ")."
	}
	init["tsserver"] = ts
	s.l.init = init
	return nil
}

// globalTSServer finds the tsserver.js typescript-language-server would
// load without a project: the typescript package next to the server's own
// (node's resolution from its real file), else the one behind a tsserver
// program on the cleaned PATH. "" when there is none outside the folder.
func globalTSServer(program, pathList string, g proc.Guard) string {
	ok := func(p string) bool {
		return fileExists(p) && fileExists(filepath.Join(filepath.Dir(filepath.Dir(p)), "package.json")) && !g.Inside(p)
	}
	if real, err := filepath.EvalSymlinks(program); err == nil {
		for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
			if filepath.Base(dir) != "node_modules" {
				if p := filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js"); ok(p) {
					return p
				}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	if bin := g.Program("tsserver", pathList); bin != "" {
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			if p := filepath.Join(filepath.Dir(filepath.Dir(real)), "lib", "tsserver.js"); ok(p) {
				return p
			}
		}
	}
	return ""
}

// rustBlockers are files that can make cargo, rustup or rust-analyzer run
// programs the repository chooses (a rustc wrapper, a credential provider,
// a toolchain by path, rust-analyzer settings that switch build scripts
// back on): with one of them there is no safe form.
var rustBlockers = []string{".cargo/config.toml", ".cargo/config", "rust-toolchain.toml", "rust-toolchain", "rust-analyzer.toml", ".rust-analyzer.toml"}

// maxRustScan bounds the walk for rustBlockers; a larger tree counts as
// holding one.
const maxRustScan = 20000

// safeRust: no build scripts, no procedural macros, no cargo check on save
// (in initializationOptions and in the answers to workspace/configuration).
// rust-analyzer still runs `cargo metadata`, which reads the manifests and
// runs nothing of the project unless a cargo, rustup or rust-analyzer
// config file in the tree says otherwise.
func safeRust(s *safeStart) error {
	if f := findRustBlocker(s.root, s.folder); f != "" {
		s.code = append(s.code, fmt.Sprintf("the programs %s can make cargo or rust-analyzer run", s.rel(f)))
		return s.untrusted(fmt.Sprintf("%s can make cargo or rust-analyzer run programs from this repository", s.rel(f)))
	}
	safe := map[string]any{
		"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}},
		"procMacro":   map[string]any{"enable": false},
		"checkOnSave": false,
	}
	s.l.init = deepMerge(asMap(s.l.init), safe)
	settings := asMap(s.l.settings)
	settings["rust-analyzer"] = deepMerge(asMap(settings["rust-analyzer"]), safe)
	s.l.settings = settings
	s.code = append(s.code, "the project's build scripts and procedural macros, and cargo check on save")
	s.meanwhile = "Until you do, rust-analyzer runs without build scripts, procedural macros and check on save."
	return nil
}

// findRustBlocker returns the first rustBlockers file in the folders from
// root up to folder, or anywhere below root; "" when there is none.
func findRustBlocker(root, folder string) string {
	for dir := root; within(folder, dir); dir = filepath.Dir(dir) {
		for _, b := range rustBlockers {
			if p := filepath.Join(dir, filepath.FromSlash(b)); fileExists(p) {
				return p
			}
		}
		if dir == folder {
			break
		}
	}
	found, n := "", 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxRustScan {
			found = filepath.Join(root, "(more files than agentls checks)")
			return filepath.SkipAll
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "target", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		for _, b := range rustBlockers {
			if strings.HasSuffix(filepath.ToSlash(p), "/"+b) {
				found = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// safeClangd: no --query-driver. With it clangd runs the compilers that a
// compile_commands.json names, when they match its globs, to learn their
// include paths; the repository writes that file.
func safeClangd(s *safeStart) error {
	argv := []string{s.l.argv[0]}
	dropped := false
	for i := 1; i < len(s.l.argv); i++ {
		a := s.l.argv[i]
		switch {
		case a == "--query-driver" || a == "-query-driver":
			dropped = true
			i++
		case strings.HasPrefix(a, "--query-driver=") || strings.HasPrefix(a, "-query-driver="):
			dropped = true
		default:
			argv = append(argv, a)
		}
	}
	s.l.argv = argv
	if dropped {
		s.code = append(s.code, "the compilers this repository's compile_commands.json names (clangd runs those matching --query-driver)")
		s.meanwhile = "Until you do, clangd runs without --query-driver."
	}
	return nil
}

// dropInside deletes the setting m[key] when it is a path inside an
// untrusted folder, and records what it named (what holds a %s for it).
func (s *safeStart) dropInside(m map[string]any, key, what string) {
	if p, _ := m[key].(string); p != "" && s.g.Inside(p) {
		s.code = append(s.code, fmt.Sprintf(what, s.rel(p)))
		delete(m, key)
	}
}

// asMap is a deep copy of v as a JSON object (an empty one when v is not
// an object).
func asMap(v any) map[string]any {
	if m, ok := normalize(v).(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// deepMerge sets over's values into base, object by object.
func deepMerge(base, over map[string]any) map[string]any {
	for k, v := range over {
		if vm, ok := v.(map[string]any); ok {
			base[k] = deepMerge(asMap(base[k]), vm)
			continue
		}
		base[k] = v
	}
	return base
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// probe runs prog with args (confined like the servers, with extra added
// to its environment) for at most 5 s and returns its standard output.
func (m *Manager) probe(prog string, extra map[string]string, args ...string) ([]byte, error) {
	l, err := m.sandbox.Launch(prog, extra)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = os.TempDir()
	cmd.Env = l.Env
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := l.Start(cmd); err != nil {
		return nil, err
	}
	err = cmd.Wait()
	return out.Bytes(), err
}
