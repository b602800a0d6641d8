package shell

import (
	"slices"
	"testing"
)

func TestParseLine(t *testing.T) {
	gnu := optionTable(styleGNU, `
		-o= --output= >write
		--compress-program= >exec
		-n --numeric-sort
		-k= --key=
		--color[=]
		-r --reverse
		#digits`)
	goT := optionTable(styleGoAny, "-o= >write\n-v\n-run=")
	posix := optionTable(stylePOSIX, "-u\n-W=")
	for _, tc := range []struct {
		name    string
		t       *optTable
		words   []string
		opts    []string // canonical name=value
		ops     []string
		unknown string
	}{
		{"cluster", gnu, []string{"-nr", "f"}, []string{"-n=", "-r="}, []string{"f"}, ""},
		{"attached value", gnu, []string{"-oout.txt", "f"}, []string{"-o=out.txt"}, []string{"f"}, ""},
		{"cluster then value", gnu, []string{"-nrk2", "f"}, []string{"-n=", "-r=", "-k=2"}, []string{"f"}, ""},
		{"next word value", gnu, []string{"-o", "out", "f"}, []string{"-o=out"}, []string{"f"}, ""},
		{"long =", gnu, []string{"--output=x"}, []string{"--output=x"}, nil, ""},
		{"long next", gnu, []string{"--output", "x"}, []string{"--output=x"}, nil, ""},
		{"abbreviation", gnu, []string{"--o=x"}, []string{"--output=x"}, nil, ""},
		{"abbreviation next word", gnu, []string{"--out", "x"}, []string{"--output=x"}, nil, ""},
		{"abbreviation of exec", gnu, []string{"--comp=sh"}, []string{"--compress-program=sh"}, nil, ""},
		{"ambiguous", optionTable(styleGNU, "--output=\n--outline"), []string{"--out=x"}, nil, nil, "--out=x"},
		{"exact beats prefix", optionTable(styleGNU, "--out\n--output="), []string{"--out"}, []string{"--out="}, nil, ""},
		{"optional only attached", gnu, []string{"--color", "always"}, []string{"--color="}, []string{"always"}, ""},
		{"value on a flag", gnu, []string{"--reverse=yes"}, nil, nil, "--reverse=yes"},
		{"missing value", gnu, []string{"-o"}, nil, nil, "-o"},
		{"unknown short in cluster", gnu, []string{"-nx"}, []string{"-n="}, nil, "-nx"},
		{"permuted", gnu, []string{"f", "-r", "g"}, []string{"-r="}, []string{"f", "g"}, ""},
		{"double dash", gnu, []string{"--", "-r"}, nil, []string{"-r"}, ""},
		{"digits", gnu, []string{"-20", "f"}, []string{"-20="}, []string{"f"}, ""},
		{"go single dash value", goT, []string{"-o=bin/x", "./..."}, []string{"-o=bin/x"}, []string{"./..."}, ""},
		{"go double dash", goT, []string{"--o", "x"}, []string{"-o=x"}, nil, ""},
		{"go flags after packages", goT, []string{"./...", "-o", "x"}, []string{"-o=x"}, []string{"./..."}, ""},
		{"go no clusters", goT, []string{"-vo"}, nil, nil, "-vo"},
		{"go -args ends flags", goT, []string{"./...", "-args", "-o", "x"}, nil, []string{"./...", "-o", "x"}, ""},
		{"posix stops at operand", posix, []string{"-u", "s.py", "-W", "x"}, []string{"-u="}, []string{"s.py", "-W", "x"}, ""},
	} {
		cl := tc.t.parseLine(tc.words)
		var opts []string
		for _, o := range cl.opts {
			name := o.name
			if o.def.names[0] == "-NUM" {
				name = o.name
			}
			opts = append(opts, name+"="+o.val)
		}
		if !slices.Equal(opts, tc.opts) || !slices.Equal(cl.operands, tc.ops) || cl.unknown != tc.unknown {
			t.Errorf("%s: %q → opts %q operands %q unknown %q; want %q %q %q", tc.name, tc.words, opts, cl.operands, cl.unknown, tc.opts, tc.ops, tc.unknown)
		}
	}
}

func TestScanSed(t *testing.T) {
	for _, tc := range []struct {
		script string
		ro     bool
		err    bool
		writes []string
		reads  []string
	}{
		{"1,40p", true, false, nil, nil},
		{"s/a/b/g", true, false, nil, nil},
		{"s|/usr|/opt|gp;/x/d", true, false, nil, nil},
		{"$!N;s/\\n/ /", true, false, nil, nil},
		{"/start/,/end/{s/x/y/;p}", true, false, nil, nil},
		{"1!G;h;$!d", true, false, nil, nil},
		{"a\\\nappended", true, false, nil, nil},
		{"i hello; not a command", true, false, nil, nil},
		{"y/abc/xyz/", true, false, nil, nil},
		{"# comment\np", true, false, nil, nil},
		{"1e id", false, false, nil, nil},
		{"s/x/y/e", false, false, nil, nil},
		{"s/x/y/w /tmp/out", false, false, []string{"/tmp/out"}, nil},
		{"s/x/y/gw out.txt", false, false, []string{"out.txt"}, nil},
		{"w /tmp/x", false, false, []string{"/tmp/x"}, nil},
		{"1W out", false, false, []string{"out"}, nil},
		{"r /etc/passwd", true, false, nil, []string{"/etc/passwd"}},
		{"s/[/]/x/w evil", false, true, nil, nil}, // sed reads the [ as the end of the regex: the flags are bad
		{"p;e", false, false, nil, nil},
		{"{p", false, true, nil, nil},
		{"s/a/b", false, true, nil, nil},
		{"k", false, true, nil, nil},
	} {
		fx, err := scanSed(tc.script)
		if (err != nil) != tc.err {
			t.Errorf("scanSed(%q) err = %v, want error %v", tc.script, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if (fx.why == "") != tc.ro || !slices.Equal(fx.writes, tc.writes) || !slices.Equal(fx.reads, tc.reads) {
			t.Errorf("scanSed(%q) = why %q writes %q reads %q; want read-only %v writes %q reads %q", tc.script, fx.why, fx.writes, fx.reads, tc.ro, tc.writes, tc.reads)
		}
	}
}
