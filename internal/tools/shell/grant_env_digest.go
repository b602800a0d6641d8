package shell

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Bounds of a grant's environment digest: files larger than this, or
// more files than this, count as a change (no grant matches).
const (
	grantEnvMaxFile  = 1 << 20
	grantEnvMaxFiles = 64
)

// envDigest hashes what shapes a program, entry by entry.
type envDigest struct {
	h     hash.Hash
	files int
	seen  map[string]bool
	// changed is set when something could not be read: the digest then
	// matches no grant, not even one made a moment ago.
	changed bool
}

func newEnvDigest(fam string) *envDigest {
	d := &envDigest{h: sha256.New(), seen: map[string]bool{}}
	fmt.Fprintf(d.h, "program %s\n", fam)
	return d
}

// sum is the digest, "env:" and 32 hex digits.
func (d *envDigest) sum() string {
	if d.changed {
		var nonce [16]byte
		rand.Read(nonce[:])
		d.h.Write(nonce[:])
	}
	return "env:" + hex.EncodeToString(d.h.Sum(nil)[:16])
}

func (d *envDigest) env(kv string) { fmt.Fprintf(d.h, "env %q\n", kv) }

// file hashes a file's content; a missing file adds nothing (its
// appearance changes the digest).
func (d *envDigest) file(path string) {
	if data, ok := d.read(path); ok {
		fmt.Fprintf(d.h, "file %q %x\n", path, sha256.Sum256(data))
	}
}

// read reads a regular file once, bounded. ok is false when it does not
// exist, was read already, or could not be read (which marks a change).
func (d *envDigest) read(path string) ([]byte, bool) {
	path = filepath.Clean(path)
	if d.seen[path] {
		return nil, false
	}
	d.seen[path] = true
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, false
	case err != nil, !st.Mode().IsRegular(), st.Size() > grantEnvMaxFile:
		d.changed = true
		return nil, false
	}
	if d.files++; d.files > grantEnvMaxFiles {
		d.changed = true
		return nil, false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|grantEnvOpenFlag, 0)
	if err != nil {
		d.changed = true
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		d.changed = true // swapped for a FIFO or device since the Stat
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, grantEnvMaxFile+1))
	if err != nil || len(data) > grantEnvMaxFile {
		d.changed = true
		return nil, false
	}
	return data, true
}

// upward hashes each of names in dir and every folder above it.
func (d *envDigest) upward(dir string, names ...string) {
	for {
		for _, n := range names {
			d.file(filepath.Join(dir, n))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}

// nearest hashes the first name found from dir up.
func (d *envDigest) nearest(dir, name string) {
	if f := findUp(dir, name); f != "" {
		d.file(f)
	}
}

// nearestScripts hashes the scripts of the package.json a package
// manager runs from dir (the nearest one up) and returns its folder and
// its workspace patterns; root is "" when there is none.
func (d *envDigest) nearestScripts(dir string) (root string, workspaces []string) {
	f := findUp(dir, "package.json")
	if f == "" {
		return "", nil
	}
	return filepath.Dir(f), d.scripts(f)
}

// scripts hashes what of a package.json decides what runs: its scripts
// and the package manager corepack starts. Other fields (dependencies,
// version) change without changing what a script grant runs. It returns
// the workspace patterns the file declares.
func (d *envDigest) scripts(path string) []string {
	data, ok := d.read(path)
	if !ok {
		return nil
	}
	var pkg struct {
		Scripts        map[string]string `json:"scripts"`
		PackageManager string            `json:"packageManager"`
		Workspaces     json.RawMessage   `json:"workspaces"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		fmt.Fprintf(d.h, "file %q %x\n", path, sha256.Sum256(data)) // what npm cannot read either
		return nil
	}
	canon, _ := json.Marshal(struct {
		Scripts        map[string]string
		PackageManager string
	}{pkg.Scripts, pkg.PackageManager}) // map keys sorted
	fmt.Fprintf(d.h, "scripts %q %x\n", path, sha256.Sum256(canon))
	var list []string
	if json.Unmarshal(pkg.Workspaces, &list) != nil { // or {"packages": [...]}
		var obj struct {
			Packages []string `json:"packages"`
		}
		json.Unmarshal(pkg.Workspaces, &obj)
		list = obj.Packages
	}
	return list
}

// makefile hashes a makefile and the makefiles it includes: literal
// names (globs allowed) relative to cwd, the folder make runs in; an
// include built from variables hashes every *.mk beside the makefile
// instead.
func (d *envDigest) makefile(path, cwd string, depth int) {
	data, ok := d.read(path)
	if !ok {
		return
	}
	fmt.Fprintf(d.h, "file %q %x\n", path, sha256.Sum256(data))
	if depth >= 3 {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, grantEnvMaxFile)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " ")
		var rest string
		for _, kw := range []string{"include ", "-include ", "sinclude "} {
			if r, ok := strings.CutPrefix(line, kw); ok {
				rest = r
			}
		}
		for _, w := range strings.Fields(rest) {
			pattern := filepath.Join(filepath.Dir(path), "*.mk")
			if !strings.Contains(w, "$") {
				pattern = resolveIn(cwd, w)
			}
			matches, _ := filepath.Glob(pattern)
			for _, m := range matches {
				d.makefile(m, cwd, depth+1)
			}
		}
	}
}

// findUp returns the first dir/name found from dir up, or "".
func findUp(dir, name string) string {
	for {
		f := filepath.Join(dir, name)
		if _, err := os.Lstat(f); err == nil {
			return f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
