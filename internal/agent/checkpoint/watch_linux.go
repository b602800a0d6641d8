package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher marks the paths that changed in a workspace folder with
// inotify, so a refresh looks at those and not at the whole tree. Events
// are read only when a refresh asks (drain, non-blocking): the kernel
// queues them as the changes happen, so once a step's programs are done
// every change they made is in the queue. A full queue (or any doubt)
// makes the refresh walk the tree instead.
type watcher struct {
	fd  int
	wds map[int32]string // watch → folder, relative to the root
	buf []byte
}

// watchMask is every change of a folder's entries that matters.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &watcher{fd: fd, wds: map[int32]string{}, buf: make([]byte, 64<<10)}, nil
}

// add watches the open folder dir, rel below the root. It names the
// folder by its descriptor (/proc/self/fd), so the folder watched is the
// one opened through the root, never one a link swapped in leads to.
func (w *watcher) add(dir *os.File, rel string) error {
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(int(dir.Fd())), watchMask)
	if err != nil {
		return fmt.Errorf("watch %s: %w", rel, err)
	}
	w.wds[int32(wd)] = rel
	return nil
}

// drain reads the queued events into dirty (path → walk its subtree too)
// and reports an overflow: changes were lost, so the tree must be walked.
func (w *watcher) drain(dirty map[string]bool) (overflow bool, err error) {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return overflow, nil
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return true, fmt.Errorf("read inotify events: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			name := string(nameBytes)
			for i := 0; i < len(name); i++ {
				if name[i] == 0 {
					name = name[:i]
					break
				}
			}
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				overflow = true
				continue
			}
			dir, ok := w.wds[ev.Wd]
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(w.wds, ev.Wd)
				continue
			}
			if !ok {
				continue
			}
			if name == "" { // the folder itself: deleted or moved
				dirty[dir] = dirty[dir] || ev.Mask&unix.IN_MOVE_SELF != 0
				continue
			}
			p := filepath.Join(dir, name)
			deep := ev.Mask&unix.IN_ISDIR != 0 && ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0
			dirty[p] = dirty[p] || deep
		}
	}
}

// forget drops the watches of rel and the folders below it (they were
// deleted or moved; a move is watched again where it landed).
func (w *watcher) forget(rel string) {
	for wd, d := range w.wds {
		if d == rel || under(d, rel) {
			delete(w.wds, wd)
		}
	}
}

func (w *watcher) close() { unix.Close(w.fd) }
