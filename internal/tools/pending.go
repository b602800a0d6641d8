package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Pending writes: an atomic write makes a temporary file next to its
// target and renames it into place. A process killed between the two
// (kill -9, a crash, power loss) leaves the temporary file in the
// person's project. So each write first leaves a marker in a folder of
// agentls's own (the Workspace's pending folder) naming its temporary
// file, and removes it once the rename is done; the next agentls to start
// removes the temporary files of markers whose process is gone
// (SweepPendingWrites).

// tempInfix is in the name of every temporary file of an atomic write.
const tempInfix = ".agentls-"

// pendingMarker is one marker's content.
type pendingMarker struct {
	// Root is the workspace folder the temporary file is in; Temp is its
	// path relative to Root.
	Root string `json:"root"`
	Temp string `json:"temp"`
}

// SetPendingDir sets the folder for the markers of writes in progress;
// "" (the default) keeps none.
func (w *Workspace) SetPendingDir(dir string) {
	w.mu.Lock()
	w.pending = dir
	w.mu.Unlock()
}

func (w *Workspace) pendingDir() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.pending
}

// markPending records that root/temp is about to be created, and returns
// the function that drops the record. With no folder it records nothing.
func markPending(dir, root, temp string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("record the write in %s: %w", dir, err)
	}
	data, _ := json.Marshal(pendingMarker{Root: root, Temp: temp})
	name := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := os.WriteFile(name, data, 0o600); err != nil {
		_ = os.Remove(name) // a full disk leaves it empty
		return nil, fmt.Errorf("record the write in %s: %w", dir, err)
	}
	return func() { _ = os.Remove(name) }, nil
}

// SweepPendingWrites removes the temporary files that writes of agentls
// processes that are gone left behind, as their markers in dir name
// them, and the markers. Markers of running processes are left alone. It
// returns the files removed; a marker it cannot act on is an error, and
// the sweep goes on.
func SweepPendingWrites(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep unfinished writes: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pidText, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		marker := filepath.Join(dir, e.Name())
		gone, err := removeTemp(marker)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if gone != "" {
			removed = append(removed, gone)
		}
		if err := os.Remove(marker); err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// removeTemp removes the temporary file a marker names, through its
// workspace folder's root (so a folder swapped for a link meanwhile
// cannot lead the removal elsewhere), and only a regular file with a
// temporary file's name. It returns the file removed, "" for none.
func removeTemp(marker string) (string, error) {
	data, err := os.ReadFile(marker)
	if err != nil {
		return "", fmt.Errorf("sweep unfinished writes: %w", err)
	}
	var m pendingMarker
	if err := json.Unmarshal(data, &m); err != nil || m.Root == "" || m.Temp == "" || !strings.Contains(filepath.Base(m.Temp), tempInfix) {
		return "", nil // not a marker of ours: dropped with it
	}
	r, err := os.OpenRoot(m.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sweep unfinished writes: %w", err)
	}
	defer r.Close()
	fi, err := r.Lstat(m.Temp)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // the write got as far as its rename
	}
	if err != nil || !fi.Mode().IsRegular() {
		return "", err
	}
	if err := r.Remove(m.Temp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("sweep unfinished writes: %w", err)
	}
	return filepath.Join(m.Root, m.Temp), nil
}
