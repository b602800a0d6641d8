//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// sessionAsker answers the first question with "Allow … this session" and
// counts every question after it.
type sessionAsker struct{ asked []string }

func (a *sessionAsker) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	a.asked = append(a.asked, q.Request.Command)
	if len(a.asked) == 1 {
		if q.Title(permission.AnswerAllowSession) == "" {
			return permission.AnswerDeny, nil
		}
		return permission.AnswerAllowSession, nil
	}
	return permission.AnswerDeny, nil
}

// TestGrantsBindWhatWasSeen: after "Allow <fingerprint> this session" for
// the first command, each variant that adds a capability (runs another
// program, writes elsewhere, reaches outside) is asked again, and the
// plain variants that add none are covered.
func TestGrantsBindWhatWasSeen(t *testing.T) {
	h := newHostileRepo(t)
	for _, tc := range []struct {
		grant   string
		asked   []string // must reach the person again (or be denied)
		covered []string // must run on the grant
	}{
		{"go test ./...",
			[]string{`go test -ldflags="-extld=./evil.sh" ./...`, "go test -c -o /tmp/outside/bin ./...", "go test -coverprofile=/tmp/c.out ./...",
				"go test -C /tmp/other ./...", "go test -exec ./wrap ./...", "go test -toolexec=./x ./...", "go test -vettool=./x ./...",
				"go test -gcflags=-extld=./x ./...", "go test ./... -o bin/t", "go test -c ./...", "go test ./... -args -test.coverprofile=/tmp/x", "go test /tmp/elsewhere/...",
				"go vet ./...", "go build ./...", "go env -w GOFLAGS=-toolexec=./x", "GOFLAGS=-toolexec=x go test ./...", "go test ./... > /tmp/out"},
			[]string{"go test ./...", "go test -run TestX ./...", "go test -v -count=1 ./src/...", "go test -race -short ./...", "go test ./... -run X -v",
				"go test -coverprofile=cover.out ./...", "go test ./... -args -x"}},
		{"sed -i s/a/b/ a.txt",
			[]string{"sed -i s/a/b/ /tmp/outside.txt", "sed -i s/a/b/ b.txt", "sed -i '1e id' a.txt", "sed -i s/a/b/ hardlink.txt",
				"sed '1e id' a.txt", "sed -n '1e id' a.txt", "sed 's/a/b/w /tmp/o' a.txt", "sed -f script.sed a.txt", "sed 'W out' a.txt"},
			[]string{"sed -i s/a/b/ a.txt"}},
		{"rm a.txt",
			[]string{"rm a.txt", "rm -rf src", "rm /tmp/x"}, nil}, // never granted: the first ask offers no session grant
		{"cp a.txt b.txt", []string{"cp a.txt b.txt", "cp a.txt /tmp/x"}, nil},
		{"mv a.txt c.txt", []string{"mv a.txt c.txt"}, nil},
		{"chmod +x a.txt", []string{"chmod +x a.txt", "chmod +x ../outside/secret.txt"}, nil},
		{"git config user.name x", []string{"git config user.name x"}, nil},
		{"python3 scripts/gen.py",
			[]string{"python3 /tmp/evil.py", "python3 -c 'import os'", "python3 ../outside/x.py", "python3 scripts/other.py", "python3 -m pip install x",
				"python3 scripts/gen.py /etc/passwd"},
			[]string{"python3 scripts/gen.py", "python3 -u scripts/gen.py"}},
		{"make test",
			[]string{"make test -f /tmp/outside.mk", "make -f evil.mk test", "make -C /tmp test", "make CC=./evil test", "make --eval='x:=1' test", "make clean",
				"make test -I /tmp"},
			[]string{"make test", "make -j8 test", "make -s test"}},
		{"npm run build",
			[]string{"npm run evil", "npm run build --prefix=/tmp", "npm run build --script-shell=./sh", "npm install left-pad", "npm test"},
			[]string{"npm run build", "npm run build -- --watch"}},
		{"git commit -m x",
			[]string{"git -c core.hooksPath=/tmp commit -m x", "git commit --template=/etc/passwd", "git -C /tmp/other commit -m x", "git push",
				"git config core.fsmonitor x"},
			[]string{"git commit -m y", "git commit -a -m y"}},
		{"cargo test",
			[]string{"cargo test --config 'target.x.runner=\"sh\"'", "cargo test -Z unstable", "cargo test --target-dir=/tmp/t", "cargo run"},
			[]string{"cargo test", "cargo test --release", "cargo +nightly test -p x"}},
		{"pytest -x", []string{"pytest -p evil", "pytest --rootdir=/tmp", "pytest -c /tmp/conftest.ini"}, []string{"pytest -x", "pytest -q -k name"}},
	} {
		t.Run(tc.grant, func(t *testing.T) {
			a := &sessionAsker{}
			p := permission.DefaultPolicy()
			g, err := permission.New(permission.Options{Policy: p, Asker: a, Roots: func() []string { return []string{h.root} }})
			if err != nil {
				t.Fatal(err)
			}
			check := func(cmd string) permission.Decision {
				raw, _ := json.Marshal(map[string]any{"command": cmd})
				req, err := h.bash.Describe(context.Background(), Call{Input: raw})
				if err != nil {
					return permission.Decision{Kind: permission.Deny, Reason: err.Error()}
				}
				req.SessionID = "s1"
				return g.Check(context.Background(), req)
			}
			first := check(tc.grant)
			granted := first.Kind == permission.Allow && first.Grant == "session"
			if (len(tc.covered) > 0) != granted {
				t.Fatalf("first ask for %q: %+v (want a session grant: %v)", tc.grant, first, len(tc.covered) > 0)
			}
			for _, cmd := range tc.asked {
				before := len(a.asked)
				if d := check(cmd); d.Kind == permission.Allow {
					t.Errorf("after granting %q, %q ran on the grant (%s %s)", tc.grant, cmd, d.Source, d.Rule)
				} else if len(a.asked) == before && d.Source != permission.SourceBlock && d.Source[:min(10, len(d.Source))] != "inspector:" {
					t.Errorf("%q was denied without being asked or blocked: %+v", cmd, d)
				}
			}
			for _, cmd := range tc.covered {
				before := len(a.asked)
				if d := check(cmd); d.Kind != permission.Allow || len(a.asked) != before {
					t.Errorf("after granting %q, %q was not covered: %+v", tc.grant, cmd, d)
				}
			}
		})
	}
}

// TestGrantLapsesWithEnvironment: a session grant covers the granted
// program only as its environment shaped it. After "Allow go test this
// session", GOFLAGS=-ldflags=-extld=./evil.sh in the go env file (a
// throwaway GOENV; `go env -w` of it is blocked, so something else wrote
// it) makes the next go test asked again, and CC=<workspace>/evil.sh ends
// a go vet grant;
// an edited package.json test script ends an npm test grant, and an
// edited Makefile a make test grant.
func TestGrantLapsesWithEnvironment(t *testing.T) {
	h := newHostileRepo(t)
	goenv := filepath.Join(t.TempDir(), "go", "env")
	t.Setenv("GOENV", goenv) // never the real user's go env
	t.Setenv("GOFLAGS", "")
	// go's telemetry would start a child writing under the throwaway home
	// after the test ends.
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(h.home, ".config"))
	writeFiles(t, h.home, map[string]string{".config/go/telemetry/mode": "off\n"})
	var questions []string
	asker := grantingAsker(func(q permission.Question) { questions = append(questions, q.Message) })
	g, err := permission.New(permission.Options{Policy: permission.DefaultPolicy(), Asker: asker, Roots: func() []string { return []string{h.root} }})
	if err != nil {
		t.Fatal(err)
	}
	call := func(cmd string) Call {
		raw, _ := json.Marshal(map[string]any{"command": cmd})
		return Call{Input: raw}
	}
	check := func(cmd string) (permission.Decision, bool) {
		t.Helper()
		req, err := h.bash.Describe(context.Background(), call(cmd))
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		req.SessionID = "s1"
		before := len(questions)
		return g.Check(context.Background(), req), len(questions) > before
	}
	// goEnvW: go env -w setting is blocked by the judge; the same setting
	// written into the go env file by something else (the person, another
	// program) ends the grant.
	goEnvW := func(setting string) func(t *testing.T) {
		return func(t *testing.T) {
			cmd := "go env -w " + setting
			if d, _ := check(cmd); d.Kind != permission.Deny || d.Source != permission.SourceBlock {
				t.Errorf("%s: %+v, want blocked by the judge", cmd, d)
			}
			if err := os.MkdirAll(filepath.Dir(goenv), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(goenv, []byte(setting+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		grant  string
		change func(t *testing.T)
	}{
		// Each of these go env settings makes go run ./evil.sh.
		{"go test ./...", goEnvW("GOFLAGS=-ldflags=-extld=./evil.sh")},
		{"go vet ./...", goEnvW("CC=" + filepath.Join(h.root, "evil.sh"))}, // go wants CC absolute
		{"npm test", func(t *testing.T) {
			writeFiles(t, h.root, map[string]string{"package.json": `{"name":"x","scripts":{"test":"./evil.sh"}}` + "\n"})
		}},
		{"make test", func(t *testing.T) {
			writeFiles(t, h.root, map[string]string{"Makefile": "test:\n\t./evil.sh\n"})
		}},
	} {
		t.Run(tc.grant, func(t *testing.T) {
			if d, asked := check(tc.grant); d.Kind != permission.Allow || d.Grant != "session" || !asked {
				t.Fatalf("first %s: %+v (asked %v), want a session grant", tc.grant, d, asked)
			}
			if d, asked := check(tc.grant); d.Source != permission.SourceSessionGrant || asked {
				t.Fatalf("second %s: %+v (asked %v), want the session grant", tc.grant, d, asked)
			}
			tc.change(t)
			d, asked := check(tc.grant)
			if !asked || d.Source == permission.SourceSessionGrant {
				t.Fatalf("%s after the change: %+v (asked %v), want asked again: the grant lapsed", tc.grant, d, asked)
			}
			if last := questions[len(questions)-1]; !strings.Contains(last, "lapsed") {
				t.Errorf("the question does not say why it is asked again: %q", last)
			}
		})
	}
}

// grantingAsker approves every question, with "Allow … this session"
// where offered, and shows each question to seen.
type grantingAsker func(q permission.Question)

func (a grantingAsker) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	a(q)
	if q.Title(permission.AnswerAllowSession) != "" {
		return permission.AnswerAllowSession, nil
	}
	return permission.AnswerAllow, nil
}
