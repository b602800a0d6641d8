package shell

import (
	"strings"
	"sync"
)

// readOnlyPrograms are the programs a command may run without asking,
// each with every option agentls knows it to take. The key is the exact,
// case-sensitive name the program must be called by; it must also resolve
// through PATH to a file outside the workspace (resolve.go). Options are
// written as the programs' own --help lists them (GNU coreutils 9, grep
// 3, findutils, ripgrep 14, tree 2, jq 1.6); an option that is missing is
// unknown, and an unknown option makes a command not read-only.
var readOnlyPrograms = sync.OnceValue(func() map[string]*program {
	m := map[string]*program{}
	add := func(p *program, names ...string) {
		for _, n := range names {
			m[n] = p
		}
	}
	gnu := func(spec string) *optTable { return optionTable(styleGNU, spec+"\n--help\n--version") }

	add(&program{dot: true, follows: followsWith(nil, []string{"-R", "-L"}), opts: gnu(`
		-a --all
		-A --almost-all
		--author
		-b --escape
		--block-size=
		-B --ignore-backups
		-c
		-C
		--color[=]
		-d --directory
		-D --dired
		-f
		-F --classify[=]
		--file-type
		--format=
		--full-time
		-g
		--group-directories-first
		-G --no-group
		-h --human-readable
		--si
		-H --dereference-command-line
		--dereference-command-line-symlink-to-dir
		--hide=
		--hyperlink[=]
		--indicator-style=
		-i --inode
		-I= --ignore=
		-k --kibibytes
		-l
		-L --dereference
		-m
		-n --numeric-uid-gid
		-N --literal
		-o
		-p
		-q --hide-control-chars
		--show-control-chars
		-Q --quote-name
		--quoting-style=
		-r --reverse
		-R --recursive
		-s --size
		-S
		--sort=
		--time=
		--time-style=
		-t
		-T= --tabsize=
		-u
		-U
		-v
		-w= --width=
		-x
		-X
		-Z --context
		--zero
		-1`)}, "ls", "dir", "vdir")

	add(&program{opts: gnu(`
		-A --show-all
		-b --number-nonblank
		-e
		-E --show-ends
		-n --number
		-s --squeeze-blank
		-t
		-T --show-tabs
		-u
		-v --show-nonprinting`)}, "cat")
	add(&program{opts: gnu(`
		-b --before
		-r --regex
		-s= --separator=`)}, "tac")
	add(&program{opts: gnu("")}, "rev")

	add(&program{opts: gnu(`
		#digits
		-c= --bytes=
		-n= --lines=
		-q --quiet --silent
		-v --verbose
		-z --zero-terminated`)}, "head")
	add(&program{opts: gnu(`
		#digits
		-c= --bytes=
		-f --follow[=]
		-F
		-n= --lines=
		--max-unchanged-stats=
		--pid=
		-q --quiet --silent
		--retry
		-s= --sleep-interval=
		-v --verbose
		-z --zero-terminated`)}, "tail")

	add(&program{opts: gnu(`
		-c --bytes
		-m --chars
		-l --lines
		--files0-from= >list
		-L --max-line-length
		-w --words
		--total=`)}, "wc")

	add(&program{opts: gnu(`
		-L --dereference
		-f --file-system
		--cached=
		-c= --format=
		--printf=
		-t --terse`)}, "stat")

	add(&program{opts: gnu(`
		-m= --magic-file= >read
		-z --uncompress
		-Z --uncompress-noreport
		-b --brief
		-c --checking-printout
		-e= --exclude=
		--exclude-quiet=
		-f= --files-from= >list
		-F= --separator=
		-i --mime
		--apple
		--extension
		--mime-type
		--mime-encoding
		-k --keep-going
		-l --list
		-L --dereference
		-h --no-dereference
		-n --no-buffer
		-N --no-pad
		-0 --print0
		-p --preserve-date >change
		-P= --parameter=
		-r --raw
		-s --special-files
		-S --no-sandbox >change
		-C --compile >write
		-d --debug`)}, "file")

	add(&program{dot: true, follows: followsWith(nil, []string{"-L"}), opts: gnu(`
		-0 --null
		-a --all
		-A --apparent-size
		-B= --block-size=
		-b --bytes
		-c --total
		-D --dereference-args
		-d= --max-depth=
		--files0-from= >list
		-H
		-h --human-readable
		--inodes
		-k
		-L --dereference
		-l --count-links
		-m
		-P --no-dereference
		-S --separate-dirs
		--si
		-s --summarize
		-t= --threshold=
		--time[=]
		--time-style=
		-X= --exclude-from= >read
		--exclude=
		-x --one-file-system`)}, "du")
	add(&program{opts: gnu(`
		-a --all
		-B= --block-size=
		-h --human-readable
		-H --si
		-i --inodes
		-k
		-l --local
		--no-sync
		--output[=]
		-P --portability
		--sync
		--total
		-t= --type=
		-T --print-type
		-x= --exclude-type=`)}, "df")

	add(&program{opts: gnu(`
		-b= --body-numbering=
		-d= --section-delimiter=
		-f= --footer-numbering=
		-h= --header-numbering=
		-i= --line-increment=
		-l= --join-blank-lines=
		-n= --number-format=
		-p --no-renumber
		-s= --number-separator=
		-v= --starting-line-number=
		-w= --number-width=`)}, "nl")
	add(&program{opts: gnu(`
		-b= --bytes=
		-c= --characters=
		-d= --delimiter=
		-f= --fields=
		-n
		--complement
		-s --only-delimited
		--output-delimiter=
		-z --zero-terminated`)}, "cut")
	add(&program{opts: gnu(`
		-d= --delimiters=
		-s --serial
		-z --zero-terminated`)}, "paste")
	add(&program{opts: gnu(`
		-a=
		-e=
		-i --ignore-case
		-j=
		-o=
		-t=
		-v=
		-1=
		-2=
		--check-order
		--nocheck-order
		--header
		-z --zero-terminated`)}, "join")
	add(&program{opts: gnu(`
		-1
		-2
		-3
		--check-order
		--nocheck-order
		--output-delimiter=
		--total
		-z --zero-terminated`)}, "comm")
	add(&program{opts: gnu(`
		-b --bytes
		-s --spaces
		-w= --width=`)}, "fold")
	add(&program{operands: dataOperands, opts: gnu(`
		-c -C --complement
		-d --delete
		-s --squeeze-repeats
		-t --truncate-set1`)}, "tr")

	add(&program{opts: gnu(`
		-b --ignore-leading-blanks
		-d --dictionary-order
		-f --ignore-case
		-g --general-numeric-sort
		-i --ignore-nonprinting
		-M --month-sort
		-h --human-numeric-sort
		-n --numeric-sort
		-R --random-sort
		--random-source= >read
		-r --reverse
		--sort=
		-V --version-sort
		--batch-size=
		-c --check[=]
		-C
		--compress-program= >exec
		--debug
		--files0-from= >list
		-k= --key=
		-m --merge
		-o= --output= >write
		-s --stable
		-S= --buffer-size=
		-t= --field-separator=
		-T= --temporary-directory= >write
		--parallel=
		-u --unique
		-z --zero-terminated`)}, "sort")
	add(&program{operands: maxFiles(1, "uniq"), opts: gnu(`
		-c --count
		-d --repeated
		-D
		--all-repeated[=]
		-f= --skip-fields=
		--group[=]
		-i --ignore-case
		-s= --skip-chars=
		-u --unique
		-z --zero-terminated
		-w= --check-chars=`)}, "uniq")

	add(&program{follows: followsWith([]string{"--no-dereference"}, []string{"-r"}), opts: gnu(`
		--normal
		-q --brief
		-s --report-identical-files
		-c
		-C=
		--context[=]
		-u
		-U=
		--unified[=]
		-e --ed
		-n --rcs
		-y --side-by-side
		-W= --width=
		--left-column
		--suppress-common-lines
		-p --show-c-function
		-F= --show-function-line=
		--label=
		-t --expand-tabs
		-T --initial-tab
		--tabsize=
		--suppress-blank-empty
		-l --paginate >exec
		-r --recursive
		--no-dereference
		-N --new-file
		--unidirectional-new-file
		--ignore-file-name-case
		--no-ignore-file-name-case
		-x= --exclude=
		-X= --exclude-from= >read
		-S= --starting-file=
		--from-file= >read
		--to-file= >read
		-i --ignore-case
		-E --ignore-tab-expansion
		-Z --ignore-trailing-space
		-b --ignore-space-change
		-w --ignore-all-space
		-B --ignore-blank-lines
		-I= --ignore-matching-lines=
		-a --text
		--strip-trailing-cr
		-D= --ifdef=
		--old-group-format=
		--new-group-format=
		--changed-group-format=
		--unchanged-group-format=
		--line-format=
		--old-line-format=
		--new-line-format=
		--unchanged-line-format=
		-d --minimal
		--horizon-lines=
		--speed-large-files
		--color[=]
		--palette=
		-v`)}, "diff")
	add(&program{opts: gnu(`
		-b --print-bytes
		-i= --ignore-initial=
		-l --verbose
		-n= --bytes=
		-s --quiet --silent
		-v`)}, "cmp")

	sums := gnu(`
		-b --binary
		-c --check >change
		--tag
		-t --text
		-z --zero
		--ignore-missing
		--quiet
		--status
		--strict
		-w --warn`)
	add(&program{opts: sums}, "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum")

	grepPattern := []string{"-e", "-f"}
	add(&program{operands: recursiveDot(grepPattern, "-r", "-R"), follows: followsWith(nil, []string{"-R"}), opts: gnu(`
		#digits
		-E --extended-regexp
		-F --fixed-strings
		-G --basic-regexp
		-P --perl-regexp
		-e= --regexp=
		-f= --file= >read
		-i -y --ignore-case
		--no-ignore-case
		-w --word-regexp
		-x --line-regexp
		-z --null-data
		-s --no-messages
		-v --invert-match
		-V
		-m= --max-count=
		-b --byte-offset
		-n --line-number
		--no-line-number
		--line-buffered
		-H --with-filename
		-h --no-filename
		--label=
		-o --only-matching
		-q --quiet --silent
		--binary-files=
		-a --text
		-I
		-d= --directories=
		-D= --devices=
		-r --recursive
		-R --dereference-recursive
		--include=
		--exclude=
		--exclude-from= >read
		--exclude-dir=
		-L --files-without-match
		-l --files-with-matches
		-c --count
		-T --initial-tab
		-Z --null
		-B= --before-context=
		-A= --after-context=
		-C= --context=
		--group-separator=
		--no-group-separator
		--color[=] --colour[=]
		-U --binary`)}, "grep", "egrep", "fgrep")

	add(&program{dot: true, follows: followsWith(nil, []string{"-L"}), operands: patternThenFiles("-e", "-f", "--files", "--type-list"), opts: gnu(`
		-e= --regexp=
		-f= --file= >read
		--pre= >exec
		--pre-glob=
		--hostname-bin= >exec
		-z --search-zip >exec
		-A= --after-context=
		-B= --before-context=
		-C= --context=
		-c --count
		--count-matches
		-l --files-with-matches
		--files-without-match
		--files
		-F --fixed-strings
		-g= --glob=
		--iglob=
		--glob-case-insensitive
		-i --ignore-case
		-S --smart-case
		-s --case-sensitive
		-n --line-number
		-N --no-line-number
		-H --with-filename
		-I --no-filename
		--heading
		--no-heading
		-o --only-matching
		-r= --replace=
		-t= --type=
		-T= --type-not=
		--type-list
		-u --unrestricted
		--hidden
		--no-hidden
		-L --follow
		--no-ignore
		--no-ignore-vcs
		--no-ignore-dot
		--no-ignore-global
		--no-ignore-parent
		--no-ignore-exclude
		--ignore-file= >read
		-v --invert-match
		-w --word-regexp
		-x --line-regexp
		-m= --max-count=
		-d= --max-depth= --maxdepth=
		--max-filesize=
		-M= --max-columns=
		--max-columns-preview
		-P --pcre2
		-E= --encoding=
		-U --multiline
		--multiline-dotall
		-j= --threads=
		--json
		--vimgrep
		--column
		--no-column
		-b --byte-offset
		-0 --null
		--null-data
		-a --text
		--binary
		--color=
		--colors=
		-p --pretty
		--sort=
		--sortr=
		--stats
		-q --quiet
		--trim
		--passthru
		--one-file-system
		--no-messages
		--no-config
		--line-buffered
		--block-buffered
		--crlf
		--debug
		--trace
		-.`)}, "rg")

	add(&program{dot: true, follows: followsWith(nil, []string{"-l"}), opts: gnu(`
		-a
		-d
		-l
		-f
		-x
		-L=
		-R >write
		-P=
		-I=
		--gitignore
		--gitfile= >read
		--ignore-case
		--matchdirs
		--metafirst
		--prune
		--info
		--infofile= >read
		--noreport
		--charset=
		--filelimit=
		-o= >write
		-q
		-N
		-Q
		-p
		-u
		-g
		-s
		-h
		--si
		--du
		-D
		--timefmt=
		-F
		--inodes
		--device
		-v
		-t
		-c
		-U
		-r
		--dirsfirst
		--filesfirst
		--sort=
		-i
		-A
		-S
		-n
		-C
		-X
		-J
		-H=
		-T=
		--nolinks
		--fromfile >list
		--fromtabfile >list
		--fflinks
		--noindent`)}, "tree")

	add(&program{opts: gnu(`
		-e --canonicalize-existing
		-m --canonicalize-missing
		-L --logical
		-P --physical
		-q --quiet
		--relative-to=
		--relative-base=
		-s --strip --no-symlinks
		-z --zero`)}, "realpath")
	add(&program{opts: gnu(`
		-f --canonicalize
		-e --canonicalize-existing
		-m --canonicalize-missing
		-n --no-newline
		-q --quiet
		-s --silent
		-v --verbose
		-z --zero`)}, "readlink")
	add(&program{operands: dataOperands, opts: gnu(`
		-a --multiple
		-s= --suffix=
		-z --zero`)}, "basename")
	add(&program{operands: dataOperands, opts: gnu(`-z --zero`)}, "dirname")

	add(&program{operands: dataOperands, check: dateCheck, opts: gnu(`
		-d= --date=
		--debug
		-f= --file= >read
		-I[=] --iso-8601[=]
		--resolution
		-R --rfc-email --rfc-2822
		--rfc-3339=
		-r= --reference= >read
		-s= --set= >change
		-u --utc --universal`)}, "date")
	add(&program{operands: dataOperands, opts: gnu(`
		-a --all
		-s --kernel-name
		-n --nodename
		-r --kernel-release
		-v --kernel-version
		-m --machine
		-p --processor
		-i --hardware-platform
		-o --operating-system`)}, "uname")
	add(&program{operands: noOperands("id"), opts: gnu(`
		-a
		-Z --context
		-g --group
		-G --groups
		-n --name
		-r --real
		-u --user
		-z --zero`)}, "id")
	add(&program{operands: noOperands("whoami"), opts: gnu("")}, "whoami", "arch", "tty")
	add(&program{operands: noOperands("groups"), opts: gnu("")}, "groups")
	add(&program{operands: noOperands("nproc"), opts: gnu(`
		--all
		--ignore=`)}, "nproc")
	add(&program{operands: noOperands("uptime"), opts: gnu(`
		-p --pretty
		-s --since`)}, "uptime")
	add(&program{operands: noOperands("hostname"), opts: gnu(`
		-a --alias
		-A --all-fqdns
		-d --domain
		-f --fqdn --long
		-i --ip-address
		-I --all-ip-addresses
		-s --short
		-y --yp --nis`)}, "hostname")
	add(&program{operands: dataOperands, opts: gnu(`
		-f= --format=
		-s= --separator=
		-w --equal-width`)}, "seq")
	add(&program{operands: dataOperands, opts: gnu("")}, "expr", "sleep")
	add(&program{operands: dataOperands, opts: gnu("-0 --null")}, "printenv")
	add(&program{operands: dataOperands, opts: gnu(`
		-a --all
		--read-alias
		--skip-alias
		--read-functions
		--skip-functions
		--skip-dot
		--skip-tilde
		--show-dot
		--show-tilde
		-i
		--tty-only`)}, "which")
	add(&program{operands: dataOperands, opts: gnu(`
		-b
		-m
		-s
		-u
		-l
		-f`)}, "whereis")
	add(&program{operands: dataOperands, opts: gnu(`
		-a --all-locales
		-c --category-name
		-k --keyword-name
		-m --charmaps
		-v --verbose`)}, "locale")

	add(&program{opts: gnu(`
		-A= --address-radix=
		--endian=
		-j= --skip-bytes=
		-N= --read-bytes=
		-S= --strings[=]
		-t= --format=
		-v --output-duplicates
		-w[=] --width[=]
		--traditional
		-a
		-b
		-c
		-d
		-f
		-i
		-l
		-o
		-s
		-x`)}, "od")
	add(&program{opts: gnu(`
		-a --all
		-d --radix=
		-e= --encoding=
		-f --print-file-name
		-n= --bytes=
		-t=
		-o
		-w --include-all-whitespace
		-s= --output-separator=
		-T= --target=
		--unicode=`)}, "strings")
	add(&program{opts: optionTable(styleGNU, `
		-t --table
		-n= --table-name=
		-O= --table-order=
		-N= --table-columns=
		-l= --table-columns-limit=
		-E= --table-noextreme=
		-d --table-noheadings
		-e --table-header-repeat
		-H= --table-hide=
		-R= --table-right=
		-T= --table-truncate=
		-W= --table-wrap=
		-L --keep-empty-lines
		-J --json
		-r= --tree=
		-i= --tree-id=
		-p= --tree-parent=
		-c= --output-width=
		-o= --output-separator=
		-s= --separator=
		-x --fillrows
		-h --help
		-V --version`)}, "column")

	add(&program{operands: sedOperands, check: sedCheck, opts: gnu(`
		-n --quiet --silent
		--debug
		-e= --expression=
		-f= --file= >read
		--follow-symlinks
		-i[=] --in-place[=]
		-l= --line-length=
		--posix
		-E -r --regexp-extended
		-s --separate
		--sandbox
		-u --unbuffered
		-z --null-data`)}, "sed")
	return m
})

// noOperands: any operand makes the program do something else (hostname
// NAME sets the host name; id USER only looks a user up, but is rare).
func noOperands(name string) func(cl cmdLine, e *effects) {
	return func(cl cmdLine, e *effects) {
		if len(cl.operands) > 0 {
			e.not("%s %s: operands are not read-only for %s", name, cl.operands[0], name)
		}
	}
}

// dateCheck: an operand other than +FORMAT sets the clock.
func dateCheck(cl cmdLine, e *effects) {
	for _, o := range cl.operands {
		if !strings.HasPrefix(o, "+") {
			e.not("date %s sets the clock", o)
		}
	}
}
