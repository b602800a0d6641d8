package layers

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentls/agentls/"

// layerLine is one entry of the "## Layers" list: "3. `internal/app`".
var layerLine = regexp.MustCompile("^([0-9]+)\\. (.*)$")

// readLayers parses the numbered list under "## Layers" in
// architecture.md: each entry names packages in backquotes, a trailing
// "/..." taking in the folder and everything under it.
func readLayers(t *testing.T, doc []byte) [][]string {
	t.Helper()
	var layers [][]string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layers"
			continue
		}
		m := layerLine.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n != len(layers)+1 {
			t.Fatalf("architecture.md: layer %s out of order (want %d)", m[1], len(layers)+1)
		}
		var pats []string
		for _, f := range strings.Split(m[2], "`")[1:] {
			if f = strings.TrimSpace(f); f != "" && !strings.ContainsAny(f, " ,") {
				pats = append(pats, f)
			}
		}
		layers = append(layers, pats)
	}
	if len(layers) < 3 {
		t.Fatalf("architecture.md: no \"## Layers\" list of at least three layers (found %d)", len(layers))
	}
	return layers
}

// layerOf is the index of the layer placing pkg (module-relative), or -1.
// A pattern "x/..." places x and everything under it; the longest match
// wins, so a sub-package may sit in another layer than its parent.
func layerOf(layers [][]string, pkg string) int {
	best, bestLen := -1, -1
	for i, pats := range layers {
		for _, p := range pats {
			root, tree := strings.CutSuffix(p, "/...")
			if pkg == root || (tree && strings.HasPrefix(pkg, root+"/")) {
				if len(root) > bestLen {
					best, bestLen = i, len(root)
				}
			}
		}
	}
	return best
}

// TestImportsPointDown: no package imports one drawn above it, every
// package is placed, and every pattern places something.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, doc)
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	used := map[string]bool{}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, own := strings.CutPrefix(f[0], module)
		if !own {
			continue
		}
		pkgs++
		from := layerOf(layers, pkg)
		if from < 0 {
			t.Errorf("%s is in no layer of docs/architecture.md: add it to the list under \"## Layers\"", pkg)
			continue
		}
		markUsed(layers, pkg, used)
		for _, imp := range f[1:] {
			dep, own := strings.CutPrefix(imp, module)
			if !own {
				continue
			}
			to := layerOf(layers, dep)
			if to < 0 {
				continue // reported as a package of its own
			}
			if to < from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down the layers of docs/architecture.md", pkg, from+1, dep, to+1)
			}
		}
	}
	if pkgs < 20 {
		t.Fatalf("go list found %d packages of the module; want the whole module", pkgs)
	}
	for _, pats := range layers {
		for _, p := range pats {
			if !used[p] {
				t.Errorf("docs/architecture.md places %q, which matches no package: remove or fix it", p)
			}
		}
	}
}

// markUsed records the pattern that placed pkg.
func markUsed(layers [][]string, pkg string, used map[string]bool) {
	i := layerOf(layers, pkg)
	best, bestLen := "", -1
	for _, p := range layers[i] {
		root, tree := strings.CutSuffix(p, "/...")
		if (pkg == root || (tree && strings.HasPrefix(pkg, root+"/"))) && len(root) > bestLen {
			best, bestLen = p, len(root)
		}
	}
	used[best] = true
}

// TestLayerOf: the longest pattern places a package.
func TestLayerOf(t *testing.T) {
	layers := [][]string{{"cmd/agentls"}, {"internal/frontend/..."}, {"internal/tools/...", "internal/x"}, {"internal/tools/confine"}}
	for pkg, want := range map[string]int{
		"cmd/agentls": 0, "internal/frontend/lsp": 1, "internal/frontend/lsp/fake": 1, "internal/tools": 2,
		"internal/tools/shell": 2, "internal/tools/confine": 3, "internal/x": 2, "internal/x/y": -1, "internal/toolsx": -1,
	} {
		if got := layerOf(layers, pkg); got != want {
			t.Errorf("layerOf(%s) = %d, want %d", pkg, got, want)
		}
	}
}
