package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agentls/agentls/internal/tools/confine"
)

// Why a path counts as outside the workspace, for the model.
const (
	whyNoFolder = "not inside any workspace folder"
	whyLinkOut  = "a symbolic link leads out"
)

// whyHardLinks is the reason for a regular file with several names: one
// of them may be outside the workspace, and reading or writing it there
// would reach that file.
func whyHardLinks(n uint64) string {
	return fmt.Sprintf("it has %d hard links, so the same file may also be outside the workspace; agentls treats such files as outside", n)
}

// outsideError is a path that counts as outside the workspace: under no
// folder, reached through a symbolic link that leads out, or a regular
// file with more than one hard link.
type outsideError struct {
	path string
	why  string
}

// Error names the path and why it is outside.
func (e *outsideError) Error() string {
	return fmt.Sprintf("%s is outside the workspace (%s); agentls reads and writes only inside the workspace folders", e.path, e.why)
}

// Outside returns why abs counts as outside the workspace, as an
// *outsideError, or nil when it is inside. It follows symbolic links only
// while they stay inside a folder (a link that leads out makes the path
// outside, whether its target exists or not) and counts a regular file
// with more than one hard link as outside. A path that does not exist yet
// is inside when its existing folders are. Other failures (a folder that
// cannot be read) are not judged here: the operation itself goes through
// the root and fails with its own error.
func (w *Workspace) Outside(abs string) error {
	p, err := w.place(abs)
	var oe *outsideError
	if errors.As(err, &oe) {
		return oe
	}
	if err != nil {
		return nil
	}
	defer p.release()
	err = p.inRoot(true, func(rel string) error {
		fi, err := p.root.Stat(rel)
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		if n := hardLinks(p.root, rel, fi); n > 1 {
			return &outsideError{path: p.abs, why: whyHardLinks(n)}
		}
		return nil
	})
	if errors.As(err, &oe) {
		return oe
	}
	return nil
}

// Inside reports whether abs counts as inside the workspace (see Outside).
func (w *Workspace) Inside(abs string) bool { return w.Outside(abs) == nil }

// hardLinks returns how many names the regular file rel of r, described
// by fi, has (1 when the system cannot tell).
func hardLinks(r *os.Root, rel string, fi fs.FileInfo) uint64 {
	if n, ok := confine.LinkCount(fi, nil); ok {
		return n
	}
	f, err := r.Open(rel)
	if err != nil {
		return 1
	}
	defer f.Close()
	n, _ := confine.LinkCount(fi, f)
	return n
}

// outsideMessage is the refusal of a read-only tool for abs, which
// Inside found outside.
func outsideMessage(ws *Workspace, abs string) string {
	why := whyLinkOut // inside again now: a link came and went
	var oe *outsideError
	if errors.As(ws.Outside(abs), &oe) {
		abs, why = oe.path, oe.why
	}
	return fmt.Sprintf("%s is outside the workspace (%s); agentls only reads inside the workspace folders (%s). Use a path inside a workspace folder.", abs, why, rootList(ws))
}

// blockedWrite is the refusal of a change; err is what Outside returned.
func blockedWrite(ws *Workspace, err error) string {
	path, why := outsideParts(err)
	return fmt.Sprintf("%s is outside the workspace (%s); agentls writes only inside the workspace folders (%s)", path, why, rootList(ws))
}

func outsideParts(err error) (path, why string) {
	var oe *outsideError
	if errors.As(err, &oe) {
		return oe.path, oe.why
	}
	return "the path", err.Error()
}

func rootList(ws *Workspace) string {
	if roots := ws.Roots(); len(roots) > 0 {
		return strings.Join(roots, ", ")
	}
	return "none open"
}
