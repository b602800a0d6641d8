package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Machine is what DefaultPolicy needs to know about this machine and its
// person; tests fill it in, NewMachine reads it.
type Machine struct {
	Home   string
	Getenv func(string) string
	// LookPath finds a program on PATH.
	LookPath func(string) (string, error)
	GOOS     string
}

// DefaultPolicy is the policy of a session over roots with its own
// temporary folder tmp: roots and tmp writable, the system's folders and
// the toolchains readable, the named caches builds need writable, and the
// home folder otherwise out of reach (~/.ssh, ~/.aws, ~/.gitconfig,
// ~/.docker, ~/.npmrc, other users' homes). readable and writable are the
// person's own additions (sandbox.readable, sandbox.writable); a leading
// ~ means the home folder.
func DefaultPolicy(m Machine, roots []string, tmp string, readable, writable []string) Policy {
	home := m.Home
	env := m.Getenv
	if env == nil {
		env = func(string) string { return "" }
	}
	var read, write []string
	addR := func(ps ...string) {
		for _, p := range ps {
			if p = expandHome(p, home); p != "" && filepath.IsAbs(p) {
				read = append(read, filepath.Clean(p))
			}
		}
	}
	addW := func(ps ...string) {
		for _, p := range ps {
			if p = expandHome(p, home); p != "" && filepath.IsAbs(p) {
				write = append(write, filepath.Clean(p))
			}
		}
	}
	goos := m.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	m.Getenv, m.GOOS = env, goos
	switch goos {
	case "darwin":
		addR("/usr", "/bin", "/sbin", "/System", "/Library", "/Applications/Xcode.app",
			"/opt", "/private/etc", "/etc", "/dev", "/private/var/db/timezone", "/var/db/timezone",
			"/usr/local", "/opt/homebrew", "/nix")
	default:
		addR("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
			"/nix/store", "/run/current-system", "/snap", "/proc", "/sys",
			"/dev/random", "/dev/urandom")
	}
	addW(roots...)
	addW(tmp)

	// Toolchains, read.
	addR(env("GOROOT"), "~/sdk", "~/go/bin", "~/.pyenv", env("PYENV_ROOT"), "~/.nvm", env("NVM_DIR"),
		"~/.local/bin", "~/.local/lib", "~/.rustup", env("RUSTUP_HOME"), "~/.cargo/bin", "~/.bun/bin",
		"~/.local/share/nvim/mason", "~/.local/share/uv/python", goEnvFolder(m), env("JAVA_HOME"),
		"~/.deno/bin", "~/.volta", "~/.sdkman/candidates", "~/miniconda3", "~/anaconda3", "~/.conda/envs")
	if p := env("GOPATH"); p != "" {
		for _, g := range filepath.SplitList(p) {
			addR(filepath.Join(g, "bin"))
		}
	}
	if cargo := env("CARGO_HOME"); cargo != "" {
		addR(filepath.Join(cargo, "bin"))
		addW(filepath.Join(cargo, "registry"), filepath.Join(cargo, "git"))
	}
	for _, prog := range []string{"go", "node", "python3", "python", "cargo", "java", "gopls", "clangd"} {
		addR(installPrefix(m, prog))
	}

	// Caches builds and language servers write, each one named, in the
	// cache folder the programs use (XDG_CACHE_HOME, else the usual one).
	addW(goCaches(m)...)
	caches := []string{"~/.cache"}
	if x := env("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		caches = []string{x}
	}
	if goos == "darwin" {
		caches = append(caches, "~/Library/Caches")
	}
	for _, c := range caches {
		for _, name := range []string{"go-build", "gopls", "pip", "uv", "yarn", "Yarn", "pnpm", "typescript",
			"clangd", "pyright-python", "node-gyp", "ms-playwright"} {
			addW(filepath.Join(c, name))
		}
	}
	addW("~/.npm", env("npm_config_cache"), env("PIP_CACHE_DIR"), env("UV_CACHE_DIR"),
		"~/.yarn/berry/cache", "~/.local/share/pnpm/store",
		"~/.cargo/registry", "~/.cargo/git", "~/.m2/repository", "~/.gradle/caches", "~/.gradle/wrapper",
		"~/.bun/install/cache")
	addR(readable...)
	addW(writable...)
	return Policy{Read: read, Write: write, Network: true}
}

// goEnvFolder is where `go env -w` keeps its settings, which go reads.
func goEnvFolder(m Machine) string {
	if f := m.Getenv("GOENV"); filepath.IsAbs(f) {
		return f
	}
	if x := m.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "go")
	}
	if m.GOOS == "darwin" {
		return "~/Library/Application Support/go"
	}
	return "~/.config/go"
}

// goCaches are Go's build and module caches, from the environment or
// their defaults.
func goCaches(m Machine) []string {
	env := m.Getenv
	out := []string{env("GOCACHE"), env("GOMODCACHE")}
	if env("GOMODCACHE") == "" {
		gopath := env("GOPATH")
		if gopath == "" && m.Home != "" {
			gopath = filepath.Join(m.Home, "go")
		}
		if gopath != "" {
			out = append(out, filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod"))
		}
	}
	return out
}

// installPrefix is the folder a program on PATH was installed under
// (programFolder) when it lies in the home folder, so toolchains installed
// there (~/sdk/go1.26, ~/.nvm/versions/node/v22) stay readable; ""
// otherwise: the system folders are readable anyway.
func installPrefix(m Machine, prog string) string {
	if m.LookPath == nil || m.Home == "" {
		return ""
	}
	p, err := m.LookPath(prog)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !within(m.Home, real) {
		return ""
	}
	return programFolder(m.Home, real)
}

// programFolder is the folder to make readable for a program installed at
// real: its installation prefix (the parent of its bin folder), or its own
// folder when that prefix would be too wide — the root, the home folder or
// a folder directly in it (~/.cargo holds credentials.toml beside bin).
func programFolder(home, real string) string {
	dir := filepath.Dir(real)
	prefix := filepath.Dir(dir)
	if prefix == filepath.Dir(prefix) || home != "" && (within(prefix, home) || filepath.Dir(prefix) == home) {
		return dir
	}
	return prefix
}

// expandHome replaces a leading ~ with home ("" when home is unknown).
func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[1:])
	}
	return p
}

// NewMachine reads this machine: the home folder, the environment and
// PATH lookups.
func NewMachine() Machine {
	home, _ := os.UserHomeDir()
	return Machine{Home: home, Getenv: os.Getenv, GOOS: runtime.GOOS, LookPath: lookPath}
}

// lookPath finds a program on PATH.
func lookPath(prog string) (string, error) { return exec.LookPath(prog) }

// PrepareCaches makes the build caches of the toolchains on PATH that do
// not exist yet (Go's build, module and gopls caches), so the sandbox can
// grant them: a folder that is missing when programs are confined cannot be
// made later by them, since its parent is not writable.
func PrepareCaches(m Machine) {
	if m.LookPath == nil || m.Home == "" {
		return
	}
	if _, err := m.LookPath("go"); err == nil {
		env := m.Getenv
		cache := env("GOCACHE")
		if cache == "" {
			if dir, err := os.UserCacheDir(); err == nil {
				cache = filepath.Join(dir, "go-build")
			}
		}
		for _, d := range append(goCaches(m), cache) {
			if d != "" && filepath.IsAbs(d) && d != "off" {
				_ = os.MkdirAll(d, 0o755)
			}
		}
		if dir, err := os.UserCacheDir(); err == nil {
			_ = os.MkdirAll(filepath.Join(dir, "gopls"), 0o755)
		}
	}
}
