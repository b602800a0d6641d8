package shell

import (
	"path/filepath"
	"strings"
)

// destinations reports URLs anywhere, hosts of network tools, and git
// remotes.
func (c *checker) destinations(r *report, fam string, a []arg) {
	for _, w := range a[1:] {
		if w.lit {
			if u := urlIn(w.val); u != "" {
				r.dest(u)
			}
		}
	}
	ops := func(spec optSpec) []arg { return parseOpts(a[1:], spec).operands }
	switch fam {
	case "ssh", "mosh", "autossh", "telnet", "ping", "ping6", "traceroute", "tracepath", "dig", "host",
		"nslookup", "whois", "sftp", "ftp", "tftp", "nc", "ncat", "netcat", "ssh-copy-id", "ssh-keyscan", "lftp":
		o := ops(optSpec{shortVal: "bcDEeFIiJLlmOoopQRSWwptsqTxWfy"})
		for _, w := range o {
			if w.lit && !strings.HasPrefix(w.val, "@") && !allDigits(w.val) && !strings.Contains(w.val, "://") {
				r.dest(hostOf(w.val))
				break
			}
		}
		if fam == "dig" {
			for _, w := range a[1:] {
				if strings.HasPrefix(w.val, "@") {
					r.dest(w.val[1:])
				}
			}
		}
	case "scp", "rsync":
		for _, w := range ops(optSpec{shortVal: "cFiJloPSe", longVal: []string{"rsh", "exclude", "include", "filter", "port"}}) {
			if h := remoteHost(w.val); h != "" {
				r.dest(h)
			}
		}
	case "git":
		i, _ := gitSub(a)
		if i >= len(a) {
			return
		}
		rest := parseOpts(a[i+1:], optSpec{shortVal: "obj", longVal: []string{"origin", "branch", "upload-pack",
			"receive-pack", "exec", "depth", "reference", "separate-git-dir", "template", "config", "filter",
			"shallow-since", "shallow-exclude", "jobs", "push-option", "repo", "signed", "recurse-submodules", "server-option"}})
		switch a[i].val {
		case "push", "fetch", "pull", "ls-remote":
			if len(rest.operands) > 0 {
				r.dest(rest.operands[0].val)
			} else if !rest.has("--all", "--multiple") || a[i].val != "fetch" {
				r.dest(DefaultGitRemote)
			}
		case "clone":
			if len(rest.operands) > 0 {
				r.dest(rest.operands[0].val)
			}
		case "remote":
			if len(rest.operands) >= 3 && (rest.operands[0].val == "add" || rest.operands[0].val == "set-url") {
				r.dest(rest.operands[len(rest.operands)-1].val)
			}
		case "submodule":
			if len(rest.operands) >= 2 && rest.operands[0].val == "add" {
				r.dest(rest.operands[1].val)
			}
		case "archive":
			if v, ok := rest.get("--remote"); ok {
				r.dest(v)
			}
		}
	}
}

// urlIn extracts a URL (scheme://…) from a word such as --url=https://x.
func urlIn(w string) string {
	i := strings.Index(w, "://")
	if i <= 0 {
		return ""
	}
	j := i
	for j > 0 {
		ch := w[j-1]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '.' || ch == '-' {
			j--
			continue
		}
		break
	}
	if j == i {
		return ""
	}
	return w[j:]
}

// hostOf strips user@ and :port/path from a host argument.
func hostOf(w string) string {
	if at := strings.LastIndex(w, "@"); at >= 0 {
		w = w[at+1:]
	}
	if strings.HasPrefix(w, "[") {
		if end := strings.Index(w, "]"); end > 0 {
			return w[1:end]
		}
	}
	if k := strings.IndexAny(w, ":/"); k >= 0 {
		w = w[:k]
	}
	return w
}

// remoteHost returns the host of an scp/rsync remote operand (host:path,
// user@host:path, rsync://host/…), or "" for a local path.
func remoteHost(w string) string {
	if u := urlIn(w); u != "" {
		rest := u[strings.Index(u, "://")+3:]
		return hostOf(rest)
	}
	colon := strings.Index(w, ":")
	if colon <= 0 || strings.Contains(w[:colon], "/") {
		return ""
	}
	if len(w[:colon]) == 1 && filepath.VolumeName(w) != "" {
		return "" // C:\path
	}
	return hostOf(w[:colon])
}
