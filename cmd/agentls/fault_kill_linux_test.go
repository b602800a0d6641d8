package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// onCreate watches dir and calls f with the name of every file created in
// it, until the returned stop is called.
func onCreate(t *testing.T, dir string, f func(name string)) (stop func()) {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE); err != nil {
		t.Fatalf("inotify watch %s: %v", dir, err)
	}
	// Through the runtime's poller, so that Close ends a pending Read.
	file := os.NewFile(uintptr(fd), "inotify")
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := file.Read(buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				f(string(bytes.TrimRight(name, "\x00")))
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	return func() {
		file.Close()
		<-done
	}
}

// TestFaultKillDuringWrite: agentls is killed with SIGKILL the moment
// its write of a large file has created the temporary file, before the
// rename. The file holds its old text or its whole new text, never a
// part; the next agentls to start removes the temporary file; the store
// is sound and its session reads back. A kill that lands after the
// rename proves nothing, so the run is repeated (at most 5 times) until
// one lands mid-write.
func TestFaultKillDuringWrite(t *testing.T) {
	bin := buildAgentls(t)
	const old = "the person's text\n"
	big := strings.Repeat(strings.Repeat("x", 1023)+"\n", 8<<10) // 8 MiB: the write and its sync take a while
	content, _ := json.Marshal(big)
	script := `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},
		{"tool_calls":[{"name":"write","input":{"file_path":"a.txt","content":` + string(content) + `}}]},
		{"text":"done"}]}`
	for attempt := 1; ; attempt++ {
		ws := t.TempDir()
		env := procEnv(t)
		path := filepath.Join(ws, "a.txt")
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := replayRun(t, bin, ws, env, script, "rewrite a.txt")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := onCreate(t, ws, func(name string) {
			if strings.Contains(name, ".agentls-") {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			}
		})
		err := cmd.Wait()
		stop()
		midWrite := len(tempFiles(ws)) > 0
		t.Logf("attempt %d: %v; temporary file left: %v", attempt, err, midWrite)
		if got, _ := os.ReadFile(path); string(got) != old && string(got) != big {
			t.Fatalf("a.txt holds %d bytes: neither the old text nor the whole new one", len(got))
		}
		if !midWrite {
			if attempt == 5 {
				t.Fatalf("in %d attempts no kill landed between the temporary file and the rename", attempt)
			}
			continue
		}
		// The next agentls cleans up after the one that was killed.
		next := replayRun(t, bin, ws, env, `{"turns":[{"text":"hello"}]}`, "hello")
		if out, err := next.CombinedOutput(); err != nil {
			t.Fatalf("the next run: %v\n%s", err, out)
		}
		if left := tempFiles(ws); len(left) > 0 {
			t.Errorf("after the next start, still left: %v", left)
		}
		if m, _ := os.ReadDir(filepath.Join(envValue(env, "XDG_STATE_HOME"), "agentls", "pending-writes")); len(m) > 0 {
			t.Errorf("markers left: %v", m)
		}
		if list := checkStore(t, bin, ws, env); len(list) != 2 {
			t.Errorf("sessions %v, want the killed one and the next", list)
		}
		return
	}
}
