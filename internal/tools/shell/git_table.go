package shell

import "sync"

// gitDiffOptions are the diff options git's diff family, log, show and
// stash show all take (git-diff(1) "OPTIONS", git 2.39–2.47).
const gitDiffOptions = `
	-p -u --patch
	-s --no-patch
	-U= --unified=
	--output= >write
	--output-indicator-new=
	--output-indicator-old=
	--output-indicator-context=
	--raw
	--patch-with-raw
	-t
	--indent-heuristic
	--no-indent-heuristic
	--minimal
	--patience
	--histogram
	--anchored=
	--diff-algorithm=
	--stat[=]
	--stat-width=
	--stat-name-width=
	--stat-count=
	--stat-graph-width=
	--compact-summary
	--numstat
	--shortstat
	-X[=] --dirstat[=]
	--cumulative
	--dirstat-by-file[=]
	--summary
	--patch-with-stat
	-z
	--name-only
	--name-status
	--submodule[=]
	--color[=]
	--no-color
	--color-moved[=]
	--no-color-moved
	--color-moved-ws=
	--no-color-moved-ws
	--word-diff[=]
	--word-diff-regex=
	--color-words[=]
	--no-renames
	--rename-empty
	--no-rename-empty
	--check
	--ws-error-highlight=
	--full-index
	--binary
	--abbrev[=]
	--no-abbrev
	-B[=] --break-rewrites[=]
	-M[=] --find-renames[=]
	-C[=] --find-copies[=]
	--find-copies-harder
	-D --irreversible-delete
	-l=
	--diff-filter=
	-S=
	-G=
	--find-object=
	--pickaxe-all
	--pickaxe-regex
	-O= >read
	--skip-to=
	--rotate-to=
	-R
	--relative[=]
	--no-relative
	-a --text
	--ignore-cr-at-eol
	--ignore-space-at-eol
	-b --ignore-space-change
	-w --ignore-all-space
	--ignore-blank-lines
	-I= --ignore-matching-lines=
	--inter-hunk-context=
	-W --function-context
	--no-function-context
	--exit-code
	--quiet
	--ext-diff >exec
	--no-ext-diff
	--textconv >exec
	--no-textconv
	--ignore-submodules[=]
	--src-prefix=
	--dst-prefix=
	--no-prefix
	--default-prefix
	--line-prefix=
	--ita-invisible-in-index
	--ita-visible-in-index`

// gitRevOptions are the commit-limiting and formatting options of git log,
// show, rev-list, shortlog and reflog (git-log(1), git-rev-list(1)).
const gitRevOptions = `
	#digits
	-n= --max-count=
	--skip=
	--since= --after=
	--until= --before=
	--since-as-filter=
	--author=
	--committer=
	--grep-reflog=
	--grep=
	--all-match
	--invert-grep
	-i --regexp-ignore-case
	--basic-regexp
	-E --extended-regexp
	-F --fixed-strings
	-P --perl-regexp
	--remove-empty
	--merges
	--no-merges
	--min-parents=
	--max-parents=
	--no-min-parents
	--no-max-parents
	--first-parent
	--exclude-first-parent-only
	--not
	--all
	--branches[=]
	--tags[=]
	--remotes[=]
	--glob=
	--exclude=
	--exclude-hidden=
	--reflog
	--alternate-refs
	--single-worktree
	--ignore-missing
	--bisect
	--stdin
	--cherry-mark
	--cherry-pick
	--left-only
	--right-only
	--cherry
	-g --walk-reflogs
	--merge
	--boundary
	--simplify-by-decoration
	--full-history
	--dense
	--sparse
	--simplify-merges
	--ancestry-path[=]
	--show-pulls
	--date-order
	--author-date-order
	--topo-order
	--reverse
	--no-walk[=]
	--do-walk
	--format=
	--pretty[=]
	--abbrev-commit
	--no-abbrev-commit
	--oneline
	--encoding=
	--expand-tabs[=]
	--no-expand-tabs
	--notes[=]
	--no-notes
	--show-notes[=]
	--standard-notes
	--no-standard-notes
	--show-signature >exec
	--relative-date
	--date=
	--parents
	--children
	--left-right
	--graph
	--show-linear-break[=]
	--decorate[=]
	--no-decorate
	--decorate-refs=
	--decorate-refs-exclude=
	--clear-decorations
	--source
	--use-mailmap --mailmap
	--no-use-mailmap --no-mailmap
	--full-diff
	--log-size
	-L=
	--follow
	--no-follow
	-m
	--diff-merges=
	--no-diff-merges
	--combined-all-paths
	-c
	--cc
	--dd
	--remerge-diff
	-v --verbose`

// gitSubcommand is how the judge reads one read-only git subcommand.
type gitSubcommand struct {
	opts *optTable
	// paths: which operands may name files, which git then reads.
	paths gitPaths
	// check adds what the table cannot say (branch NAME creates a branch).
	check func(cl cmdLine, e *effects)
}

// gitPaths says how a subcommand's operands relate to files.
type gitPaths uint8

const (
	gitPathsAny  gitPaths = iota // revisions or paths: anything that looks like a path is one
	gitPathsNone                 // names, revisions, patterns only
	gitPathsAll                  // every operand is a path
	gitPathsGrep                 // a pattern first (unless -e/-f), then revisions or paths
)

// gitSubcommands are git's read-only subcommands and their options. A
// subcommand that is not here is not read-only.
var gitSubcommands = sync.OnceValue(func() map[string]gitSubcommand {
	t := func(spec string) *optTable {
		return optionTable(styleGNU, spec+"\n--help")
	}
	log := t(gitRevOptions + gitDiffOptions)
	diff := t(gitDiffOptions + `
		--cached --staged
		--merge-base
		--no-index
		-0
		-1 --base
		-2 --ours
		-3 --theirs
		-c
		--cc
		-m`)
	m := map[string]gitSubcommand{
		"log":         {opts: log},
		"show":        {opts: log},
		"whatchanged": {opts: log},
		"diff":        {opts: diff},
		"diff-tree": {opts: t(gitRevOptions + gitDiffOptions + `
			-r
			--root
			--merge-base
			--no-commit-id
			--always`)},
		"diff-files": {opts: t(gitDiffOptions + `
			-0
			-1 --base
			-2 --ours
			-3 --theirs
			-c
			--cc
			-q
			-r`)},
		"diff-index": {opts: t(gitDiffOptions + `
			--cached
			--merge-base
			-m
			-r`)},
		"status": {paths: gitPathsAll, opts: t(`
			-s --short
			-b --branch
			--show-stash
			--porcelain[=]
			--long
			-v --verbose
			-u[=] --untracked-files[=]
			--ignore-submodules[=]
			--ignored[=]
			-z
			--column[=]
			--no-column
			--ahead-behind
			--no-ahead-behind
			--renames
			--no-renames
			--find-renames[=]`)},
		"blame":    {opts: gitBlame()},
		"annotate": {opts: gitBlame()},
		"rev-parse": {paths: gitPathsNone, opts: t(`
			--parseopt
			--sq-quote
			--keep-dashdash
			--stop-at-non-option
			--stuck-long
			--revs-only
			--no-revs
			--flags
			--no-flags
			--default=
			--prefix=
			--verify
			-q --quiet
			--sq
			--short[=]
			--not
			--abbrev-ref[=]
			--symbolic
			--symbolic-full-name
			--all
			--branches[=]
			--tags[=]
			--remotes[=]
			--glob=
			--exclude=
			--exclude-hidden=
			--disambiguate=
			--local-env-vars
			--path-format=
			--git-dir
			--git-common-dir
			--resolve-git-dir=
			--git-path=
			--show-toplevel
			--show-superproject-working-tree
			--shared-index-path
			--absolute-git-dir
			--is-inside-git-dir
			--is-inside-work-tree
			--is-bare-repository
			--is-shallow-repository
			--show-cdup
			--show-prefix
			--show-object-format[=]
			--show-ref-format
			--since= --after=
			--until= --before=`)},
		"ls-files": {paths: gitPathsAll, opts: t(`
			-c --cached
			-d --deleted
			-m --modified
			-o --others
			-i --ignored
			-s --stage
			-u --unmerged
			-k --killed
			-z
			-t
			-v
			-f
			--directory
			--no-empty-directory
			--eol
			--deduplicate
			-x= --exclude=
			-X= --exclude-from= >read
			--exclude-per-directory=
			--exclude-standard
			--error-unmatch
			--with-tree=
			--full-name
			--recurse-submodules
			--abbrev[=]
			--debug
			--format=
			--sparse`)},
		"ls-tree": {paths: gitPathsNone, opts: t(`
			-d
			-r
			-t
			-l --long
			-z
			--name-only --name-status
			--object-only
			--full-name
			--full-tree
			--abbrev[=]
			--format=`)},
		"grep": {paths: gitPathsGrep, opts: t(`
			#digits
			--cached
			--untracked
			--no-index
			--no-exclude-standard
			--exclude-standard
			--recurse-submodules
			-a --text
			--textconv >exec
			--no-textconv
			-i --ignore-case
			-I
			--max-depth=
			-r --recursive
			--no-recursive
			-w --word-regexp
			-v --invert-match
			-h
			-H
			--full-name
			-E --extended-regexp
			-G --basic-regexp
			-P --perl-regexp
			-F --fixed-strings
			-n --line-number
			--column
			-l --files-with-matches --name-only
			-L --files-without-match
			-O[=] --open-files-in-pager[=] >exec
			-z --null
			-o --only-matching
			-c --count
			--color[=]
			--no-color
			--break
			--heading
			-p --show-function
			-C= --context=
			-A= --after-context=
			-B= --before-context=
			-W --function-context
			-m= --max-count=
			--threads=
			-f= >read
			-e=
			--and
			--or
			--all-match
			-q --quiet`)},
		"describe": {paths: gitPathsNone, opts: t(`
			--all
			--tags
			--contains
			--abbrev=
			--candidates=
			--exact-match
			--debug
			--long
			--match=
			--exclude=
			--always
			--first-parent
			--dirty[=]
			--broken[=]`)},
		"shortlog": {opts: t(`
			-n --numbered
			-s --summary
			-e --email
			-c --committer
			--group=
			-w[=]
			--format=
			--all
			--no-merges
			--merges
			--since= --after=
			--until= --before=
			--author=
			--grep=
			-i --regexp-ignore-case
			--first-parent
			--reverse
			--use-mailmap --mailmap
			--no-use-mailmap --no-mailmap`)},
		"cat-file": {paths: gitPathsNone, opts: t(`
			-t
			-s
			-e
			-p
			--textconv >exec
			--filters >exec
			--path=
			--batch[=]
			--batch-check[=]
			--batch-command[=]
			--batch-all-objects
			--buffer
			--follow-symlinks
			--unordered
			-Z
			--allow-unknown-type
			--use-mailmap --mailmap
			--no-use-mailmap --no-mailmap`)},
		"rev-list": {opts: t(gitRevOptions + `
			--count
			--objects
			--objects-edge
			--objects-edge-aggressive
			--no-object-names
			--disk-usage[=]
			--header
			--timestamp
			--bisect-vars
			--bisect-all
			--quiet
			--missing=`)},
		"merge-base": {paths: gitPathsNone, opts: t(`
			-a --all
			--octopus
			--independent
			--is-ancestor
			--fork-point`)},
		"show-ref": {paths: gitPathsNone, opts: t(`
			--head
			--branches --heads
			--tags
			-d --dereference
			-s --hash[=]
			--verify
			--abbrev[=]
			-q --quiet
			--exists`)},
		"for-each-ref": {paths: gitPathsNone, opts: t(`
			--count=
			--sort=
			--format=
			--color[=]
			-s --shell
			-p --perl
			--python
			--tcl
			--points-at=
			--merged=
			--no-merged=
			--contains=
			--no-contains=
			--ignore-case
			--omit-empty
			--include-root-refs
			--exclude=`)},
		"check-ignore": {paths: gitPathsAll, opts: t(`
			-q --quiet
			-v --verbose
			--stdin
			-z
			-n --non-matching
			--no-index`)},
		"count-objects": {paths: gitPathsNone, check: noGitOperands("count-objects"), opts: t(`
			-v --verbose
			-H --human-readable`)},
		"version": {paths: gitPathsNone, check: noGitOperands("version"), opts: t(`--build-options`)},
		"branch":  {paths: gitPathsNone, check: gitListing("branch"), opts: gitListOptions("-a --all\n-r --remotes\n-v --verbose\n--show-current\n--no-abbrev\n--abbrev=")},
		"tag":     {paths: gitPathsNone, check: gitListing("tag"), opts: gitListOptions("-n[=]")},
		"remote": {paths: gitPathsNone, check: gitRemoteCheck, opts: t(`
			-v --verbose
			--push
			--all`)},
		"config": {paths: gitPathsNone, check: gitConfigCheck, opts: t(`
			--get
			--get-all
			--get-regexp
			--get-urlmatch
			-l --list
			--global
			--system
			--local
			--worktree
			-f= --file= >read
			--blob=
			--show-origin
			--show-scope
			--name-only
			-z --null
			--type=
			--bool
			--int
			--bool-or-int
			--path
			--expiry-date
			--default=
			--includes
			--no-includes
			--all
			--regexp
			--value=
			--fixed-value
			--url=`)},
		"stash": {paths: gitPathsNone, check: gitStashCheck, opts: t(gitRevOptions + gitDiffOptions + `
			--include-untracked
			--only-untracked`)},
		"worktree": {paths: gitPathsNone, check: gitWorktreeCheck, opts: t(`
			--porcelain
			--expire=
			-z`)},
		"reflog": {paths: gitPathsNone, check: gitReflogCheck, opts: log},
	}
	return m
})

func gitBlame() *optTable {
	return optionTable(styleGNU, `
		-b
		--root
		--show-stats
		--score-debug
		-f --show-name
		-n --show-number
		-s
		-e --show-email
		-w
		--abbrev=
		-l
		-t
		-c
		-p --porcelain
		--line-porcelain
		--incremental
		-L=
		--reverse=
		--first-parent
		--encoding=
		--contents= >read
		--date=
		--progress
		--no-progress
		-M[=]
		-C[=]
		--ignore-rev=
		--ignore-revs-file= >read
		--color-lines
		--color-by-age
		--minimal
		-S= >read
		--since=
		-h --help`)
}

// gitListOptions are branch's and tag's listing options plus extra.
func gitListOptions(extra string) *optTable {
	return optionTable(styleGNU, extra+`
		-l --list
		-q --quiet
		--color[=]
		--no-color
		--column[=]
		--no-column
		-i --ignore-case
		--omit-empty
		--sort=
		--format=
		--contains=
		--no-contains=
		--merged=
		--no-merged=
		--points-at=
		-h --help`)
}
