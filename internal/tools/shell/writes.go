package shell

import (
	"strings"

	"github.com/agentls/agentls/internal/netdest"
)

// fileTargets records what file-changing commands write and delete, and
// blocks changes to system paths and the home folder itself. The targets
// are the words as the command sees them; the caller (and, at run time,
// the guard) decides what lies outside the workspace.
func (c *checker) fileTargets(r *report, fam string, words []arg) {
	switch fam {
	case "rm", "rmdir", "unlink", "shred":
		p := parseOpts(words, writeSpec(fam))
		c.checkWrites(r, fam, p.operands)
		c.targets(r, &r.deletes, p.operands)
	case "chown", "chmod", "chgrp", "chattr", "chflags", "touch", "truncate", "mkdir", "tee", "setfacl", "mknod", "mkfifo":
		p := parseOpts(words, writeSpec(fam))
		ops := p.operands
		if (fam == "chown" || fam == "chmod" || fam == "chgrp" || fam == "setfacl") && !p.has("--reference") && len(ops) > 0 {
			ops = ops[1:] // the owner or mode comes first
		}
		c.checkWrites(r, fam, ops)
		c.targets(r, &r.writes, ops)
	case "mv":
		p := parseOpts(words, writeSpec(fam))
		srcs, dst := p.operands, []arg(nil)
		if t, ok := p.get("-t", "--target-directory"); ok {
			dst = []arg{{val: t, lit: true}}
		} else if len(srcs) >= 2 {
			srcs, dst = srcs[:len(srcs)-1], srcs[len(srcs)-1:]
		}
		c.checkWrites(r, fam, append(append([]arg(nil), srcs...), dst...))
		c.targets(r, &r.deletes, srcs) // moved away is gone from where it was
		c.targets(r, &r.writes, dst)
	case "cp", "ln", "install", "rsync":
		p := parseOpts(words, writeSpec(fam))
		if fam == "rsync" {
			for _, o := range p.operands {
				if h := netdest.RemoteHost(o.val); h != "" {
					r.block("%q is not allowed: it copies over the network (%s)", "rsync", h)
					return
				}
			}
		}
		var dst []arg
		if t, ok := p.get("-t", "--target-directory"); ok && fam != "rsync" {
			dst = []arg{{val: t, lit: true}}
		} else if len(p.operands) >= 2 {
			dst = p.operands[len(p.operands)-1:]
		} else if len(p.operands) == 1 && fam == "ln" {
			dst = []arg{{val: ".", lit: true}} // the link goes in the working folder
		}
		c.checkWrites(r, fam, dst)
		c.targets(r, &r.writes, dst)
	case "dd":
		for _, w := range words {
			if t, ok := strings.CutPrefix(w.val, "of="); ok && w.lit {
				a := arg{val: t, lit: true, glob: w.glob, tilde: strings.HasPrefix(t, "~")}
				c.checkWrites(r, "dd", []arg{a})
				c.targets(r, &r.writes, []arg{a})
			}
		}
	case "tar", "gtar", "bsdtar":
		c.tarTargets(r, words)
	case "unzip":
		p := parseOpts(words, optSpec{shortVal: "dxP"})
		if d, ok := p.get("-d"); ok {
			c.targets(r, &r.writes, []arg{{val: d, lit: true}})
		} else {
			c.targets(r, &r.writes, []arg{{val: ".", lit: true}})
		}
	}
}

// targets records known target words in list; unknown words are left to
// the run-time guard, which sees their values.
func (c *checker) targets(r *report, list *[]string, words []arg) {
	for _, w := range words {
		if w.known() && w.val != "" && w.val != "-" {
			c.addPath(r, list, w.val)
		}
	}
}

// tarTargets: extracting writes into -C (or the working folder); creating
// writes the archive named by -f.
func (c *checker) tarTargets(r *report, words []arg) {
	p := parseOpts(words, optSpec{shortVal: "fCTXbHKLNV", longVal: []string{"file", "directory", "files-from",
		"exclude-from", "to-command", "use-compress-program", "blocking-factor", "format", "label"}})
	mode := ""
	if len(words) > 0 && words[0].lit && !strings.HasPrefix(words[0].val, "-") {
		mode = words[0].val // old style: tar xzf archive
	}
	for _, o := range p.opts {
		mode += strings.TrimPrefix(o.name, "-")
	}
	switch {
	case strings.ContainsAny(mode, "x") || p.has("--extract", "--get"):
		dir := "."
		if d, ok := p.get("-C", "--directory"); ok {
			dir = d
		}
		c.targets(r, &r.writes, []arg{{val: dir, lit: true}})
	case strings.ContainsAny(mode, "cru") || p.has("--create", "--append", "--update"):
		if f, ok := p.get("-f", "--file"); ok {
			c.targets(r, &r.writes, []arg{{val: f, lit: true}})
		}
	}
}
