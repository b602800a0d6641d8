package shell

import (
	"path/filepath"
	"strings"
)

// cmdName is the name the rules match: the basename, lower-cased (macOS and
// Windows file systems ignore case, so CURL runs curl), without ".exe".
func cmdName(argv0 string) string {
	n := strings.TrimRight(argv0, `/\`)
	if i := strings.LastIndexAny(n, `/\`); i >= 0 {
		n = n[i+1:]
	}
	n = strings.ToLower(n)
	return strings.TrimSuffix(n, ".exe")
}

// family folds versioned and suffixed names onto the tool they run:
// pip3.12 → pip, python3 → python, mkfs.ext4 → mkfs, ip6tables-save → iptables.
func family(n string) string {
	for _, base := range []string{"python", "pip", "ruby", "perl", "php", "node", "lua"} {
		if rest, ok := strings.CutPrefix(n, base); ok && versionSuffix(rest) {
			return base
		}
	}
	switch {
	case strings.HasPrefix(n, "mkfs."), strings.HasPrefix(n, "mke2fs"):
		return "mkfs"
	case strings.HasPrefix(n, "iptables"), strings.HasPrefix(n, "ip6tables"),
		strings.HasPrefix(n, "ebtables"), strings.HasPrefix(n, "arptables"):
		return "iptables"
	case n == "nodejs":
		return "node"
	}
	return n
}

func versionSuffix(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// bannedWhy says why a command is never run, or "" if it may be.
// The list follows the reference's banned commands plus the obvious
// siblings it missed (sftp, socat, pkexec, reboot, …).
func bannedWhy(n string) string {
	switch n {
	case "alias":
		return "aliases can disguise commands from this check"
	case "aria2c", "axel", "curl", "curlie", "http", "https", "http-prompt", "httpie",
		"lftp", "links", "elinks", "lynx", "w3m", "wget", "wget2", "xh", "xhs",
		"chrome", "chromium", "chromium-browser", "google-chrome", "firefox", "safari":
		return "network client (agentls has no network tool; ask the user)"
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "ftp", "tftp",
		"sshpass", "ssh-copy-id", "ssh-keyscan", "mosh", "rsh", "rlogin", "autossh":
		return "remote shell or raw network connection"
	case "sudo", "su", "doas", "pkexec", "runuser", "run0", "setpriv", "chroot":
		return "privilege change"
	case "apk", "apt", "apt-cache", "apt-get", "aptitude", "dnf", "dpkg", "emerge",
		"home-manager", "makepkg", "opkg", "pacman", "paru", "pkg", "pkg_add", "pkg_delete",
		"portage", "rpm", "yay", "yum", "zypper", "snap", "flatpak", "nix-env",
		"choco", "scoop", "winget", "softwareupdate":
		return "system package manager"
	case "at", "batch", "chkconfig", "crontab", "fdisk", "sfdisk", "cfdisk", "gdisk",
		"mkfs", "mkswap", "swapon", "swapoff", "mount", "umount", "parted", "wipefs",
		"losetup", "cryptsetup", "service", "systemctl", "launchctl", "shutdown", "reboot",
		"halt", "poweroff", "telinit", "kexec", "modprobe", "insmod", "rmmod",
		"useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd", "chpasswd",
		"visudo", "killall5":
		return "system administration"
	case "systemd-run", "daemonize", "start-stop-daemon":
		return "it starts processes that outlive the command (use a background job)"
	case "firewall-cmd", "ifconfig", "ip", "iptables", "nft", "netstat", "pfctl", "route",
		"ufw", "nmcli", "iwconfig":
		return "network configuration"
	}
	return ""
}

// shells run their arguments as shell code; the judge parses that code.
func isShell(n string) bool {
	switch n {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash":
		return true
	}
	return false
}

// inlineCode reports whether a command carries a program in its arguments
// (python -c, node -e, awk '…'): granting it for the session would grant
// any program, so such commands are never grantable.
func inlineCode(n string, args []arg) bool {
	flags := ""
	switch family(n) {
	case "awk", "gawk", "mawk", "nawk", "busybox", "toybox":
		return true
	case "python", "pypy", "pypy3":
		flags = "c"
	case "node", "bun", "deno", "perl", "ruby", "lua", "luajit", "rscript", "osascript", "tclsh":
		flags = "e"
	case "php":
		flags = "r"
	default:
		return false
	}
	for _, a := range args[1:] {
		w := a.val
		if !a.lit {
			return true
		}
		if w == "eval" || w == "--eval" || w == "-p" || w == "--print" || strings.HasPrefix(w, "--eval=") {
			return true
		}
		if len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], flags) {
			return true
		}
	}
	return false
}

// subcommandTools take a subcommand as their first word, which the
// fingerprint keeps so a grant for "git status" is not a grant for
// "git push". The value lists the options that may come before the
// subcommand without consuming it.
func subcommandPreFlags(n string) ([]string, bool) {
	switch n {
	case "git":
		return []string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
			"--no-replace-objects"}, true
	case "cargo":
		return []string{"-q", "-v", "-vv", "--quiet", "--verbose", "--offline", "--locked", "--frozen"}, true
	case "make", "gmake":
		return []string{"-k", "-s", "-B", "--silent", "--keep-going", "--always-make", "--no-print-directory"}, true
	case "go", "npm", "pnpm", "yarn", "bun", "docker", "podman", "kubectl", "helm", "gh",
		"terraform", "tofu", "uv", "poetry", "pdm", "hatch", "dotnet", "rustup", "deno",
		"just", "task", "mise", "npx", "pnpx", "bunx", "uvx", "gradle", "gradlew", "mvn",
		"mvnw", "bundle", "rails", "rake", "mix", "composer", "swift", "zig", "nix", "brew",
		"pip", "pipx", "conda", "aws", "gcloud", "az", "jj", "hg", "svn", "flutter", "dart":
		return nil, true
	}
	return nil, false
}

// systemPath reports whether p (absolute, cleaned) is part of the operating
// system rather than a user's files. Writes there are never the agent's job.
func systemPath(p string) bool {
	if p == "/" {
		return true
	}
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return false
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return false
	}
	for _, keep := range []string{"/var/tmp", "/var/folders", "/private/var/folders", "/private/var/tmp", "/private/tmp"} {
		if within(p, keep) {
			return false
		}
	}
	for _, sys := range []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
		"/opt", "/proc", "/sbin", "/sys", "/usr", "/var", "/snap", "/nix", "/System", "/Library",
		"/Applications", "/private/etc", "/private/var", "/Windows"} {
		if within(p, sys) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return strings.HasPrefix(p, dir)
}

// cleanAbs makes p absolute against dir; ok is false when p is relative and
// dir unknown (the static judge has no working directory).
func cleanAbs(dir, p string) (string, bool) {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") {
		return filepath.ToSlash(filepath.Clean(p)), true
	}
	if dir == "" {
		return "", false
	}
	return filepath.ToSlash(filepath.Clean(filepath.Join(dir, p))), true
}
