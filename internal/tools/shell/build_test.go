package shell

import "testing"

func TestBuildCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want bool
	}{
		{[]string{"go", "test", "./..."}, true},
		{[]string{"go", "build", "./cmd/x"}, true},
		{[]string{"go", "vet", "./..."}, true},
		{[]string{"go", "run", "."}, false},
		{[]string{"go", "env", "-w", "GOFLAGS=-x"}, false},
		{[]string{"go", "generate"}, false},
		{[]string{"go", "install", "x@latest"}, false},
		{[]string{"go", "mod", "download"}, false},
		{[]string{"cargo", "test"}, true},
		{[]string{"cargo", "install", "ripgrep"}, false},
		{[]string{"npm", "test"}, true},
		{[]string{"npm", "run", "build"}, true},
		{[]string{"npm", "run"}, false},
		{[]string{"npm", "install"}, false},
		{[]string{"npm", "exec", "x"}, false},
		{[]string{"npx", "jest"}, false},
		{[]string{"yarn", "test"}, true},
		{[]string{"make"}, true},
		{[]string{"make", "test"}, true},
		{[]string{"pytest", "-q"}, true},
		{[]string{"python3", "-m", "pytest"}, true},
		{[]string{"python3", "-m", "http.server"}, false},
		{[]string{"python3", "setup.py", "test"}, false},
		{[]string{"./gradlew", "test"}, false},
		{[]string{"bash", "-c", "go test"}, false},
		{nil, false},
	} {
		if got := BuildCommand(tc.argv); got != tc.want {
			t.Errorf("BuildCommand(%q) = %v, want %v", tc.argv, got, tc.want)
		}
	}
}
