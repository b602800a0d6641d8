package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// gitGlobal writes, in the session's folder, the global git configuration
// confined programs use instead of the person's (~/.gitconfig, which they
// cannot read: it often holds tokens in url.*.insteadOf or credential
// helpers): only the person's name and email, so commits still carry them.
// It returns the file's path, or "" when there is no folder to write it in.
func gitGlobal(home, tmp string) string {
	if tmp == "" {
		return ""
	}
	name, email := "", ""
	files := []string{filepath.Join(home, ".gitconfig")}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	} else if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"))
	}
	for _, f := range files {
		n, e := gitIdentity(f)
		if name == "" {
			name = n
		}
		if email == "" {
			email = e
		}
	}
	var b strings.Builder
	b.WriteString("# Written by agentls for confined programs: your ~/.gitconfig is not readable in the sandbox.\n")
	if name != "" || email != "" {
		b.WriteString("[user]\n")
		if name != "" {
			b.WriteString("\tname = " + strconv.Quote(name) + "\n")
		}
		if email != "" {
			b.WriteString("\temail = " + strconv.Quote(email) + "\n")
		}
	}
	p := filepath.Join(tmp, ".agentls-gitconfig")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		return ""
	}
	return p
}

// gitIdentity reads user.name and user.email from one git config file:
// just these two plain keys of a [user] section, nothing it includes.
// A value it misreads costs a commit its author, nothing more.
func gitIdentity(file string) (name, email string) {
	f, err := os.Open(file)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	inUser := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inUser = strings.EqualFold(strings.TrimSpace(strings.Trim(line, "[]")), "user")
			continue
		}
		if !inUser {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		if strings.ContainsAny(v, "\n\r\x00") {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "name":
			name = v
		case "email":
			email = v
		}
	}
	return name, email
}
