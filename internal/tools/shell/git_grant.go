package shell

import (
	"strings"
	"sync"
)

// gitGrantTables are the options a grant for "git SUB" may cover, for the
// subcommands that change the repository. Options that run programs
// (rebase --exec, --upload-pack, clone --template or --config) or move
// the repository elsewhere (--separate-git-dir) are left out.
var gitGrantTables = sync.OnceValue(func() map[string]*optTable {
	t := func(spec string) *optTable { return optionTable(styleGNU, spec) }
	common := "\n-q --quiet\n-v --verbose\n--progress\n--no-progress"
	return map[string]*optTable{
		"add": t(`
			-n --dry-run
			-f --force
			-i --interactive
			-p --patch
			-u --update
			-A --all --no-ignore-removal
			--no-all --ignore-removal
			-N --intent-to-add
			--refresh
			--ignore-errors
			--ignore-missing
			--renormalize
			--sparse
			--chmod=` + common),
		"commit": t(`
			-a --all
			-m= --message=
			-F= --file= >read
			--amend
			--no-edit
			--allow-empty
			--allow-empty-message
			-s --signoff
			--no-signoff
			-n --no-verify
			--verify
			--author=
			--date=
			-e --edit
			--fixup=
			--squash=
			--reset-author
			-C= --reuse-message=
			-c= --reedit-message=
			-o --only
			-i --include
			--dry-run
			--short
			--porcelain
			--trailer=
			--cleanup=` + common),
		"checkout": t(`
			-b=
			-B=
			--orphan=
			-t --track[=]
			--no-track
			--detach
			-f --force
			-m --merge
			--ours
			--theirs
			--ignore-other-worktrees
			--recurse-submodules
			--no-recurse-submodules` + common),
		"switch": t(`
			-c= --create=
			-C= --force-create=
			--orphan=
			-d --detach
			-t --track[=]
			--no-track
			-f --force --discard-changes
			-m --merge
			--guess
			--no-guess
			--ignore-other-worktrees` + common),
		"restore": t(`
			-s= --source=
			-S --staged
			-W --worktree
			-p --patch
			--ours
			--theirs
			-m --merge
			--ignore-unmerged
			--overlay
			--no-overlay` + common),
		"stash": t(`
			-m= --message=
			-u --include-untracked
			-a --all
			-k --keep-index
			--no-keep-index
			-p --patch
			-S --staged
			--index` + common),
		"fetch": t(`
			--all
			-a --append
			--atomic
			--depth=
			--deepen=
			--shallow-since=
			--unshallow
			-t --tags
			-n --no-tags
			-p --prune
			-P --prune-tags
			--dry-run
			-j= --jobs=
			--recurse-submodules[=]
			--no-recurse-submodules` + common),
		"pull": t(`
			--rebase[=]
			--no-rebase
			--ff
			--no-ff
			--ff-only
			--autostash
			--no-autostash
			--all
			-t --tags
			-p --prune
			--depth=
			--recurse-submodules[=]
			--no-recurse-submodules` + common),
		"push": t(`
			-u --set-upstream
			--tags
			--follow-tags
			--dry-run
			--atomic
			--porcelain
			--no-verify` + common),
		"merge": t(`
			--ff
			--no-ff
			--ff-only
			--squash
			--no-squash
			--commit
			--no-commit
			-m=
			--no-edit
			--abort
			--continue
			--allow-unrelated-histories
			--autostash
			-X= --strategy-option=
			-s= --strategy=` + common),
		"rebase": t(`
			-i --interactive
			--onto=
			--continue
			--abort
			--skip
			--autosquash
			--no-autosquash
			--autostash
			--no-autostash
			--keep-base
			--update-refs
			--rebase-merges[=]` + common),
		"reset": t(`
			--soft
			--mixed
			-N
			--keep
			--merge
			-p --patch` + common),
		"cherry-pick": t(`
			-x
			-n --no-commit
			-e --edit
			-m= --mainline=
			-s --signoff
			--continue
			--abort
			--skip
			--ff` + common),
		"revert": t(`
			-n --no-commit
			-e --edit
			--no-edit
			-m= --mainline=
			-s --signoff
			--continue
			--abort
			--skip` + common),
		"init": t(`
			-b= --initial-branch=
			--bare
			--object-format=` + common),
		"clone": t(`
			--depth=
			--shallow-since=
			--single-branch
			--no-single-branch
			-b= --branch=
			--recurse-submodules[=]
			--filter=
			--no-checkout
			--bare
			--mirror
			--origin= -o=
			--sparse` + common),
		"branch": t(`
			-m --move
			-M
			-c --copy
			-t --track[=]
			--no-track
			-u= --set-upstream-to=
			--unset-upstream
			-f --force` + common),
		"tag": t(`
			-a --annotate
			-m= --message=
			-F= --file= >read
			-f --force` + common),
	}
})

// gitGrantOpts gives the table for a git subcommand's grant: the
// read-only subcommands' own tables, or a changing subcommand's.
func gitGrantOpts(sub string) (*optTable, bool) {
	if sub == "" {
		return nil, false
	}
	if t, ok := gitGrantTables()[sub]; ok {
		return t, true
	}
	if s, ok := gitSubcommands()[sub]; ok && sub != "config" {
		return s.opts, true
	}
	return nil, false
}

// gitGrantCheck refuses git forms no grant may cover.
func gitGrantCheck(sub string, cl cmdLine) string {
	switch sub {
	case "config":
		return "git config can make later git commands run programs; it is asked every time"
	case "clone":
		for _, o := range cl.operands {
			if strings.HasPrefix(o, "ext::") || strings.HasPrefix(o, "fd::") {
				return "git clone " + o + " runs a program"
			}
		}
	}
	return ""
}
