package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// planted is the secret every fixture hides in its throwaway home folder
// and environment; no confined program may print it.
const planted = "PLANTED-SECRET-7f3a"

// fixture is a throwaway home (with secrets where tools keep them), a
// workspace with a link out of it, a session temporary folder and a
// sandbox over them.
type fixture struct {
	home, ws, tmp string
	sb            *Sandbox
}

// modes are the two ways the network is confined on Linux: a namespace
// of the programs' own (agentls as root) and Landlock's port rules.
var modes = []struct {
	name    string
	noNetNS bool
}{{"namespace", false}, {"landlock", true}}

func requireLandlock(t testing.TB) {
	t.Helper()
	if landlockABI() < 4 {
		t.Fatalf("this kernel's Landlock ABI is %d; these tests need 4 or later (Linux 6.7+, with landlock in the lsm= boot list)", landlockABI())
	}
}

func newFixture(t *testing.T, noNetNS bool, proxy *Proxy) *fixture {
	t.Helper()
	requireLandlock(t)
	base := t.TempDir()
	f := &fixture{home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws"), tmp: filepath.Join(base, "session-tmp")}
	for _, d := range []string{f.home + "/.ssh", f.home + "/.aws", f.ws + "/sub", f.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, f.home+"/.ssh/id_rsa", planted)
	write(t, f.home+"/.aws/credentials", "aws_secret_access_key = "+planted)
	write(t, f.home+"/.gitconfig", "[user]\n\tname = Ada Person\n\temail = ada@example.com\n[url \"https://x-access-token:"+planted+"@github.com/\"]\n\tinsteadOf = https://github.com/\n")
	write(t, f.ws+"/README", "inside\n")
	if err := os.Symlink(f.home, f.ws+"/homelink"); err != nil {
		t.Fatal(err)
	}
	m := Machine{Home: f.home, Getenv: func(string) string { return "" }, GOOS: "linux"}
	// The test binary serves as a helper program: it must be readable.
	pol := DefaultPolicy(m, []string{f.ws}, f.tmp, []string{filepath.Dir(os.Args[0])}, nil)
	o := Options{Policy: pol, TempDir: f.tmp, Home: f.home, NoNetNS: noNetNS, Proxy: proxy,
		Environ: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + f.home, "GITHUB_TOKEN=" + planted,
			"AWS_SECRET_ACCESS_KEY=" + planted, "NPM_TOKEN=" + planted, "LANG=C.UTF-8"}}
	sb, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if !sb.Confined() {
		t.Fatalf("sandbox not confined: %s", sb.Status().Reason)
	}
	f.sb = sb
	return f
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs argv confined in dir with extra environment entries and
// returns its combined output and exit code.
func (f *fixture) run(t *testing.T, dir string, extraEnv []string, argv ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(f.sb.Env("test-token"), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := f.sb.Start(cmd); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("%v: %v", argv, err)
	return "", 0
}

func (f *fixture) sh(t *testing.T, script string) (string, int) {
	t.Helper()
	return f.run(t, f.ws, nil, "/bin/sh", "-c", script)
}

// TestWritesStayInside: a confined program writes in the workspace and the
// session folder, and nowhere else — not the home folder, the folder
// above the workspace, /tmp outside the session folder, through a link the
// workspace holds, nor through /proc/self/cwd — and nothing lands there.
func TestWritesStayInside(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t, mode.noNetNS, nil)
			outsideTmp := filepath.Join(filepath.Dir(filepath.Dir(f.tmp)), "agentls-escape-"+mode.name)
			t.Cleanup(func() { os.Remove(outsideTmp) })
			for _, tc := range []struct {
				name, script, landed string
			}{
				{"home", "echo x > " + f.home + "/escaped", f.home + "/escaped"},
				{"home via ~", "cd; echo x > escaped2", f.home + "/escaped2"},
				{"parent folder", "echo x > ../escaped", filepath.Dir(f.ws) + "/escaped"},
				{"tmp outside the session folder", "echo x > " + outsideTmp, outsideTmp},
				{"through a link", "echo x > homelink/escaped3", f.home + "/escaped3"},
				{"through /proc/self/cwd", "cd " + f.home + " && echo x > /proc/self/cwd/escaped4", f.home + "/escaped4"},
				{"mkdir in home", "mkdir " + f.home + "/newdir", f.home + "/newdir"},
				{"touch in home", "touch " + f.home + "/touched", f.home + "/touched"},
				{"cp out", "cp README " + f.home + "/copied", f.home + "/copied"},
				{"rename out", "cp README moved && mv moved " + f.home + "/moved", f.home + "/moved"},
				{"hard link out", "ln README " + f.home + "/hardlink", f.home + "/hardlink"},
				{"symlink made outside", "ln -s /etc/passwd " + f.home + "/sym", f.home + "/sym"},
			} {
				out, code := f.sh(t, tc.script)
				if code == 0 {
					t.Errorf("%s: %q succeeded:\n%s", tc.name, tc.script, out)
				}
				if _, err := os.Lstat(tc.landed); err == nil {
					t.Errorf("%s: %s landed", tc.name, tc.landed)
				}
			}
			for _, ok := range []string{
				"echo x > inside && cat inside",
				"echo x > sub/inside2 && mv sub/inside2 moved-inside && rm moved-inside",
				"echo x > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\"",
				"mkdir -p build/out && touch build/out/a && rm -r build",
			} {
				if out, code := f.sh(t, ok); code != 0 {
					t.Errorf("%q failed inside: %s", ok, out)
				}
			}
		})
	}
}

// TestSecretsStayHidden: keys, credentials and tokens in the home folder
// and the environment, and files in other users' homes (and /root), do
// not reach a confined program.
func TestSecretsStayHidden(t *testing.T) {
	f := newFixture(t, false, nil)
	for _, script := range []string{
		"cat ~/.ssh/id_rsa",
		"cat " + f.home + "/.aws/credentials",
		"cat homelink/.ssh/id_rsa",
		"ls -la ~/.ssh",
		"cat ~/.gitconfig",
		"git config --global -l",
		"git config --global --get-regexp url",
		"echo $GITHUB_TOKEN $AWS_SECRET_ACCESS_KEY $NPM_TOKEN",
		"env",
		"cat /proc/self/environ | tr '\\0' '\\n'",
		"cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ",
		"cat /proc/" + strconv.Itoa(os.Getppid()) + "/environ",
		"jq -n env",
		"jq -rn '$ENV.NPM_TOKEN'",
		"grep -r PLANTED " + f.home,
		"grep -R PLANTED .",
		"find -L . -type f -exec cat {} +",
		"cd sub && cat /proc/self/cwd/../homelink/.ssh/id_rsa",
	} {
		out, _ := f.sh(t, script)
		if strings.Contains(out, planted) {
			t.Errorf("%q printed the planted secret:\n%s", script, out)
		}
	}
	// The test process itself is not confined.
	if b, err := os.ReadFile(f.home + "/.ssh/id_rsa"); err != nil || string(b) != planted {
		t.Fatalf("agentls's own process lost access: %v", err)
	}
	t.Run("other users' homes unreadable", func(t *testing.T) {
		// A throwaway home of another user, and one in /root (the real
		// HOME of root, while the fixture's HOME is a throwaway), each
		// with a world-readable secret: only the sandbox stands between.
		if os.Geteuid() != 0 {
			t.Skip("planting folders in /home and /root needs root (the sandbox tests run as root)")
		}
		for _, parent := range []string{"/home", "/root"} {
			dir, err := os.MkdirTemp(parent, "agentls-test-other-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir+"/secret", []byte(planted), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(dir + "/secret"); err != nil || string(b) != planted {
				t.Fatalf("the test cannot read its own plant %s: %v", dir, err)
			}
			for _, script := range []string{
				"cat " + dir + "/secret",
				"head -c 100 " + dir + "/secret",
				"cd " + dir + " && cat secret",
				"cat /proc/self/root" + dir + "/secret",
				"grep -r PLANTED " + dir,
				"cp " + dir + "/secret copied && cat copied",
				"ls -la " + dir,
				"python3 -c \"print(open('" + dir + "/secret').read())\"",
			} {
				out, code := f.sh(t, script)
				if code == 0 || strings.Contains(out, planted) {
					t.Errorf("%q: exit %d:\n%s", script, code, out)
				}
			}
		}
	})
}

// TestSignalsAndProcesses: a confined program cannot signal or read
// agentls's process.
func TestSignalsAndProcesses(t *testing.T) {
	f := newFixture(t, false, nil)
	pid := strconv.Itoa(os.Getpid())
	// CONT, not STOP: were the signal let through, the test must fail,
	// not stop itself (as it once did: see TestMainThreadNeverConfined).
	for _, script := range []string{"kill -0 " + pid, "kill -CONT " + pid, "cat /proc/" + pid + "/maps", "readlink /proc/" + pid + "/cwd", "readlink /proc/" + pid + "/fd/0"} {
		if out, code := f.sh(t, script); code == 0 {
			t.Errorf("%q succeeded:\n%s", script, out)
		}
	}
}

// TestMainThreadNeverConfined: agentls's main thread (the leader of its
// thread group) never carries a sandbox's confinement, however the
// scheduler places the confining goroutine. Once it did (the goroutine
// ran on the main thread): the kernel checks a signal to a process
// against its leader, and a confined `kill -STOP <agentls>` stopped the
// test binary. Many sandboxes in a row give the scheduler many chances.
func TestMainThreadNeverConfined(t *testing.T) {
	status := fmt.Sprintf("/proc/self/task/%d/status", os.Getpid())
	for i := 0; i < 40; i++ {
		f := newFixture(t, false, nil)
		b, err := os.ReadFile(status)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if (strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "Seccomp:")) && !strings.HasSuffix(line, "\t0") {
				t.Fatalf("sandbox %d confined the main thread: %s", i, line)
			}
		}
		if i == 0 {
			if out, code := f.sh(t, "kill -0 "+strconv.Itoa(os.Getpid())); code == 0 {
				t.Fatalf("a confined program may signal agentls:\n%s", out)
			}
		}
	}
}

// TestCapabilitiesDropped: as root, confined programs have none.
func TestCapabilitiesDropped(t *testing.T) {
	f := newFixture(t, false, nil)
	out, _ := f.sh(t, "grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(line, "0000000000000000") {
			t.Errorf("capability left: %s", line)
		}
	}
	if out, _ := f.sh(t, "grep NoNewPrivs /proc/self/status"); !strings.Contains(out, "1") {
		t.Errorf("no_new_privs not set: %s", out)
	}
}

// TestNetworkRefusedDirectly: a program dialling a 127.0.0.1 listener of
// this machine (TCP or UDP) is refused and the listener sees nothing; in
// a namespace of its own a program's own loopback server still works.
func TestNetworkRefusedDirectly(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	var got atomic.Int32
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t, mode.noNetNS, NewProxy(ProxyOptions{}))
			for _, spec := range []string{"dial tcp " + ln.Addr().String(), "send udp " + udp.LocalAddr().String(), "dial tcp 1.1.1.1:443"} {
				out, code := f.run(t, f.ws, []string{"SANDBOX_HELPER=" + spec}, os.Args[0])
				if code == 0 && !strings.HasPrefix(spec, "send udp") {
					t.Errorf("%s succeeded: %s", spec, out)
				}
			}
			for _, script := range []string{
				"curl -sS --noproxy '*' -m 3 http://" + ln.Addr().String() + "/",
				"exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
			} {
				if out, code := f.sh(t, script); code == 0 {
					t.Errorf("%q succeeded: %s", script, out)
				}
			}
			out, code := f.run(t, f.ws, []string{"SANDBOX_HELPER=listen tcp"}, os.Args[0])
			if mode.noNetNS == (code == 0) {
				t.Errorf("own loopback server in %s mode: exit %d: %s", mode.name, code, out)
			}
		})
	}
	time.Sleep(100 * time.Millisecond) // let a packet that got through arrive
	if n := accepted.Load(); n != 0 {
		t.Errorf("the TCP listener accepted %d connections", n)
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the UDP listener received %d packets", n)
	}
}

// TestProxy: through the proxy an allowed host is reached; another is
// asked (the checker sees it) and refused; a program without a token is
// refused.
func TestProxy(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer upstream.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "tls hello")
	}))
	defer tls.Close()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		// allowed.test is the loopback upstream; secure.test the TLS one.
		host, _, _ := net.SplitHostPort(addr)
		switch host {
		case "allowed.test":
			return (&net.Dialer{}).DialContext(ctx, network, upstream.Listener.Addr().String())
		case "secure.test":
			return (&net.Dialer{}).DialContext(ctx, network, tls.Listener.Addr().String())
		}
		return nil, fmt.Errorf("no route to %s", addr)
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			p := NewProxy(ProxyOptions{Dial: dial})
			f := newFixture(t, mode.noNetNS, p)
			var mu sync.Mutex
			var asked []string
			token, release := p.Register(context.Background(), func(_ context.Context, host string, port int) error {
				mu.Lock()
				asked = append(asked, host+":"+strconv.Itoa(port))
				mu.Unlock()
				if host == "allowed.test" || host == "secure.test" {
					return nil
				}
				return errors.New("the person denied " + host)
			})
			defer release()
			env := []string{}
			for _, kv := range ProxyEnv(f.sb.ProxyURL(), token) {
				env = append(env, kv)
			}
			cmd := func(script string) (string, int) {
				return f.run(t, f.ws, env, "/bin/sh", "-c", script)
			}
			if out, code := cmd("curl -sS -m 5 http://allowed.test/path"); code != 0 || !strings.Contains(out, "hello from allowed.test") {
				t.Errorf("allowed host over http: exit %d: %s", code, out)
			}
			if out, code := cmd("curl -sS -k -m 5 https://secure.test/"); code != 0 || !strings.Contains(out, "tls hello") {
				t.Errorf("allowed host over https (CONNECT): exit %d: %s", code, out)
			}
			if out, code := cmd("curl -sS -m 5 https://evil.test/"); code == 0 {
				t.Errorf("denied host reached: %s", out)
			}
			if out, code := cmd("curl -sSf -m 5 http://evil.test/x"); code == 0 || strings.Contains(out, "hello") {
				t.Errorf("denied host reached over http: %s", out)
			}
			mu.Lock()
			got := strings.Join(asked, " ")
			mu.Unlock()
			for _, want := range []string{"allowed.test:80", "secure.test:443", "evil.test:443", "evil.test:80"} {
				if !strings.Contains(got, want) {
					t.Errorf("checker never asked about %s (asked: %s)", want, got)
				}
			}
			// Without a token (or with a made-up one) nothing passes.
			out, code := f.run(t, f.ws, ProxyEnv(f.sb.ProxyURL(), "forged"), "/bin/sh", "-c", "curl -sS -m 5 http://allowed.test/")
			if code == 0 && strings.Contains(out, "hello") {
				t.Errorf("forged token passed: %s", out)
			}
		})
	}
}

// TestProxyRefusesPrivateAddresses: the proxy's own dialer judges the
// address it connects to, so a host the checker allows still cannot lead
// to this machine or a private network.
func TestProxyRefusesPrivateAddresses(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	p := NewProxy(ProxyOptions{})
	pl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(pl)
	defer pl.Close()
	token, release := p.Register(context.Background(), func(context.Context, string, int) error { return nil })
	defer release()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, host := range []string{"127.0.0.1", "localhost", "2130706433", "0x7f000001", "127.1", "0", "[::ffff:127.0.0.1]", "[::1]"} {
		c, err := net.Dial("tcp", pl.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		auth := "Basic " + base64Of("agentls:"+token)
		fmt.Fprintf(c, "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\nProxy-Authorization: %s\r\n\r\n", host, port, host, port, auth)
		b, _ := io.ReadAll(io.LimitReader(c, 512))
		c.Close()
		if strings.Contains(string(b), " 200 ") {
			t.Errorf("CONNECT %s: %s", host, b)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the loopback listener accepted %d connections through the proxy", n)
	}
}

// TestGitWorksWithoutTheGlobalConfig: git runs confined, commits carry the
// person's name from ~/.gitconfig, and nothing else of that file (its
// token) reaches the program.
func TestGitWorksWithoutTheGlobalConfig(t *testing.T) {
	f := newFixture(t, false, nil)
	out, code := f.sh(t, "git init -q r && cd r && echo a > a && git add a && git commit -qm first && git log --format='%an <%ae>' && git config --global -l && git status --short")
	if code != 0 || !strings.Contains(out, "Ada Person <ada@example.com>") {
		t.Fatalf("git in the sandbox: exit %d:\n%s", code, out)
	}
	if strings.Contains(out, planted) || strings.Contains(out, "insteadof") {
		t.Errorf("the global config's token reached git:\n%s", out)
	}
}
