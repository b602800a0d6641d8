package shell

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentls/agentls/internal/sandbox"
)

// GrantEnv is a digest of what shapes a granted program beyond the words
// the person saw: the environment variables it reads and the
// configuration files it finds from its folder (GOFLAGS and the go env
// file, .npmrc and package.json's scripts, the makefile, cargo's config,
// pytest's). A grant is kept with it and lapses when it changes: after
// `go env -w GOFLAGS=-toolexec=./evil.sh`, "Allow go test" no longer
// covers go test. It is "" for a verdict without a fingerprint and for
// programs with no such environment known here. A file that cannot be
// read makes a digest no grant matches.
func GrantEnv(v Verdict, o JudgeOptions) string {
	if v.Fingerprint == "" || o.Dir == "" || len(v.Commands) != 1 {
		return ""
	}
	prog, _, _ := strings.Cut(v.Fingerprint, " ")
	fam := family(cmdName(prog))
	shape, ok := grantShapeOf(fam)
	if !ok {
		return ""
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	e := envLookup(env)
	home := o.Home
	if home == "" {
		home = e.get("HOME")
	}
	d := newEnvDigest(fam)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); shape.env(name) && !secretName(name) {
			d.env(kv)
		}
	}
	words := v.Commands[0]
	for i, w := range words {
		if family(cmdName(w)) == fam {
			words = words[i+1:]
			break
		}
	}
	shape.files(d, grantPlace{dir: filepath.Clean(o.Dir), home: home, env: e, args: words})
	return d.sum()
}

// grantPlace is where a granted program runs and what it finds there.
type grantPlace struct {
	dir, home string
	env       envLookup
	args      []string // the words after the program
}

// grantShape is what shapes one program family: which variables, and
// which files it reads.
type grantShape struct {
	env   func(name string) bool
	files func(d *envDigest, p grantPlace)
}

// grantShapeOf is what shapes the programs whose grants are bound to
// their environment: the build and test tools a person grants for a
// session.
func grantShapeOf(fam string) (grantShape, bool) {
	npm := prefixes("npm_config_", "NPM_CONFIG_", "NODE_", "COREPACK_", "YARN_", "PNPM_", "BUN_", "=PATH")
	python := prefixes("PYTEST_", "PYTHON", "=VIRTUAL_ENV", "=CONDA_PREFIX", "=PATH")
	switch fam {
	case "go":
		return grantShape{env: prefixes("GO", "CGO_", "=CC", "=CXX", "=FC", "=AR", "=PKG_CONFIG", "=PATH"), files: goFiles}, true
	case "npm", "pnpm", "yarn", "bun", "npx":
		return grantShape{env: npm, files: npmFiles}, true
	case "node":
		return grantShape{env: prefixes("NODE_", "=PATH"), files: func(*envDigest, grantPlace) {}}, true
	case "make", "gmake":
		// make reads every variable it receives as a make variable: every
		// one the environment passes to programs (sandbox.EnvAllowed), but
		// the session's own temporary folder.
		return grantShape{env: func(name string) bool {
			return (sandbox.EnvAllowed(name, nil) || strings.HasPrefix(name, "MAKE")) && name != "TMPDIR" && name != "TMP" && name != "TEMP"
		}, files: makeFiles}, true
	case "cargo":
		return grantShape{env: prefixes("CARGO_", "RUSTC", "RUSTFLAGS", "RUSTDOC", "RUSTUP_", "=CC", "=CXX", "=AR", "=CFLAGS", "=CXXFLAGS", "=PATH"),
			files: cargoFiles}, true
	case "pytest", "python":
		return grantShape{env: python, files: pytestFiles}, true
	}
	return grantShape{}, false
}

// prefixes matches variable names by prefix, or exactly for "=NAME".
func prefixes(list ...string) func(string) bool {
	return func(name string) bool {
		for _, p := range list {
			if exact, ok := strings.CutPrefix(p, "="); ok && name == exact || !ok && strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
}

// secretName: a credential shapes no program; it is not hashed.
func secretName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// goFiles: the go env file (go env -w writes it), go.work.
func goFiles(d *envDigest, p grantPlace) {
	if f := goEnvFile(p); f != "" {
		d.file(f)
	}
	switch w := p.env.get("GOWORK"); w {
	case "off":
	case "":
		d.nearest(p.dir, "go.work")
	default:
		d.file(w)
	}
}

// goEnvFile is where go env -w writes: $GOENV, else the user's config
// folder's go/env, as go computes it from the command's environment.
func goEnvFile(p grantPlace) string {
	switch v := p.env.get("GOENV"); v {
	case "off":
		return ""
	case "":
	default:
		return v
	}
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = p.env.get("AppData")
	case "darwin", "ios":
		if p.home != "" {
			dir = filepath.Join(p.home, "Library", "Application Support")
		}
	case "plan9":
		if p.home != "" {
			dir = filepath.Join(p.home, "lib")
		}
	default:
		dir = p.env.get("XDG_CONFIG_HOME")
		if !filepath.IsAbs(dir) && p.home != "" {
			dir = filepath.Join(p.home, ".config")
		}
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "go", "env")
}

// npmFiles: every .npmrc (and yarn, pnpm, bun settings) from the folder
// up and in the home, the user config a variable names, and the scripts
// of the package.json that runs (the nearest, and the workspaces -w
// names).
func npmFiles(d *envDigest, p grantPlace) {
	names := []string{".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".pnpmfile.cjs", "pnpm-workspace.yaml"}
	d.upward(p.dir, names...)
	for _, n := range []string{".npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml"} {
		if p.home != "" {
			d.file(filepath.Join(p.home, n))
		}
	}
	for _, v := range []string{"npm_config_userconfig", "NPM_CONFIG_USERCONFIG", "npm_config_globalconfig", "NPM_CONFIG_GLOBALCONFIG"} {
		if f := p.env.get(v); f != "" {
			d.file(f)
		}
	}
	root, patterns := d.nearestScripts(p.dir)
	if root == "" {
		return
	}
	named, all := workspaceArgs(p.args)
	if all {
		named = patterns
	}
	for _, w := range named {
		matches, _ := filepath.Glob(filepath.Join(root, w, "package.json"))
		for _, m := range matches {
			d.scripts(m)
		}
	}
}

// workspaceArgs are the folders named by -w/--workspace, and whether
// --workspaces (-ws) runs every workspace.
func workspaceArgs(args []string) (named []string, all bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return named, all
		case a == "--workspaces" || a == "-ws" || strings.HasPrefix(a, "--workspaces="):
			all = true
		case a == "-w" || a == "--workspace":
			if i+1 < len(args) {
				i++
				named = append(named, args[i])
			}
		case strings.HasPrefix(a, "--workspace="):
			named = append(named, a[len("--workspace="):])
		case strings.HasPrefix(a, "-w"):
			named = append(named, strings.TrimPrefix(a[2:], "="))
		}
	}
	return named, all
}

// makeFiles: the makefile make picks in the folder and what it includes.
func makeFiles(d *envDigest, p grantPlace) {
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		d.makefile(filepath.Join(p.dir, n), p.dir, 0)
	}
	for _, f := range strings.Fields(p.env.get("MAKEFILES")) {
		d.makefile(resolveIn(p.dir, f), p.dir, 0)
	}
}

// cargoFiles: .cargo/config(.toml) from the folder up and in CARGO_HOME,
// and the toolchain files (a path toolchain runs any compiler).
func cargoFiles(d *envDigest, p grantPlace) {
	d.upward(p.dir, filepath.Join(".cargo", "config"), filepath.Join(".cargo", "config.toml"), "rust-toolchain", "rust-toolchain.toml")
	home := p.env.get("CARGO_HOME")
	if home == "" && p.home != "" {
		home = filepath.Join(p.home, ".cargo")
	}
	if home != "" {
		d.file(filepath.Join(home, "config"))
		d.file(filepath.Join(home, "config.toml"))
	}
}

// pytestFiles: pytest's configuration files from the folder up (it
// looks upward for its rootdir) and the folder's conftest.py.
func pytestFiles(d *envDigest, p grantPlace) {
	d.upward(p.dir, "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
	d.file(filepath.Join(p.dir, "conftest.py"))
}

// resolveIn makes p absolute against dir.
func resolveIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// envLookup reads NAME=value lists; the last entry wins, as in exec,
// and names are compared as the system does (without case on Windows).
type envLookup []string

func (e envLookup) get(name string) string {
	for i := len(e) - 1; i >= 0; i-- {
		k, v, _ := strings.Cut(e[i], "=")
		if k == name || runtime.GOOS == "windows" && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
