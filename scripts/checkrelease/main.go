// Command checkrelease checks what scripts/release built into a folder:
//
//	go run ./scripts/checkrelease DIR VERSION [OS/ARCH...]
//
// For each platform named (by default the six: linux, darwin, windows ×
// amd64, arm64; scripts/release --only builds fewer) the binary agentls-VERSION-OS-ARCH[.exe] must be an executable of that OS and
// architecture (read with debug/elf, debug/macho, debug/pe) holding the
// stamped VERSION, and agentls-VERSION-TARGET.vsix must be the VS Code
// extension for that platform with exactly that binary as bin/agentls
// (agentls.exe on Windows), executable. agentls-VERSION.vsix, the universal
// extension, must hold no binary. SHA256SUMS must list every file with its
// sum. The binary for the machine running the check must print
// "agentls VERSION" for `agentls version`. scripts/test runs it on the
// release it builds for its own platform.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

type platform struct {
	goos, goarch string
	target       string // the VS Code target
}

var platforms = []platform{
	{"linux", "amd64", "linux-x64"},
	{"linux", "arm64", "linux-arm64"},
	{"darwin", "amd64", "darwin-x64"},
	{"darwin", "arm64", "darwin-arm64"},
	{"windows", "amd64", "win32-x64"},
	{"windows", "arm64", "win32-arm64"},
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/checkrelease DIR VERSION [OS/ARCH...]")
		os.Exit(2)
	}
	only, err := choose(os.Args[3:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkrelease:", err)
		os.Exit(2)
	}
	problems := check(os.Args[1], os.Args[2], only)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "checkrelease:", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// choose returns the platforms named as OS/ARCH, all of them when none is.
func choose(names []string) ([]platform, error) {
	if len(names) == 0 {
		return platforms, nil
	}
	var chosen []platform
	for _, name := range names {
		i := slices.IndexFunc(platforms, func(p platform) bool { return p.goos+"/"+p.goarch == name })
		if i < 0 {
			return nil, fmt.Errorf("%s: not a platform of the release (linux, darwin or windows / amd64 or arm64)", name)
		}
		chosen = append(chosen, platforms[i])
	}
	return chosen, nil
}

func check(dir, version string, only []platform) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	want := map[string]bool{"SHA256SUMS": true}
	universal := "agentls-" + version + ".vsix"
	want[universal] = true
	for _, p := range only {
		bin := p.binary(version)
		vsix := "agentls-" + version + "-" + p.target + ".vsix"
		want[bin], want[vsix] = true, true
		data, err := os.ReadFile(filepath.Join(dir, bin))
		if err != nil {
			fail("%v", err)
			continue
		}
		if err := executableFor(data, p); err != nil {
			fail("%s: %v", bin, err)
		}
		if !bytes.Contains(data, []byte(version)) {
			fail("%s: the version %q is not stamped in it", bin, version)
		}
		fmt.Printf("%-44s %s/%s, %.1f MB\n", bin, p.goos, p.goarch, float64(len(data))/1e6)
		if err := checkVSIX(filepath.Join(dir, vsix), p.target, version, data, p.goos == "windows"); err != nil {
			fail("%s: %v", vsix, err)
		} else if fi, err := os.Stat(filepath.Join(dir, vsix)); err == nil {
			fmt.Printf("%-44s bundles it as %s, %.1f MB\n", vsix, bundledName(p.target), float64(fi.Size())/1e6)
		}
		if p.goos == runtime.GOOS && p.goarch == runtime.GOARCH {
			out, err := exec.Command(filepath.Join(dir, bin), "version").CombinedOutput()
			if got := strings.TrimSpace(string(out)); err != nil || got != "agentls "+version {
				fail("%s version: %q (%v), want %q", bin, got, err, "agentls "+version)
			} else {
				fmt.Printf("%-44s version: %s\n", bin, got)
			}
		}
	}
	if err := checkVSIX(filepath.Join(dir, universal), "", version, nil, false); err != nil {
		fail("%s: %v", universal, err)
	} else {
		fmt.Printf("%-44s universal, no binary\n", universal)
	}
	if err := checkSums(dir, want); err != nil {
		fail("SHA256SUMS: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		fail("%v", err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			fail("%s: not an artifact of the release", e.Name())
		}
		delete(want, e.Name())
	}
	for name := range want {
		fail("%s is missing", name)
	}
	slices.Sort(problems)
	return problems
}

func (p platform) binary(version string) string {
	name := "agentls-" + version + "-" + p.goos + "-" + p.goarch
	if p.goos == "windows" {
		name += ".exe"
	}
	return name
}

func bundledName(target string) string {
	if strings.HasPrefix(target, "win32-") {
		return "bin/agentls.exe"
	}
	return "bin/agentls"
}

// executableFor reports whether data is an executable for p.
func executableFor(data []byte, p platform) error {
	r := bytes.NewReader(data)
	switch p.goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("not an ELF file (%v)", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC || f.Class != elf.ELFCLASS64 {
			return fmt.Errorf("ELF %v %v %v, want a 64-bit %v executable", f.Class, f.Type, f.Machine, want)
		}
		// Static (CGO_ENABLED=0): it runs on any Linux, musl ones too.
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				return fmt.Errorf("dynamically linked (it has an ELF interpreter)")
			}
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a Mach-O file (%v)", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[p.goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v %v, want a %v executable", f.Cpu, f.Type, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a PE file (%v)", err)
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[p.goarch]
		oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
		if f.Machine != want || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 || !ok {
			return fmt.Errorf("PE machine %#x, characteristics %#x, want a 64-bit executable for %#x", f.Machine, f.Characteristics, want)
		}
		if oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
			return fmt.Errorf("PE subsystem %d, want a console program (%d): editors talk to it on stdin/stdout", oh.Subsystem, pe.IMAGE_SUBSYSTEM_WINDOWS_CUI)
		}
	}
	return nil
}

var targetRE = regexp.MustCompile(`<Identity [^>]*\bTargetPlatform="([^"]*)"`)

// checkVSIX checks a .vsix: the extension's files, its target platform
// (none: universal), its version, and the bundled binary (nil: none).
func checkVSIX(path, target, version string, binary []byte, windows bool) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer z.Close()
	files := map[string]*zip.File{}
	for _, f := range z.File {
		files[f.Name] = f
	}
	// The chat view's page (the webview bundle and its styles) is staged apart from the extension.
	for _, name := range []string{"extension.vsixmanifest", "extension/package.json", "extension/dist/extension.js", "extension/dist/webview.js", "extension/dist/webview.css"} {
		if files[name] == nil {
			return fmt.Errorf("no %s", name)
		}
	}
	manifest, err := readZip(files["extension.vsixmanifest"])
	if err != nil {
		return err
	}
	got := ""
	if m := targetRE.FindSubmatch(manifest); m != nil {
		got = string(m[1])
	}
	if got != target {
		return fmt.Errorf("target platform %q in the manifest, want %q", got, target)
	}
	pkgJSON, err := readZip(files["extension/package.json"])
	if err != nil {
		return err
	}
	var pkg struct {
		Version     string `json:"version"`
		Icon        string `json:"icon"`
		Contributes struct {
			ViewsContainers map[string][]struct {
				Icon string `json:"icon"`
			} `json:"viewsContainers"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(pkgJSON, &pkg); err != nil {
		return fmt.Errorf("extension/package.json: %v", err)
	}
	// Every icon package.json names is in the package (a missing one shows blank in VS Code).
	icons := []string{pkg.Icon}
	for _, list := range pkg.Contributes.ViewsContainers {
		for _, c := range list {
			icons = append(icons, c.Icon)
		}
	}
	for _, icon := range icons {
		if icon == "" {
			continue
		}
		if files["extension/"+strings.TrimPrefix(icon, "./")] == nil {
			return fmt.Errorf("package.json names the icon %s, which is not in the package", icon)
		}
	}
	if m := regexp.MustCompile(`^v?(\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)$`).FindStringSubmatch(version); m != nil && pkg.Version != m[1] {
		return fmt.Errorf("extension version %q, want %q (from %s)", pkg.Version, m[1], version)
	}
	var bins []string
	for name := range files {
		if strings.HasPrefix(name, "extension/bin/") {
			bins = append(bins, name)
		}
	}
	if binary == nil {
		if len(bins) > 0 {
			return fmt.Errorf("the universal extension holds %v", bins)
		}
		return nil
	}
	name := "extension/" + bundledName(target)
	if len(bins) != 1 || bins[0] != name {
		return fmt.Errorf("binaries %v, want just %s", bins, name)
	}
	data, err := readZip(files[name])
	if err != nil {
		return err
	}
	if !bytes.Equal(data, binary) {
		return fmt.Errorf("%s is not the release's binary for %s", name, target)
	}
	if mode := files[name].Mode(); !windows && mode&0o111 != 0o111 {
		return fmt.Errorf("%s has mode %v: VS Code would unpack it not executable", name, mode)
	}
	return nil
}

func readZip(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// checkSums checks that SHA256SUMS lists every artifact but itself, with
// its sum.
func checkSums(dir string, want map[string]bool) error {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return err
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return fmt.Errorf("line %q is not «sum  name»", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			return fmt.Errorf("%s: sum %s, the file's is %x", name, sum, h)
		}
		listed[name] = true
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for name := range want {
		if name != "SHA256SUMS" && !listed[name] {
			return fmt.Errorf("%s is not listed", name)
		}
	}
	return nil
}
