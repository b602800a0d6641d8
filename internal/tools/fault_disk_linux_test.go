package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// diskFaultEnv makes the test binary, re-run by TestFaultDiskFullOrReadOnly
// in its own user and mount namespaces, play one disk fault instead of
// running the tests.
const diskFaultEnv = "AGENTLS_TEST_DISK_FAULT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(diskFaultEnv); mode != "" {
		os.Exit(diskFaultChild(mode, os.Getenv(diskFaultEnv+"_DIR")))
	}
	os.Exit(m.Run())
}

// diskFaultReport is what the child found.
type diskFaultReport struct {
	Result    Result   `json:"result"`
	Disk      string   `json:"disk"`
	Leftovers []string `json:"leftovers"`
	Markers   int      `json:"markers"`
	Err       string   `json:"err,omitempty"`
}

// diskFaultChild mounts a small tmpfs on dir, makes a workspace on it,
// breaks the disk (full: filled to the last block; ro: remounted
// read-only), then has the write tool replace a file it has read, and
// prints what became of it.
func diskFaultChild(mode, dir string) int {
	rep := diskFaultReport{}
	err := func() error {
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("make mounts private: %w", err)
		}
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
			return fmt.Errorf("mount tmpfs: %w", err)
		}
		root := filepath.Join(dir, "ws")
		pending := dir + "-pending" // agentls's state folder: on another disk
		if err := os.Mkdir(root, 0o755); err != nil {
			return err
		}
		path := filepath.Join(root, "a.txt")
		if err := os.WriteFile(path, []byte("the person's text\n"), 0o644); err != nil {
			return err
		}
		ws, err := NewWorkspace([]string{root}, nil)
		if err != nil {
			return err
		}
		defer ws.Close()
		ws.SetPendingDir(pending)
		if err := os.Mkdir(pending, 0o700); err != nil {
			return err
		}
		call := func(tool Tool, input any) Result {
			raw, _ := json.Marshal(input)
			res, err := tool.Run(context.Background(), Call{ID: "c", SessionID: "s", Input: raw})
			if err != nil {
				return Result{Content: "infrastructure error: " + err.Error(), IsError: true}
			}
			return res
		}
		if res := call(NewViewTool(ws), map[string]any{"file_path": "a.txt"}); res.IsError {
			return errors.New(res.Content)
		}
		switch mode {
		case "full":
			filler, err := os.Create(filepath.Join(dir, "filler"))
			if err != nil {
				return err
			}
			block := bytes.Repeat([]byte{'x'}, 4096)
			for {
				if _, err := filler.Write(block); err != nil {
					break // ENOSPC: the disk is full
				}
			}
			filler.Close()
		case "ro":
			if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
				return fmt.Errorf("remount read-only: %w", err)
			}
		}
		rep.Result = call(NewWriteTool(ws), map[string]any{"file_path": "a.txt", "content": strings.Repeat("the agent's text\n", 4096)})
		data, _ := os.ReadFile(path)
		rep.Disk = string(data)
		rep.Leftovers = leftovers(root)
		ms, _ := os.ReadDir(pending)
		rep.Markers = len(ms)
		return nil
	}()
	if err != nil {
		rep.Err = err.Error()
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// TestFaultDiskFullOrReadOnly: the disk is full, or read-only, when the
// write tool replaces a file. The write is all or nothing: the file keeps
// the person's text, no temporary file or marker is left, and the model
// is told what failed. A real tmpfs in a mount namespace of the test's
// own (a user namespace, so no root is needed).
func TestFaultDiskFullOrReadOnly(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"full", "no space left on device; nothing was written and the file is as it was: free some space"},
		{"ro", "read-only file system; nothing was written and the file is as it was: its disk is mounted read-only"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), diskFaultEnv+"="+tc.mode, diskFaultEnv+"_DIR="+t.TempDir())
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
				UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
				GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the disk-fault child did not run (%v; %s): it needs user namespaces — on Debian, sysctl -w kernel.unprivileged_userns_clone=1 (and user.max_user_namespaces > 0)", err, stderr.String())
			}
			var rep diskFaultReport
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatalf("child printed %q: %v", out, err)
			}
			if rep.Err != "" {
				t.Fatalf("child: %s (it needs to mount a tmpfs in its own user namespace)", rep.Err)
			}
			if !rep.Result.IsError || !strings.Contains(rep.Result.Content, "a.txt was not changed") || !strings.Contains(rep.Result.Content, tc.want) {
				t.Errorf("write result = %+v, want an error saying %q", rep.Result, tc.want)
			}
			t.Logf("the model reads: %s", rep.Result.Content)
			if rep.Disk != "the person's text\n" {
				t.Errorf("a.txt = %q, want the person's text untouched", rep.Disk)
			}
			if len(rep.Leftovers) > 0 || rep.Markers > 0 {
				t.Errorf("left behind: %v, %d markers", rep.Leftovers, rep.Markers)
			}
		})
	}
}
