//go:build unix

package nvim_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The Neovims every test here runs on, each as a subtest named after its
// version (TestX/nvim0.7, TestX/nvim0.10, TestX/nvim0.12): Debian 12's
// 0.7.2 (the `nvim` on PATH) and the current releases that
// scripts/nvim-versions unpacks from Debian's newer suites. $AGENTLS_NVIM
// (the script's output: nvim commands separated by ':') names them;
// unset, the tests look for the script's cache. A missing Neovim fails
// the test with the command that installs it.

// nvimEnv lists the nvim commands to test with, separated by ':'.
const nvimEnv = "AGENTLS_NVIM"

// nvimSuites are the Debian suites scripts/nvim-versions unpacks by default.
var nvimSuites = []string{"trixie", "sid"}

// nvimCmd is one Neovim to test with.
type nvimCmd struct {
	label string // "nvim0.10": the subtest's name
	path  string
	minor int // 7, 10, 12: the minor version
}

// nvimList finds the Neovims once per test process (each costs a
// `nvim --version`).
var nvimList = sync.OnceValues(findNvims)

// nvimVersionRE reads "NVIM v0.10.4" from `nvim --version`.
var nvimVersionRE = regexp.MustCompile(`NVIM v0\.(\d+)\.`)

func findNvims() ([]nvimCmd, error) {
	var paths []string
	if env := os.Getenv(nvimEnv); env != "" {
		paths = filepath.SplitList(env)
	} else {
		p, err := exec.LookPath("nvim")
		if err != nil {
			return nil, fmt.Errorf("nvim not found on PATH (%v): install Neovim: apt-get install -y neovim", err)
		}
		paths = append(paths, p)
		cache := os.Getenv("AGENTLS_NVIM_CACHE")
		if cache == "" {
			dir, err := os.UserCacheDir()
			if err != nil {
				return nil, err
			}
			cache = filepath.Join(dir, "agentls", "nvim")
		}
		for _, s := range nvimSuites {
			paths = append(paths, filepath.Join(cache, s, "nvim"))
		}
	}
	var out []nvimCmd
	for _, p := range paths {
		raw, err := exec.Command(p, "--version").Output()
		if err != nil {
			return nil, fmt.Errorf("%s --version: %v: run scripts/nvim-versions (it unpacks Neovim 0.10 and 0.12 "+
				"from Debian's trixie and sid packages into ~/.cache/agentls/nvim) or set %s", p, err, nvimEnv)
		}
		m := nvimVersionRE.FindSubmatch(raw)
		if m == nil {
			return nil, fmt.Errorf("%s --version printed no NVIM v0.N: %q", p, firstLine(string(raw)))
		}
		var minor int
		fmt.Sscan(string(m[1]), &minor)
		out = append(out, nvimCmd{label: "nvim0." + string(m[1]), path: p, minor: minor})
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// eachNvim runs test once per Neovim, as parallel subtests.
func eachNvim(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	list, err := nvimList()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		t.Run(n.label, func(t *testing.T) {
			t.Parallel()
			test(t)
		})
	}
}

// nvimOf is the Neovim of the eachNvim subtest t runs in.
func nvimOf(t *testing.T) nvimCmd {
	t.Helper()
	list, err := nvimList()
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(t.Name(), "/")[1:] {
		for _, n := range list {
			if part == n.label {
				return n
			}
		}
	}
	t.Fatalf("%s runs outside eachNvim: wrap the test in eachNvim(t, …) so it runs on every Neovim", t.Name())
	return nvimCmd{}
}

// nvimPath is the nvim command of the subtest t runs in.
func nvimPath(t *testing.T) string {
	t.Helper()
	return nvimOf(t).path
}
