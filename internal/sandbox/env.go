package sandbox

import (
	"os"
	"path"
	"strings"
)

// envAllowed are the variables (exact names or NAME* prefixes) a program
// agentls starts may receive: what builds, tests and language servers
// need, and nothing that usually holds a credential.
var envAllowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "LC_*", "COLUMNS", "LINES", "NO_COLOR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	// Toolchains.
	"GO*", "CGO_*", "CC", "CXX", "CPP", "AR", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
	"CPATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "MAKEFLAGS",
	"NODE_*", "NVM_DIR", "NVM_BIN", "npm_config_*", "NPM_CONFIG_*", "COREPACK_*",
	"PYTHON*", "VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PIP_CACHE_DIR", "UV_CACHE_DIR",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "CARGO_TARGET_DIR",
	"JAVA_HOME", "GRADLE_USER_HOME", "MAVEN_OPTS",
}

// secretWords mark a variable name as a credential even when a prefix
// above allows it (NODE_AUTH_TOKEN, npm_config__authToken, GOPROXY is
// fine but GONOSUMDB_TOKEN is not).
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "KEY", "COOKIE", "SESSION"}

// EnvAllowList is the list programs may receive: the built-in entries and
// extra (the user's sandbox.env), in the NAME or NAME* form.
func EnvAllowList(extra []string) []string {
	return append(append([]string(nil), envAllowed...), extra...)
}

// EnvAllowed reports whether a variable may reach a program: it matches
// the built-in list without a credential word in its name, or it matches
// extra (the person's own list, which may name anything).
func EnvAllowed(name string, extra []string) bool {
	if matchAny(extra, name) {
		return true
	}
	if !matchAny(envAllowed, name) {
		return false
	}
	u := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(u, w) {
			return false
		}
	}
	return true
}

// FilterEnv keeps the NAME=value entries of env that EnvAllowed lets
// through.
func FilterEnv(env []string, extra []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if ok && name != "" && EnvAllowed(name, extra) {
			out = append(out, kv)
		}
	}
	return out
}

// matchAny reports whether name matches one of the NAME / NAME* entries.
func matchAny(list []string, name string) bool {
	for _, p := range list {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Env is the environment of a program the sandbox starts: the
// allow-listed variables of the base environment, TMPDIR (and TMP, TEMP)
// at the session's folder, and, when programs are confined and have a
// network, the proxy variables carrying token (Proxy.Register). A nil
// sandbox gives the allow-listed os.Environ().
func (s *Sandbox) Env(token string) []string {
	if s == nil {
		return FilterEnv(os.Environ(), nil)
	}
	base := s.opts.Environ
	if base == nil {
		base = os.Environ()
	}
	env := FilterEnv(base, s.opts.EnvAllow)
	if t := s.opts.TempDir; t != "" {
		env = setEnv(env, "TMPDIR", t)
		env = setEnv(env, "TMP", t)
		env = setEnv(env, "TEMP", t)
	}
	if s.gitConfig != "" {
		env = setEnv(env, "GIT_CONFIG_GLOBAL", s.gitConfig)
	}
	for _, kv := range ProxyEnv(s.ProxyURL(), token) {
		k, v, _ := strings.Cut(kv, "=")
		env = setEnv(env, k, v)
	}
	return env
}

// setEnv sets name=value in env, replacing an entry of that name.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
