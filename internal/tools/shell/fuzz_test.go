package shell

import (
	"path"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// fuzzBanned is an independent list for the fuzz oracle, so the property
// does not just re-run the code under test.
func fuzzBanned(name string) bool {
	switch strings.ToLower(path.Base(name)) {
	case "curl", "wget", "nc", "ssh", "scp", "sudo", "su", "doas", "apt-get", "apt", "yum",
		"dnf", "pacman", "mount", "shutdown", "reboot", "iptables", "telnet", "crontab":
		return true
	}
	return false
}

// plainArgv0 returns the first word of a call when it is plain literal text
// (no quotes, escapes, expansions or patterns), as an oracle independent of
// wordArgs.
func plainArgv0(ce *syntax.CallExpr) (string, bool) {
	if len(ce.Args) == 0 || len(ce.Args[0].Parts) != 1 {
		return "", false
	}
	lit, ok := ce.Args[0].Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "\\{}*?[~") {
		return "", false
	}
	return lit.Value, true
}

func FuzzJudge(f *testing.F) {
	for _, tc := range judgeTable {
		f.Add(tc.cmd)
	}
	f.Add("a | b && c; d || (e) & f `g` $(h) <(i) >(j) <<EOF\n$(curl)\nEOF\n")
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		v, err := JudgeWith(cmd, fx.opts)
		if err != nil {
			return
		}
		if v.Blocked != "" && (v.ReadOnly || v.Fingerprint != "") {
			t.Fatalf("Judge(%q): blocked %q yet ReadOnly=%v Fingerprint=%q", cmd, v.Blocked, v.ReadOnly, v.Fingerprint)
		}
		if v.ReadOnly && (len(v.Writes) > 0 || len(v.Deletes) > 0) {
			t.Fatalf("Judge(%q) is read-only but writes %q and deletes %q", cmd, v.Writes, v.Deletes)
		}
		if v.Fingerprint == "" && v.NoGrant == "" {
			t.Fatalf("Judge(%q): no fingerprint and no reason", cmd)
		}
		file, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("Judge accepted %q but the parser does not: %v", cmd, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok {
				if name, ok := plainArgv0(ce); ok && fuzzBanned(name) {
					if v.ReadOnly {
						t.Fatalf("Judge(%q) is ReadOnly but runs %q", cmd, name)
					}
					if v.Blocked == "" {
						t.Fatalf("Judge(%q) runs %q but is not blocked", cmd, name)
					}
				}
			}
			return true
		})
	})
}
