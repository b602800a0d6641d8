package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/config/trust"
	"github.com/agentls/agentls/internal/tools"
)

const trustUsage = `Usage:
  agentls trust [--subfolders] [DIR]   trust DIR (default: the current folder)
  agentls trust --list [--json]        list the trusted folders
  agentls untrust [DIR]                stop trusting DIR (default: the current folder)

A trusted folder may run its own code: its language servers start in their full form (the
repository's TypeScript, rust-analyzer's build scripts, the Go toolchain go.mod names), its
.agentls.json may loosen permissions and run hooks. Trust is kept in trusted_workspaces of the
user config file; --subfolders writes DIR/**, which also trusts every folder below DIR.
`

func cmdTrust(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, trustUsage) }
	subfolders := fs.Bool("subfolders", false, "also trust every folder below DIR (writes DIR/**)")
	list := fs.Bool("list", false, "list the trusted folders")
	jsonOut := fs.Bool("json", false, "with --list: print a JSON array")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	file, ok := userFile(stderr)
	if !ok {
		return 1
	}
	if *list {
		if fs.NArg() > 0 || *subfolders {
			fmt.Fprintln(stderr, "agentls trust: --list takes no folder and no --subfolders")
			return 2
		}
		return listTrusted(file, *jsonOut, stdout, stderr)
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "agentls trust: one folder at a time (got %d)\n", fs.NArg())
		return 2
	}
	entry, err := trust.Entry(dirArg(fs), *subfolders)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 2
	}
	dir, _ := trust.Split(entry)
	already := ""
	_, err = config.UpdateTrust(file, func(l []string) []string {
		for _, e := range trust.By(dir, l) {
			if _, below := trust.Split(e); below || !*subfolders {
				already = e
				return l
			}
		}
		return append(l, entry)
	}, tools.WriteFileAtomic)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "agentls:", err)
		return 1
	case already != "":
		fmt.Fprintf(stdout, "%s is already trusted (by %q in %s)\n", dir, already, file)
		return 0
	}
	fmt.Fprintf(stdout, "trusted %s (saved in %s)\n", entry, file)
	fmt.Fprintln(stdout, "Its language servers start in their full form, and its .agentls.json may loosen permissions and run hooks. A running editor uses it when its servers next start (lsp_restart, or reopen the editor).")
	return 0
}

func cmdUntrust(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("untrust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, trustUsage) }
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "agentls untrust: one folder at a time (got %d)\n", fs.NArg())
		return 2
	}
	file, ok := userFile(stderr)
	if !ok {
		return 1
	}
	dir, err := filepath.Abs(dirArg(fs))
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 2
	}
	var removed []string
	left, err := config.UpdateTrust(file, func(l []string) []string {
		return slices.DeleteFunc(l, func(e string) bool {
			if trust.Same(e, dir) {
				removed = append(removed, e)
				return true
			}
			return false
		})
	}, tools.WriteFileAtomic)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 1
	}
	if len(removed) > 0 {
		fmt.Fprintf(stdout, "no longer trusted: %s (removed from %s)\n", strings.Join(removed, ", "), file)
	}
	if by := trust.By(dir, left); len(by) > 0 {
		parent, _ := trust.Split(by[0])
		fmt.Fprintf(stdout, "%s is still trusted by %q; run `agentls untrust %s` to take that back\n", dir, by[0], parent)
		return 1
	}
	if len(removed) == 0 {
		fmt.Fprintf(stdout, "%s was not trusted\n", dir)
	}
	return 0
}

func listTrusted(file string, jsonOut bool, stdout, stderr io.Writer) int {
	c, err := config.Load(file)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 1
	}
	if jsonOut {
		b, _ := json.Marshal(append([]string{}, c.TrustedWorkspaces...))
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	if len(c.TrustedWorkspaces) == 0 {
		fmt.Fprintf(stdout, "no trusted folders (in %s); trust one with `agentls trust DIR`\n", file)
		return 0
	}
	for _, e := range c.TrustedWorkspaces {
		fmt.Fprintln(stdout, e)
	}
	return 0
}

// userFile is the user config file's path.
func userFile(stderr io.Writer) (string, bool) {
	dirs, err := config.UserDirs()
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return "", false
	}
	return dirs.File(), true
}

// dirArg is the folder argument, "." when none was given.
func dirArg(fs *flag.FlagSet) string {
	if fs.NArg() == 1 {
		return fs.Arg(0)
	}
	return "."
}
