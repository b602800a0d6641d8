package sandbox

import (
	"slices"
	"testing"
)

func TestEnvAllowed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		want  bool
	}{
		{"PATH", nil, true},
		{"HOME", nil, true},
		{"LC_ALL", nil, true},
		{"GOFLAGS", nil, true},
		{"GOPROXY", nil, true},
		{"CGO_ENABLED", nil, true},
		{"NODE_OPTIONS", nil, true},
		{"npm_config_cache", nil, true},
		{"PYTHONPATH", nil, true},
		{"VIRTUAL_ENV", nil, true},
		{"GITHUB_TOKEN", nil, false},
		{"GH_TOKEN", nil, false},
		{"AWS_SECRET_ACCESS_KEY", nil, false},
		{"AWS_ACCESS_KEY_ID", nil, false},
		{"OPENAI_API_KEY", nil, false},
		{"ANTHROPIC_API_KEY", nil, false},
		{"NPM_TOKEN", nil, false},
		{"NODE_AUTH_TOKEN", nil, false},
		{"npm_config__authToken", nil, false},
		{"npm_config_//registry.npmjs.org/:_authToken", nil, false},
		{"GOPROXY_PASSWORD", nil, false},
		{"GO_SECRET", nil, false},
		{"PYTHON_KEYRING_BACKEND", nil, false},
		{"SSH_AUTH_SOCK", nil, false},
		{"DOCKER_HOST", nil, false},
		{"KUBECONFIG", nil, false},
		{"DBUS_SESSION_BUS_ADDRESS", nil, false},
		{"AGENTLS_MODEL", nil, false},
		{"DATABASE_URL", nil, false},
		{"GITHUB_TOKEN", []string{"GITHUB_TOKEN"}, true},
		{"MY_TOOL_HOME", []string{"MY_TOOL_*"}, true},
		{"NPM_TOKEN", []string{"MY_TOOL_*"}, false},
	} {
		if got := EnvAllowed(tc.name, tc.extra); got != tc.want {
			t.Errorf("EnvAllowed(%q, %v) = %v, want %v", tc.name, tc.extra, got, tc.want)
		}
	}
}

func TestFilterEnv(t *testing.T) {
	got := FilterEnv([]string{"PATH=/bin", "GITHUB_TOKEN=x", "=weird", "NOEQUALS", "LANG=C", "AWS_SECRET_ACCESS_KEY=y"}, nil)
	if want := []string{"PATH=/bin", "LANG=C"}; !slices.Equal(got, want) {
		t.Errorf("FilterEnv = %q, want %q", got, want)
	}
}

// TestEnvOfNilSandbox: where no sandbox was made, programs still get the
// allow-listed environment.
func TestEnvOfNilSandbox(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "secret")
	t.Setenv("PATH", "/usr/bin")
	var s *Sandbox
	env := s.Env("")
	if slices.Contains(env, "GITHUB_TOKEN=secret") || !slices.Contains(env, "PATH=/usr/bin") {
		t.Errorf("Env of a nil sandbox = %q", env)
	}
}
