package tools

// Which files must never leave the machine as context for a model that
// was not asked to read them: inline completion sends the buffer around
// the cursor with every keystroke, without a tool call the gate could
// judge, so it sends nothing of a file the person excluded.

import (
	"path/filepath"
	"strings"
)

// AgentlsIgnoreFile lists, in .gitignore's syntax, files whose text
// agentls never sends for inline completion, whatever git tracks. It
// applies to its folder and every folder below, as a .gitignore does.
const AgentlsIgnoreFile = ".agentlsignore"

// Excluded reports whether the text of the file abs must not be sent to a
// completion model, and why: it lies outside the workspace folders, its
// name marks a secret (.env, a private key, a credentials file) whether or
// not anything ignores it, a .agentlsignore matches it or a folder above
// it, or the ignore files the tools honour (.gitignore, .ignore,
// .rgignore, .git/info/exclude, git's global excludes) hide it or a
// folder above it. It reads the ignore files at each call, so an edit to
// them counts at once.
func (w *Workspace) Excluded(abs string) (why string, excluded bool) {
	if secretFileName(filepath.Base(abs)) {
		return "its name marks a secret", true
	}
	p, err := w.place(abs)
	if err != nil {
		return "it is outside the workspace folders", true
	}
	defer p.release()
	parts := splitRel(p.rel)
	var frame *ignoreFrame
	if l := globalIgnores(p.top); l != nil {
		frame = &ignoreFrame{lists: [ignKinds]*ignoreList{ignGlobal: l}}
	}
	var own []*ignoreList // the .agentlsignore files from the folder down
	dir := "."
	for i, name := range parts {
		isDir := i < len(parts)-1
		absDir := filepath.Join(p.top, dir)
		frame = frame.push(lstatIgnores(p.root, dir), rootIgnores(p.root, dir, absDir))
		if l := loadIgnoreFile(p.root, filepath.Join(dir, AgentlsIgnoreFile), absDir); l != nil {
			own = append(own, l)
		}
		for j := len(own) - 1; j >= 0; j-- { // the deepest file with a matching rule decides
			rel, _ := folderRel(own[j].dir, absDir)
			if ign, decided := own[j].match(rel, name, isDir); decided {
				if ign {
					return AgentlsIgnoreFile + " excludes " + strings.Join(parts[:i+1], "/"), true
				}
				break
			}
		}
		if frame.rules(absDir).ignored(name, isDir) {
			return "the ignore files (.gitignore, .ignore) hide " + strings.Join(parts[:i+1], "/"), true
		}
		dir = filepath.Join(dir, name)
	}
	return "", false
}

// secretFileName reports names that hold credentials by convention: an
// environment file (.env, .env.local — not .env.example and the like), a
// private key or certificate bundle, and the credential files of common
// tools. Their text never goes to a completion model, ignored or not.
func secretFileName(name string) bool {
	lower := strings.ToLower(name)
	if lower == ".env" || strings.HasPrefix(lower, ".env.") {
		for _, safe := range []string{".example", ".sample", ".template", ".dist"} {
			if strings.HasSuffix(lower, safe) {
				return false
			}
		}
		return true
	}
	switch lower {
	case ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", "credentials", "credentials.json",
		".htpasswd", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "secrets.yaml", "secrets.yml", "secrets.json":
		return true
	}
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}
