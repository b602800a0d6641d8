package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed ls.md
var lsDescription string

// lsMaxEntries caps a listing so one call cannot flood the context.
const lsMaxEntries = 1000

type lsInput struct {
	Path   string   `json:"path,omitempty" jsonschema:"Folder to list: relative to the first workspace folder, or absolute. Default: the first workspace folder."`
	Ignore []string `json:"ignore,omitempty" jsonschema:"Extra .gitignore-style patterns to leave out, relative to path, e.g. [\"*.log\", \"testdata/\", \"docs/gen\"]."`
}

var lsSchema = schemaFor[lsInput]()

// LSTool lists a folder as a tree, leaving out what .gitignore hides, so
// the model can learn a project's layout in one call.
type LSTool struct {
	ws *Workspace
}

// NewLSTool returns the ls tool over ws.
func NewLSTool(ws *Workspace) *LSTool { return &LSTool{ws: ws} }

// Spec describes ls: capability fs.list, read-only.
func (t *LSTool) Spec() Spec {
	return readSpec("ls", lsDescription, lsSchema(), "fs.list")
}

func (t *LSTool) parse(call Call) (lsInput, string, *ignoreList, error) {
	var in lsInput
	if err := lsSchema().decode(call, "ls", &in); err != nil {
		return in, "", nil, err
	}
	abs, err := target(t.ws, in.Path, "path", true)
	if err != nil {
		return in, "", nil, fmt.Errorf("ls: %w", err)
	}
	extra, err := newIgnoreList(abs, in.Ignore, false)
	if err != nil {
		return in, "", nil, fmt.Errorf("ls: ignore: %w; use glob syntax such as *.log, build/ or **/gen", err)
	}
	return in, abs, extra, nil
}

// Describe validates the input and names the folder for the gate.
func (t *LSTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	_, abs, _, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.ws, abs, "agentls wants to list "+display(t.ws, abs)), nil
}

// lsNode is one listed entry.
type lsNode struct {
	name     string
	isDir    bool
	children []*lsNode
	// partial is set on folders whose entries were not all listed.
	partial bool
}

// Run lists the folder.
func (t *LSTool) Run(ctx context.Context, call Call) (Result, error) {
	in, abs, extra, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if !t.ws.Inside(abs) {
		return Errorf("%s", outsideMessage(t.ws, abs)), nil
	}
	given := in.Path
	if given == "" {
		given = abs
	}
	fi, err := t.ws.statDisk(abs)
	switch {
	case isNotExist(err):
		return notFound(t.ws, "Folder", given, abs), nil
	case err != nil:
		return Errorf("Cannot list %s: %v", given, err), nil
	case !fi.IsDir():
		return Errorf("%s is a file, not a folder. Use the view tool to read it.", given), nil
	}

	root := &lsNode{isDir: true}
	nodes := map[string]*lsNode{"": root}
	var order []*lsNode // folders in the order the walk reads them
	count, truncated := 0, false
	var cutAt *lsNode
	stats, err := t.ws.walk(ctx, abs, extra, func(e walkEntry) walkAction {
		parent := nodes[parentRel(e.rel)]
		if count == lsMaxEntries {
			truncated, cutAt = true, parent
			return walkStop
		}
		count++
		n := &lsNode{name: e.entry.Name(), isDir: e.isDir}
		parent.children = append(parent.children, n)
		if e.isDir {
			nodes[e.rel] = n
			order = append(order, n)
		}
		return walkContinue
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("Cannot list %s: %v", given, err), nil
	}
	truncated = truncated || stats.limitHit
	if truncated {
		// The walk reads folders in order: the one it stopped in and every
		// later one are incomplete.
		mark := cutAt == root || cutAt == nil
		root.partial = mark
		for _, n := range order {
			if n == cutAt {
				mark = true
			}
			n.partial = n.partial || mark
		}
	}

	var b strings.Builder
	b.WriteString(strings.TrimSuffix(abs, "/") + "/\n")
	if len(root.children) == 0 {
		b.WriteString("  (empty folder, or everything in it is ignored)\n")
	}
	writeTree(&b, root.children, 1)
	if truncated {
		fmt.Fprintf(&b, "\n(Listing truncated at %d entries: folders marked … were not fully listed. List a subfolder with 'path', or leave folders out with 'ignore'.)\n", lsMaxEntries)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}, nil
}

func writeTree(b *strings.Builder, nodes []*lsNode, depth int) {
	indent := strings.Repeat("  ", depth)
	for _, n := range nodes {
		b.WriteString(indent + n.name)
		if n.isDir {
			b.WriteString("/")
			if n.partial {
				b.WriteString(" …")
			}
		}
		b.WriteString("\n")
		writeTree(b, n.children, depth+1)
	}
}

// parentRel returns the slash-separated parent of rel, "" at the top.
func parentRel(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
