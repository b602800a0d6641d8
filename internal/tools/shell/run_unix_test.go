//go:build unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeBin makes a directory with a fake "curl" that leaves a marker file
// when it runs, and returns options whose PATH finds it first.
func fakeBin(t *testing.T) (Options, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "curl-ran")
	script := "#!/bin/sh\necho ran > " + marker + "\necho fake-curl-output\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir}
	return Options{Dir: work, Env: env}, marker
}

func TestRunBlockedEverywhere(t *testing.T) {
	opts, marker := fakeBin(t)
	curlPath := filepath.Join(filepath.Dir(marker), "bin", "curl")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(opts.Dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("noshebang", "echo in-script\ncurl x\necho after-in-script=$?\n")
	write("shebang.sh", "#!/bin/sh\necho should-not-run\ncurl x\n")
	write("curl-interp", "#!"+curlPath+"\n")

	for _, tc := range []struct {
		name, cmd, stdout string
		code              int
		msg               string // in stderr; "" means "curl", "-" means nothing blocked
	}{
		// The blocked command fails with status 1; the rest of the script
		// behaves as a shell would after a failed command.
		{"plain", "echo before; curl x; echo after=$?", "before\nafter=1\n", 0, ""},
		{"and-or", "curl x && echo no || echo yes", "yes\n", 0, ""},
		{"errexit", "set -e; curl x; echo unreachable", "", 1, ""},
		{"pipe", "echo a | curl x | cat; echo after", "after\n", 0, ""},
		{"pipefail", "set -o pipefail; echo a | curl x | cat; echo status=$?", "status=1\n", 0, ""},
		{"subshell", "(curl x); echo sub=$?", "sub=1\n", 0, ""},
		{"cmdsubst", "echo got=$(curl x); echo st=$?", "got=\nst=0\n", 0, ""},
		{"backticks", "echo got=`curl x`", "got=\n", 0, ""},
		{"procsubst", "cat <(curl x); echo after", "after\n", 0, ""},
		{"eval", "eval 'curl x'; echo ev=$?", "ev=1\n", 0, ""},
		{"function", "f() { curl x; echo in-f=$?; }; f; echo fn=$?", "in-f=1\nfn=0\n", 0, ""},
		{"variable", "c=curl; $c x; echo dyn=$?", "dyn=1\n", 0, ""},
		{"absolute", curlPath + " x; echo abs=$?", "abs=1\n", 0, ""},
		{"command", "command curl x; echo c=$?", "c=1\n", 0, ""},
		{"exec", "exec curl x; echo unreachable", "", 1, ""},
		{"env", "env curl x; echo e=$?", "e=1\n", 0, ""},
		{"nohup-timeout", "timeout 5 nohup curl x; echo t=$?", "t=1\n", 0, ""},
		{"sh-c", "sh -c 'curl x'; echo s=$?", "s=1\n", 0, ""},
		{"sh-c-dynamic", "sh -c 'c=curl; $c x'; echo s=$?", "s=1\n", 0, "computed at run time"},
		{"stdin-script", "echo 'curl x' | sh; echo s=$?", "s=1\n", 0, ""},
		{"stdin-script-ok", "printf 'echo from-stdin\\n' | sh", "from-stdin\n", 0, "-"},
		{"heredoc-script", "sh <<'EOF'\ncurl x\nEOF\necho h=$?", "h=1\n", 0, ""},
		{"xargs", "echo x | xargs curl; echo xa=$?", "xa=1\n", 0, ""},
		{"find-exec", "find . -maxdepth 0 -exec curl {} \\; ; echo fi=$?", "fi=1\n", 0, ""},
		{"script-without-shebang", "./noshebang; echo rc=$?", "in-script\nafter-in-script=1\nrc=0\n", 0, ""},
		{"shell-script", "./shebang.sh; echo rc=$?", "rc=1\n", 0, ""},
		{"curl-as-interpreter", "./curl-interp; echo rc=$?", "rc=1\n", 0, ""},
		{"source", "echo 'curl x' > s.sh; . ./s.sh; echo so=$?", "so=1\n", 0, ""},
		{"symlink", "ln -sf " + curlPath + " ./c; ./c x; echo rc=$?", "rc=1\n", 0, "a link to"},
		{"env-split", "env -S 'curl \"x y\"'; echo rc=$?", "rc=1\n", 0, ""},
		{"bash-env-set", "BASH_ENV=./s.sh sh -c 'echo hi'; echo rc=$?", "rc=1\n", 0, "BASH_ENV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(marker)
			res, err := Run(context.Background(), tc.cmd, opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("curl ran (stdout %q, stderr %q)", res.Stdout, res.Stderr)
			}
			if res.Stdout != tc.stdout || res.ExitCode != tc.code {
				t.Errorf("stdout %q code %d, want %q code %d (stderr %q)", res.Stdout, res.ExitCode, tc.stdout, tc.code, res.Stderr)
			}
			switch tc.msg {
			case "-":
				if res.Stderr != "" {
					t.Errorf("stderr %q, want none", res.Stderr)
				}
			case "":
				tc.msg = `"curl"`
				fallthrough
			default:
				if !strings.Contains(res.Stderr, "blocked") || !strings.Contains(res.Stderr, tc.msg) {
					t.Errorf("stderr %q does not say it was blocked (%s)", res.Stderr, tc.msg)
				}
			}
		})
	}
}

// The user's own environment is not the command's doing: an inherited
// BASH_ENV or GOFLAGS does not block every nested shell or go command.
func TestRunInheritedEnvAllowed(t *testing.T) {
	opts, _ := fakeBin(t)
	opts.Env = append(opts.Env, "BASH_ENV=/dev/null", "GOFLAGS=-toolexec=/usr/bin/env")
	res, err := Run(context.Background(), "sh -c 'echo hi'; echo GOFLAGS=$GOFLAGS", opts)
	if err != nil || res.Stdout != "hi\nGOFLAGS=-toolexec=/usr/bin/env\n" || res.Stderr != "" {
		t.Fatalf("%+v %v", res, err)
	}
	res, _ = Run(context.Background(), "GOFLAGS=-toolexec=/tmp/x go build; echo rc=$?", opts)
	if res.Stdout != "rc=1\n" || !strings.Contains(res.Stderr, "GOFLAGS") {
		t.Fatalf("changed GOFLAGS not blocked: %+v", res)
	}
}

func TestRunUnrestricted(t *testing.T) {
	opts, marker := fakeBin(t)
	opts.Unrestricted = true
	res, err := Run(context.Background(), "curl x", opts)
	if err != nil || res.ExitCode != 0 || res.Stdout != "fake-curl-output\n" {
		t.Fatalf("unrestricted run: %+v %v", res, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("curl did not run without the block list")
	}
}

func TestRunRedirectToSystemPath(t *testing.T) {
	opts, _ := fakeBin(t)
	target := "/etc/agentls-shell-test-" + strconv.Itoa(os.Getpid())
	res, err := Run(context.Background(), "echo x > "+target+"; echo rc=$?", opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); err == nil {
		os.Remove(target)
		t.Fatal("wrote to /etc")
	}
	if res.Stdout != "rc=1\n" || !strings.Contains(res.Stderr, "blocked") {
		t.Errorf("got %+v", res)
	}
}

func TestRunKillSelfBlocked(t *testing.T) {
	opts, _ := fakeBin(t)
	res, err := Run(context.Background(), fmt.Sprintf("kill -0 %d; echo k=$?", os.Getpid()), opts)
	if err != nil || res.Stdout != "k=1\n" || !strings.Contains(res.Stderr, "this server") {
		t.Fatalf("got %+v %v", res, err)
	}
	// kill reaches the real program (the interpreter does not implement it).
	res, err = Run(context.Background(), "sleep 30 & kill -0 1 2>/dev/null; kill -l >/dev/null; echo ok=$?", opts)
	if err != nil || res.Stdout != "ok=0\n" {
		t.Fatalf("kill -l: %+v %v", res, err)
	}
}

func TestRunEnvironmentScrub(t *testing.T) {
	base := []string{
		"PATH=" + os.Getenv("PATH"),
		"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "OPENROUTER_API_KEY=sk-or",
		"GEMINI_API_KEY=g", "GROQ_API_KEY=q", "AGENTLS_SESSION_TOKEN=t", "MY_CUSTOM_SECRET=c",
		"GITHUB_TOKEN=kept", "PAGER=less", "TERM=xterm-256color", "EDITORIAL=untouched",
	}
	res, err := Run(context.Background(), "env", Options{Dir: t.TempDir(), Env: base, Secrets: []string{"my_custom_secret"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("env: %+v %v", res, err)
	}
	lines := strings.Split(res.Stdout, "\n")
	has := func(kv string) bool {
		for _, l := range lines {
			if l == kv {
				return true
			}
		}
		return false
	}
	for _, secret := range []string{"sk-openai", "sk-ant", "sk-or", "GEMINI_API_KEY", "GROQ_API_KEY", "AGENTLS_SESSION", "MY_CUSTOM_SECRET"} {
		if strings.Contains(res.Stdout, secret) {
			t.Errorf("env shows %s:\n%s", secret, res.Stdout)
		}
	}
	for _, kv := range []string{"AGENTLS=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "TERM=dumb",
		"GITHUB_TOKEN=kept", "EDITORIAL=untouched"} {
		if !has(kv) {
			t.Errorf("env lacks %s:\n%s", kv, res.Stdout)
		}
	}
	if strings.Count(res.Stdout, "PAGER=") != 2 { // PAGER and GIT_PAGER, no duplicate
		t.Errorf("duplicate forced variables:\n%s", res.Stdout)
	}
}

func TestRunBasics(t *testing.T) {
	dir := t.TempDir()
	o := Options{Dir: dir}
	ctx := context.Background()
	res, err := Run(ctx, "echo out; echo err >&2; exit 3", o)
	if err != nil || res.Stdout != "out\n" || res.Stderr != "err\n" || res.ExitCode != 3 {
		t.Errorf("streams/exit: %+v %v", res, err)
	}
	res, _ = Run(ctx, "no-such-command-xyz", o)
	if res.ExitCode != 127 || !strings.Contains(res.Stderr, "not found") {
		t.Errorf("missing command: %+v", res)
	}
	res, _ = Run(ctx, "cat; echo done", o) // stdin is empty, not the server's
	if res.Stdout != "done\n" {
		t.Errorf("stdin: %+v", res)
	}
	res, _ = Run(ctx, "pwd", o)
	if strings.TrimSpace(res.Stdout) != dir {
		t.Errorf("pwd = %q, want %q", res.Stdout, dir)
	}
	if _, err := Run(ctx, "echo 'unterminated", o); err == nil || !strings.Contains(err.Error(), "parse") {
		t.Errorf("parse error: %v", err)
	}
	if _, err := Run(ctx, "true", Options{}); err == nil {
		t.Error("empty Dir accepted")
	}
	if _, err := Run(ctx, "true", Options{Dir: "relative"}); err == nil {
		t.Error("relative Dir accepted")
	}
}

func TestRunOutputCap(t *testing.T) {
	res, err := Run(context.Background(), "seq 1 200000", Options{Dir: t.TempDir(), MaxOutput: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) > 4096+100 || res.StdoutDropped == 0 {
		t.Fatalf("not capped: %d bytes, dropped %d", len(res.Stdout), res.StdoutDropped)
	}
	if !strings.HasPrefix(res.Stdout, "1\n2\n3\n") || !strings.HasSuffix(res.Stdout, "199999\n200000\n") ||
		!strings.Contains(res.Stdout, "bytes omitted") {
		t.Errorf("head/tail/marker missing:\n%.200s…%s", res.Stdout, res.Stdout[len(res.Stdout)-50:])
	}
}

// groupGone reports whether no process is left in process group pgid.
// Dead members whose parent died first are orphans that init must reap;
// this test process stands in for init (see TestMain), so it reaps them
// before asking the kernel.
// SIGKILL is delivered asynchronously, so it allows the kernel a moment.
func groupGone(pgid int) bool {
	deadline := time.Now().Add(time.Second)
	for {
		reapGroup(pgid)
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPgid waits for a script to write its process group id ($$ of a
// session leader) to file.
func waitPgid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pgid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pgid in %s", file)
	return 0
}

func TestRunCancelKillsGroup(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"sleep", "sleep 100"},
		{"children", `sh -c 'echo $$ > pgid; sleep 100 & sleep 100 & wait'`},
		// Children ignoring SIGINT need the SIGKILL after the grace period.
		{"ignores-sigint", `sh -c 'trap "" INT; echo $$ > pgid; sleep 100 & wait'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan Result, 1)
			go func() {
				res, _ := Run(ctx, tc.script, Options{Dir: dir})
				done <- res
			}()
			pgid := 0
			if strings.Contains(tc.script, "pgid") {
				pgid = waitPgid(t, filepath.Join(dir, "pgid"))
			} else {
				time.Sleep(200 * time.Millisecond)
			}
			start := time.Now()
			cancel()
			select {
			case res := <-done:
				if !res.Interrupted {
					t.Errorf("not marked interrupted: %+v", res)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("Run did not return within 3s of cancel")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("cancel took %v", d)
			}
			if pgid != 0 && !groupGone(pgid) {
				t.Errorf("process group %d still has processes", pgid)
			}
		})
	}
}

func TestRunNoOrphans(t *testing.T) {
	dir := t.TempDir()
	// The command exits at once, leaving a child in its group.
	res, err := Run(context.Background(), `sh -c 'echo $$ > pgid; sleep 100 & echo started'`, Options{Dir: dir})
	if err != nil || res.Stdout != "started\n" {
		t.Fatalf("%+v %v", res, err)
	}
	pgid := waitPgid(t, filepath.Join(dir, "pgid"))
	if !groupGone(pgid) {
		t.Fatalf("the command's background child outlived it (group %d)", pgid)
	}
}
