package permission

import (
	"regexp"
	"slices"
	"strings"
)

// Risk levels of a security pattern. Critical findings deny; the others ask.
const (
	riskCritical = "critical"
	riskHigh     = "high"
	riskMedium   = "medium"
)

// secPattern is one dangerous-command pattern. need is a cheap prefilter:
// the regexp only runs when the lower-cased command contains a word of
// every group. check, when set, confirms a match the regexp cannot express
// (RE2 has no lookahead). Several patterns may share an id.
type secPattern struct {
	id    string
	risk  string
	desc  string
	need  [][]string
	re    *regexp.Regexp
	check func(m []string) bool
}

// Shared pieces: where a command word may start, how an argument list runs
// (without crossing ; & | or a newline), and where a target word ends.
const (
	cmdStart = `(?:^|[\s;&|(/])`
	argWords = `((?:[^\s;&|]+\s+)*?)`
	wordEnd  = `(?:$|[\s;&|)])`
	sameCmd  = `[^;&|\n]*`
	homeDirs = `(?:~|\$home|\$\{home\}|/home|/root|/users)`
)

func pat(id, risk, desc string, need [][]string, re string, check func([]string) bool) secPattern {
	return secPattern{id: id, risk: risk, desc: desc, need: need, re: regexp.MustCompile(`(?i)` + re), check: check}
}

// oneOf is one prefilter group: any of its words must occur.
func oneOf(words ...string) []string { return words }

// recursiveFlag confirms that the rm words before the target (group 1)
// include -r/-R (possibly bundled) or --recursive before any "--".
func recursiveFlag(m []string) bool {
	for _, w := range strings.Fields(m[1]) {
		switch {
		case w == "--":
			return false // later words are operands
		case strings.HasPrefix(w, "--"):
			if w == "--recursive" {
				return true
			}
		case strings.HasPrefix(w, "-") && strings.ContainsAny(w, "rR"):
			return true
		}
	}
	return false
}

// securityPatterns is the fixed pattern list, compiled once at start-up and
// only read afterwards (regexps are safe for concurrent use).
var securityPatterns = []secPattern{
	// Critical: destroying data or the system, running remote code,
	// reverse shells, persistent root.
	pat("rm_recursive_root", riskCritical, "recursive delete of the root directory", [][]string{oneOf("rm"), oneOf("/")},
		cmdStart+`rm\s+`+argWords+`['"]?/\*?['"]?`+wordEnd, recursiveFlag),
	pat("rm_recursive_home", riskCritical, "recursive delete of a home directory", [][]string{oneOf("rm"), oneOf("~", "home", "/root", "/users")},
		cmdStart+`rm\s+`+argWords+`['"]?`+homeDirs+`/?\*?['"]?`+wordEnd, recursiveFlag),
	pat("find_delete_root", riskCritical, "find deleting from the root or a home directory", [][]string{oneOf("find"), oneOf("-delete", "-exec")},
		`\bfind\s+(?:-\S+\s+)*['"]?(?:/|`+homeDirs+`/?)['"]?\s`+sameCmd+`(?:-delete\b|-exec\s+rm\b)`, nil),
	pat("recursive_perm_root", riskCritical, "recursive permission or owner change of a system or home directory", [][]string{oneOf("chmod", "chown", "chgrp"), oneOf("-r", "--recursive")},
		`\bch(?:mod|own|grp)\s+(?:-\S+\s+)*(?:-[a-z]*r[a-z]*|--recursive)\s+(?:-\S+\s+)*(?:\S+\s+)?['"]?(?:/|`+homeDirs+`|/etc|/usr|/var|/bin|/lib)/?\*?['"]?`+wordEnd, nil),
	pat("disk_overwrite", riskCritical, "writing straight to a disk device", [][]string{oneOf("/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/rdisk")},
		`(?:\bdd\b`+sameCmd+`\bof=|>\s*|\bshred\b`+sameCmd+`\s|\bcat\b`+sameCmd+`>\s*)/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d)`, nil),
	pat("filesystem_format", riskCritical, "formatting a disk", [][]string{oneOf("mkfs", "mke2fs", "mkswap", "wipefs", "format"), oneOf("/dev/", ":")},
		`\b(?:mkfs(?:\.[a-z0-9]+)?|mke2fs|mkswap|wipefs)\b`+sameCmd+`/dev/|\bformat(?:\.com)?\s+[a-z]:`, nil),
	pat("pipe_to_shell", riskCritical, "downloaded code piped into a shell", [][]string{oneOf("curl", "wget", "fetch", "aria2c", "http", "xh"), oneOf("|"), oneOf("sh", "python", "perl", "ruby", "node")},
		`\b(?:curl|wget|fetch|aria2c|https?|xh|xhs)\b[^;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:(?:ba|z|da|k|fi|c|tc|a)?sh`+wordEnd+`|(?:python[0-9.]*|perl|ruby|node)(?:\s+-)?\s*(?:$|[;&|)]))`, nil),
	pat("download_exec", riskCritical, "downloaded code run through a substitution", [][]string{oneOf("curl", "wget"), oneOf("$(", "<(")},
		`(?:\b(?:ba|z|da|k)?sh\s+(?:-\S+\s+)*(?:-c\s+)?["']?\$\(\s*|\b(?:ba|z|da|k)?sh\s*<\s*\(\s*|\b(?:source|\.)\s+<\(\s*|\beval\s+["']?\$\(\s*)(?:curl|wget)\b`, nil),
	pat("reverse_shell", riskCritical, "reverse shell", [][]string{oneOf("nc", "netcat"), oneOf("-e", "-c", "exec")},
		`\b(?:nc|ncat|netcat)\b`+sameCmd+`\s--?(?:e|c|exec|sh-exec)\b`, nil),
	pat("reverse_shell", riskCritical, "reverse shell", [][]string{oneOf("/dev/tcp/", "/dev/udp/")}, `/dev/(?:tcp|udp)/`, nil),
	pat("reverse_shell", riskCritical, "reverse shell", [][]string{oneOf("socat"), oneOf("exec:", "system:")}, `\bsocat\b[^\n]*\b(?:exec|system):`, nil),
	pat("reverse_shell", riskCritical, "reverse shell", [][]string{oneOf("socket"), oneOf("pty", "subprocess", "dup2", "/bin/sh", "/bin/bash", "exec")},
		`\b(?:python[0-9.]*|perl|ruby|php)\s+-[a-z]*\s[^\n]*\bsocket\b[^\n]*(?:\bpty\b|subprocess|\bdup2\b|/bin/(?:ba)?sh|\bexec\b)`, nil),
	pat("sudoers_change", riskCritical, "granting passwordless root", [][]string{oneOf("sudoers")},
		`nopasswd[^\n]*sudoers|(?:>>?|\btee\b(?:\s+-a)?|\bcp\b|\bmv\b)\s*[^;&|\n]*/etc/sudoers`, nil),
	pat("kernel_module", riskCritical, "loading or removing a kernel module", [][]string{oneOf("insmod", "rmmod", "modprobe")},
		`\b(?:insmod|rmmod)\s+\S|\bmodprobe\s+(?:-\S+\s+)*[a-z0-9_]`, nil),
	pat("fork_bomb", riskCritical, "fork bomb", [][]string{oneOf("()"), oneOf("&")},
		`:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:`, nil),

	// High: remote code, secret exfiltration, persistence, disabling
	// defences, privilege tricks.
	pat("python_remote_exec", riskHigh, "Python fetching code and running it", [][]string{oneOf("python"), oneOf("urllib", "requests", "http.client", "urlopen"), oneOf("exec", "eval")},
		`\bpython[0-9.]*\s+-c\s+[^\n]*(?:urllib|requests|http\.client|urlopen)[^\n]*\b(?:exec|eval)\s*\(`, nil),
	pat("powershell_download_exec", riskHigh, "PowerShell downloading and running code", [][]string{oneOf("powershell", "pwsh", "iex"), oneOf("iex", "invoke-expression")},
		`(?:powershell|pwsh)[^\n]*(?:downloadstring|downloadfile|invoke-webrequest|\biwr\b|invoke-restmethod|\birm\b)[^\n]*(?:invoke-expression|\biex\b)|\biex\s*\(\s*(?:new-object\s+net\.webclient|iwr|irm)`, nil),
	pat("secret_exfiltration", riskHigh, "sending keys, credentials or history over the network", [][]string{oneOf("curl", "wget", "http", "xh", "nc", "scp", "rsync"), oneOf(".ssh/", "id_", "/.aws/", "credentials", ".netrc", ".npmrc", ".pypirc", ".docker/", ".kube/", ".gnupg", "_history", "/etc/shadow", ".env")},
		`\b(?:curl|wget|https?|xh|nc|ncat|scp|rsync)\b[^\n]*(?:\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.netrc\b|\.git-credentials|\.npmrc\b|\.pypirc\b|\.docker/config\.json|\.kube/config|\.gnupg|_history\b|/etc/shadow|(?:^|[\s/@=])\.env\b)`, nil),
	pat("shadow_access", riskHigh, "reading the system password hashes", [][]string{oneOf("/etc/shadow", "/etc/gshadow", "master.passwd", "opasswd")},
		`/etc/(?:g?shadow|master\.passwd)\b|/etc/security/opasswd`, nil),
	pat("crontab_change", riskHigh, "changing scheduled jobs", [][]string{oneOf("crontab", "/var/spool/cron", "/etc/cron")},
		`\bcrontab\s+(?:-u\s+\S+\s+)?(?:-[a-z]*[er]\b|[^-\s;&|])|(?:>>?|\btee\b|\bcp\b|\bmv\b|\bln\b)[^;&|\n]*(?:/var/spool/cron|/etc/cron)`, nil),
	pat("service_persistence", riskHigh, "installing a service that starts on its own", [][]string{oneOf("systemctl", "systemd", "launchctl", "launchagents", "launchdaemons")},
		`\bsystemctl\s+(?:--\S+\s+)*(?:enable|link|reenable)\b|\blaunchctl\s+(?:load|bootstrap|submit|enable)\b|(?:>>?|\btee\b|\bcp\b|\bmv\b|\bln\b)[^;&|\n]*(?:/etc/systemd/|\.config/systemd/|/lib/systemd/|/library/launch(?:agents|daemons))`, nil),
	pat("profile_persistence", riskHigh, "changing shell start-up files or the loader", [][]string{oneOf(">", "tee", "sed"), oneOf("rc", "profile", "zshenv", "zlogin", "environment", "preload", "config.fish")},
		`(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\S*)\s*['"]?(?:(?:~|\$home|\$\{home\})/\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|config/fish/config\.fish)|/etc/(?:profile|bash\.bashrc|zsh/zshrc|environment|ld\.so\.preload))`, nil),
	pat("network_listener", riskHigh, "opening a network listener", [][]string{oneOf("nc", "netcat", "socat"), oneOf("-l", "listen")},
		`\b(?:nc|ncat|netcat)\b`+sameCmd+`\s-[a-z]*l|\bsocat\b[^\n]*(?:tcp|udp)[46]?-listen`, nil),
	pat("disable_defences", riskHigh, "stopping security software or the firewall", [][]string{oneOf("kill", "setenforce", "ufw", "iptables", "systemctl", "mppreference")},
		`\b(?:kill|pkill|killall)\b`+sameCmd+`\b(?:antivirus|firewall\w*|defender|security|monitor|auditd|falcon\w*|osqueryd|clamd|selinux|apparmor|sysmon)\b|\bsetenforce\s+0\b|\bufw\s+disable\b|\biptables\s+(?:-t\s+\S+\s+)?-f\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:firewalld|ufw|apparmor|auditd|falcon-sensor)\b|set-mppreference[^\n]*-disable`, nil),
	pat("process_injection", riskHigh, "attaching to or reading another process's memory", [][]string{oneOf("gdb", "ptrace", "gcore", "/mem")},
		`\bgdb\b`+sameCmd+`(?:\s-p\s*\d|\s--pid\b|\battach\b)|ptrace[^\n]*poketext|\bgcore\b|/proc/(?:\d+|self|\$\w+)/mem\b`, nil),
	pat("setuid_bit", riskHigh, "setting the set-user-id bit", [][]string{oneOf("chmod")},
		`\bchmod\s+(?:-\S+\s+)*(?:[0-7]?[4-7][0-7]{3}\b|[ugoa]*[+=][rwxXt]*s)`, nil),
	pat("decode_to_shell", riskHigh, "decoded data piped into a shell", [][]string{oneOf("base64", "xxd", "openssl", `\x`), oneOf("|")},
		`(?:\bbase64\s+(?:-\S+\s+)*(?:-d|--decode|-D)\b|\bxxd\s+(?:-\S+\s+)*-r|\bopenssl\s+(?:base64|enc)\b[^|]*\s-d\b|\bprintf\s+['"]?(?:\\x[0-9a-f]{2}){4,})[^;&\n]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*|perl)\b`, nil),
	pat("eval_dynamic", riskHigh, "eval of text only known at run time", [][]string{oneOf("eval")},
		"\\beval\\s+[\"']?(?:\\$[a-z_{(]|`)", nil),
	pat("privileged_container", riskHigh, "container with host privileges", [][]string{oneOf("docker", "podman", "nerdctl"), oneOf("--privileged", "--pid", "--cap-add", "/:/", "docker.sock")},
		`\b(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:run|exec|create)\b`+sameCmd+`(?:--privileged|--pid[= ]host|--cap-add[= ](?:all|sys_admin|sys_ptrace|sys_module)|(?:-v|--volume)[= ]?['"]?/:/|/var/run/docker\.sock)`, nil),
	pat("namespace_escape", riskHigh, "entering host namespaces", [][]string{oneOf("nsenter", "unshare", "chroot")},
		`\b(?:nsenter|unshare|chroot)\b`+sameCmd+`(?:--mount|--pid|--net|\s-t\s*1\b|--target[= ]1\b)`, nil),
	pat("password_cracking", riskHigh, "password cracking tool", [][]string{oneOf("john", "hashcat", "hydra", "medusa", "brutespray", "ncrack")},
		`(?:^|[\s;&|(/])john\s+--[a-z]|(?:^|[;&|(]\s*|\bsudo\s+|/)(?:hashcat|hydra|medusa|brutespray|ncrack)\b`, nil),

	// Medium: still worth a person's look.
	pat("hosts_file", riskMedium, "changing /etc/hosts", [][]string{oneOf("/etc/hosts")},
		`(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\S*`+sameCmd+`)\s*/etc/hosts\b`, nil),
	pat("ssh_tunnel", riskMedium, "SSH port forwarding", [][]string{oneOf("ssh"), oneOf("-l", "-r", "-d")},
		`\bssh\b`+sameCmd+`\s-[a-z]*(?-i:[LR]\s*(?:[\w.]+:)?\d+:|D\s*(?:[\w.]+:)?\d+\b)`, nil),
	pat("log_tampering", riskMedium, "erasing logs or shell history", [][]string{oneOf("/var/log", "history", "histfile")},
		`(?:\btruncate\b`+sameCmd+`|\brm\s+(?:-\S+\s+)*|>\s*|\bshred\b`+sameCmd+`)/var/log(?:/|$|[\s;&|])|\bhistory\s+-c\b|\bunset\s+histfile\b|\bhistfile=/dev/null`, nil),
	pat("network_scan", riskMedium, "network scanner", [][]string{oneOf("nmap", "masscan", "zmap", "unicornscan")},
		`\b(?:nmap|masscan|zmap|unicornscan)\b`, nil),
	pat("unicode_obfuscation", riskMedium, "text hidden in unicode escapes", [][]string{oneOf(`\u`)},
		`(?:\\u[0-9a-f]{4}|\\U[0-9a-f]{8}){3,}`, nil),
	pat("steganography", riskMedium, "steganography tool", [][]string{oneOf("steghide", "outguess", "jphide", "stegseek")},
		`\b(?:steghide|outguess|jphide|stegseek)\b`, nil),
}

// secMatch is a pattern that matched, with the text that matched it.
type secMatch struct {
	id, risk, desc, excerpt string
}

// scanCommand returns every pattern the command matches, most severe first.
func scanCommand(cmd string) []secMatch {
	lower := strings.ToLower(cmd)
	var out []secMatch
	for i := range securityPatterns {
		p := &securityPatterns[i]
		if !p.wanted(lower) || slices.ContainsFunc(out, func(m secMatch) bool { return m.id == p.id }) {
			continue
		}
		if ex, ok := p.match(cmd); ok {
			if r := []rune(ex); len(r) > 80 {
				ex = string(r[:80]) + "…"
			}
			out = append(out, secMatch{id: p.id, risk: p.risk, desc: p.desc, excerpt: ex})
		}
	}
	slices.SortStableFunc(out, func(a, b secMatch) int { return riskRank(b.risk) - riskRank(a.risk) })
	return out
}

// wanted runs the prefilter on the lower-cased command.
func (p *secPattern) wanted(lower string) bool {
	for _, group := range p.need {
		hit := false
		for _, k := range group {
			if strings.Contains(lower, k) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// match returns the matched text of the first match that passes check.
func (p *secPattern) match(cmd string) (string, bool) {
	if p.check == nil {
		loc := p.re.FindStringIndex(cmd)
		if loc == nil {
			return "", false
		}
		return strings.TrimSpace(cmd[loc[0]:loc[1]]), true
	}
	for _, m := range p.re.FindAllStringSubmatch(cmd, 8) {
		if p.check(m) {
			return strings.TrimSpace(m[0]), true
		}
	}
	return "", false
}

func riskRank(r string) int {
	switch r {
	case riskCritical:
		return 2
	case riskHigh:
		return 1
	}
	return 0
}
