package shell

import (
	"strings"

	"github.com/agentls/agentls/internal/netdest"
)

// destinations reports URLs anywhere, hosts of network tools, and git
// remotes.
func (c *checker) destinations(r *report, fam string, a []arg) {
	for _, w := range a[1:] {
		if w.lit {
			if u := netdest.URLIn(w.val); u != "" {
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
				r.dest(netdest.Host(w.val))
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
			if h := netdest.RemoteHost(w.val); h != "" {
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
