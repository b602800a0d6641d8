//go:build !linux

package checkpoint

import (
	"errors"
	"os"
)

// watcher is Linux's inotify marker of changed paths; elsewhere there is
// none and every refresh walks the tree (stat only: contents are read for
// the files whose size, mode or times changed).
type watcher struct{}

func newWatcher() (*watcher, error) { return nil, errors.New("no file watcher on this system") }

func (*watcher) add(*os.File, string) error          { return errors.New("no file watcher") }
func (*watcher) drain(map[string]bool) (bool, error) { return true, nil }
func (*watcher) forget(string)                       {}
func (*watcher) close()                              {}
