package permission

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/agentls/agentls/internal/netdest"
)

// egressHit is one way a call sends data out: its kind (push, upload,
// publish, copy, connect, send), where to, and the words that do it.
type egressHit struct {
	kind, dest, what string
	// message, when set, is the whole warning (for hits that are not
	// data sent out).
	message string
}

// defaultGitRemote is what tools/shell reports for a push without a remote.
const defaultGitRemote = "git:default-remote"

// detectEgress finds outbound data in a call. Shell commands are read word
// by word; other tools count when they name destinations and are not
// read-only, or say they reach the open world (Request.OpenWorld). Inbound traffic (clone, pull, plain downloads) is not egress.
func detectEgress(r *Request) []egressHit {
	var out []egressHit
	add := func(h egressHit) {
		for _, o := range out {
			if o.kind == h.kind && o.dest == h.dest {
				return
			}
		}
		out = append(out, h)
	}
	if r.Capability == "net.fetch" {
		// A fetch is a download; it sends data only in its URL.
		for _, d := range r.Destinations {
			h := DestinationHost(d)
			if why := carriesData(d); why != "" {
				add(egressHit{kind: "url", dest: h, what: r.Tool + " (" + why + ")"})
			}
			if local(h) {
				add(egressHit{kind: "local", dest: h, message: fmt.Sprintf(
					"egress: %s reaches %s, an address on this machine or its private network, where local services and cloud metadata listen", r.Tool, h)})
			}
		}
		return out
	}
	if r.Command == "" && len(r.Argvs) == 0 {
		if r.OpenWorld {
			add(egressHit{kind: "open world", dest: "services outside this machine", what: r.Tool})
		}
		if !r.ReadOnly {
			for _, d := range r.Destinations {
				add(egressHit{kind: "send", dest: displayDest(d), what: r.Tool})
			}
		}
		return out
	}
	lines := r.Argvs
	if len(lines) == 0 {
		lines = splitCommands(r.Command)
	}
	for _, argv := range lines {
		argv = unwrap(argv)
		if len(argv) == 0 {
			continue
		}
		if h, ok := egressOf(argv, r.Destinations); ok {
			add(h)
		}
	}
	return out
}

// local reports whether host is this machine or a private, link-local or
// unspecified address. A name is judged as written: one that resolves to
// such an address is not caught here.
func local(host string) bool {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() || a.IsLinkLocalMulticast()
}

// carriesData says why a URL may carry workspace content out (a long
// query, a long value or path segment, as an exfiltrating request needs),
// or "".
func carriesData(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "a URL that does not parse"
	}
	if len(u.RawQuery) > 160 {
		return fmt.Sprintf("a %d-character query", len(u.RawQuery))
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if len(v) >= 64 {
				return fmt.Sprintf("a %d-character query value", len(v))
			}
		}
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if len(seg) >= 96 {
			return fmt.Sprintf("a %d-character path segment", len(seg))
		}
	}
	if u.User != nil {
		return "credentials in the URL"
	}
	return ""
}

// unwrap drops assignments and wrappers that run the rest of the line
// (sudo, env, time, nice, nohup, command, exec).
func unwrap(argv []string) []string {
	for len(argv) > 0 {
		w := baseName(argv[0])
		switch {
		case strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "-"):
			argv = argv[1:]
		case w == "sudo" || w == "env" || w == "time" || w == "nice" || w == "nohup" || w == "command" || w == "exec" || w == "doas":
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				argv = argv[1:]
			}
		default:
			return argv
		}
	}
	return argv
}

// operands returns the words that are not options, skipping the values of
// the listed short options that take one.
func operands(args []string, withValue string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			// --opt=value or a flag; values of long options are rare here.
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if len(a) == 2 && strings.ContainsRune(withValue, rune(a[1])) {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// urlHost returns the host of the first URL among words.
func urlHost(words []string) string {
	for _, w := range words {
		if h := netdest.URLHost(w); h != "" {
			return h
		}
	}
	return ""
}

func displayDest(d string) string {
	if d == defaultGitRemote {
		return "the default remote"
	}
	if h := netdest.URLHost(d); h != "" {
		return h
	}
	return d
}

// firstDest picks a destination for a hit: from the words, else from the
// judge's destinations, else "an unknown destination".
func firstDest(fromWords string, dests []string) string {
	if fromWords != "" {
		return fromWords
	}
	if len(dests) > 0 {
		return displayDest(dests[0])
	}
	return "an unknown destination"
}

// egressOf judges one simple command.
func egressOf(argv []string, dests []string) (egressHit, bool) {
	name := strings.ToLower(strings.TrimSuffix(baseName(argv[0]), ".exe"))
	args := argv[1:]
	sub := func(i int) string {
		ops := operands(args, "")
		if i < len(ops) {
			return ops[i]
		}
		return ""
	}
	hit := func(kind, dest string, n int) (egressHit, bool) {
		n = min(n, len(argv))
		return egressHit{kind: kind, dest: dest, what: "`" + strings.Join(argv[:n], " ") + "`"}, true
	}
	switch name {
	case "git":
		ops := operands(args, "Cc")
		if len(ops) == 0 {
			return egressHit{}, false
		}
		switch ops[0] {
		case "push":
			remote := ""
			if len(ops) > 1 {
				remote = ops[1]
			}
			if remote == "" {
				remote = "the default remote"
				for _, d := range dests {
					if d != defaultGitRemote {
						remote = displayDest(d)
						break
					}
				}
			}
			return hit("push", remote, 2)
		case "send-email", "request-pull":
			return hit("send", firstDest("", dests), 2)
		}
	case "gh":
		a, b := sub(0), sub(1)
		switch {
		case a == "gist" && b == "create", a == "release" && (b == "create" || b == "upload"), a == "repo" && b == "create":
			return hit("upload", "github.com", 3)
		}
	case "curl":
		for i, a := range args {
			up := a == "--json" || a == "-T" || a == "--upload-file" || strings.HasPrefix(a, "--data") ||
				strings.HasPrefix(a, "--form") || strings.HasPrefix(a, "-F") || strings.HasPrefix(a, "-d") ||
				strings.HasPrefix(a, "--upload-file=")
			if !up && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "dFT") {
				up = true // bundled short flags: -sSd
			}
			method := ""
			switch {
			case a == "-X" || a == "--request":
				if i+1 < len(args) {
					method = args[i+1]
				}
			case strings.HasPrefix(a, "-X"):
				method = a[2:]
			case strings.HasPrefix(a, "--request="):
				method = a[len("--request="):]
			}
			if up || isWriteMethod(method) {
				return hit("upload", firstDest(urlHost(args), dests), 1)
			}
		}
	case "wget", "wget2":
		for _, a := range args {
			if strings.HasPrefix(a, "--post-") || strings.HasPrefix(a, "--body-") ||
				(strings.HasPrefix(a, "--method=") && isWriteMethod(a[len("--method="):])) {
				return hit("upload", firstDest(urlHost(args), dests), 1)
			}
		}
	case "http", "https", "httpie", "xh", "xhs":
		ops := operands(args, "a")
		for i, o := range ops {
			if (i == 0 && isWriteMethod(o)) || strings.HasPrefix(o, "@") || strings.Contains(o, ":=") || strings.Contains(o, "=@") ||
				(strings.Contains(o, "=") && !strings.Contains(o, "==") && !strings.Contains(o, "://")) {
				return hit("upload", firstDest(urlHost(args), dests), 1)
			}
		}
	case "scp", "rsync", "sftp":
		ops := operands(args, "PiJlocFSeBDX")
		if len(ops) == 0 {
			return egressHit{}, false
		}
		if name == "sftp" {
			return hit("copy", netdest.Host(ops[0]), 2)
		}
		if h := netdest.RemoteHost(ops[len(ops)-1]); h != "" && len(ops) > 1 {
			return hit("copy", h, 1)
		}
	case "ssh", "mosh", "autossh", "nc", "ncat", "netcat", "telnet", "ftp", "tftp":
		ops := operands(args, "bcDEeFIiJLlmOopQRSWwpsqTxy")
		h := ""
		if len(ops) > 0 {
			h = netdest.Host(ops[0])
		}
		return hit("connect", firstDest(h, dests), 2)
	case "socat":
		for _, a := range args {
			if l := strings.ToLower(a); strings.HasPrefix(l, "tcp:") || strings.HasPrefix(l, "tcp4:") ||
				strings.HasPrefix(l, "tcp6:") || strings.HasPrefix(l, "udp:") || strings.HasPrefix(l, "openssl:") {
				return hit("connect", netdest.Host(a[strings.IndexByte(a, ':')+1:]), 1)
			}
		}
	case "aws":
		ops := operands(args, "")
		if len(ops) >= 4 && ops[0] == "s3" && (ops[1] == "cp" || ops[1] == "mv" || ops[1] == "sync") &&
			strings.HasPrefix(ops[len(ops)-1], "s3://") && !strings.HasPrefix(ops[len(ops)-2], "s3://") {
			return hit("upload", bucket(ops[len(ops)-1], ".s3.amazonaws.com"), 3)
		}
		if len(ops) >= 2 && ops[0] == "s3api" && (ops[1] == "put-object" || ops[1] == "upload-part") {
			return hit("upload", "s3.amazonaws.com", 3)
		}
	case "gsutil", "gcloud":
		ops := operands(args, "")
		if name == "gcloud" && len(ops) > 1 && ops[0] == "storage" {
			ops = ops[1:]
		}
		if len(ops) >= 3 && (ops[0] == "cp" || ops[0] == "mv" || ops[0] == "rsync") &&
			strings.HasPrefix(ops[len(ops)-1], "gs://") && !strings.HasPrefix(ops[len(ops)-2], "gs://") {
			return hit("upload", bucket(ops[len(ops)-1], ".storage.googleapis.com"), 2)
		}
	case "rclone":
		ops := operands(args, "")
		if len(ops) >= 3 && (ops[0] == "copy" || ops[0] == "copyto" || ops[0] == "sync" || ops[0] == "move" || ops[0] == "moveto") {
			if dst := ops[len(ops)-1]; netdest.RemoteHost(dst) != "" || strings.HasSuffix(dst, ":") {
				return hit("upload", strings.TrimSuffix(strings.SplitN(dst, ":", 2)[0], ":"), 2)
			}
		}
	case "npm", "pnpm", "yarn", "bun":
		if sub(0) == "publish" {
			return hit("publish", "registry.npmjs.org", 2)
		}
	case "cargo":
		if sub(0) == "publish" {
			return hit("publish", "crates.io", 2)
		}
	case "twine", "flit", "hatch", "poetry", "uv":
		if s := sub(0); s == "upload" || s == "publish" {
			return hit("publish", "pypi.org", 2)
		}
	case "gem":
		if sub(0) == "push" {
			return hit("publish", "rubygems.org", 2)
		}
	case "docker", "podman", "buildah", "nerdctl", "helm":
		ops := operands(args, "")
		if len(ops) >= 2 && ops[0] == "push" {
			return hit("publish", netdest.Host(ops[1]), 2)
		}
		if len(ops) >= 3 && ops[0] == "image" && ops[1] == "push" {
			return hit("publish", netdest.Host(ops[2]), 3)
		}
	case "dotnet":
		if sub(0) == "nuget" && sub(1) == "push" {
			return hit("publish", "nuget.org", 3)
		}
	case "mvn", "gradle", "gradlew":
		for _, o := range operands(args, "") {
			if o == "deploy" || strings.HasPrefix(o, "publish") {
				return hit("publish", firstDest("", dests), 2)
			}
		}
	}
	return egressHit{}, false
}

func isWriteMethod(m string) bool {
	switch strings.ToUpper(m) {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}

func bucket(url, suffix string) string {
	b := strings.TrimPrefix(strings.TrimPrefix(url, "s3://"), "gs://")
	b, _, _ = strings.Cut(b, "/")
	return b + suffix
}
