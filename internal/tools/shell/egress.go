package shell

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/netdest"
	"github.com/agentls/agentls/internal/permission"
)

// egressDefaultRemote and egressUnknown are the destinations of a push
// that names no remote and of an upload whose words name no host.
const (
	egressDefaultRemote = "the default remote"
	egressUnknown       = "an unknown destination"
)

func (r *report) egress(e permission.Egress) {
	if !slices.ContainsFunc(r.sends, func(o permission.Egress) bool { return o.Kind == e.Kind && o.Dest == e.Dest }) {
		r.sends = append(r.sends, e)
	}
}

// egress records what one simple command (already unwrapped by the
// judge: env, nohup, xargs and the like judge their inner command
// themselves) sends out.
func (c *checker) egress(r *report, fam string, a []arg) {
	args := vals(a[1:])
	hit := func(kind, dest string, n int) {
		n = min(n, len(a))
		r.egress(permission.Egress{Kind: kind, Dest: dest, What: "`" + strings.Join(vals(a[:n]), " ") + "`"})
	}
	ops := func(shortVal string) []string { return vals(parseOpts(a[1:], optSpec{shortVal: shortVal}).operands) }
	sub := func(i int) string {
		if o := ops(""); i < len(o) {
			return o[i]
		}
		return ""
	}
	switch fam {
	case "git":
		i, _ := gitSub(a)
		if i >= len(a) {
			return
		}
		switch a[i].val {
		case "push":
			rest := vals(parseOpts(a[i+1:], optSpec{shortVal: "o", longVal: []string{"repo", "push-option", "receive-pack", "exec", "signed", "recurse-submodules"}}).operands)
			remote := egressDefaultRemote
			if len(rest) > 0 {
				remote = rest[0]
			} else if v, ok := parseOpts(a[i+1:], optSpec{longVal: []string{"repo"}}).get("--repo"); ok {
				remote = v
			}
			r.egress(permission.Egress{Kind: "push", Dest: remote, What: "`git push`"})
		case "send-email", "request-pull":
			r.egress(permission.Egress{Kind: "send", Dest: egressUnknown, What: "`git " + a[i].val + "`"})
		}
	case "gh":
		x, y := sub(0), sub(1)
		if x == "gist" && y == "create" || x == "release" && (y == "create" || y == "upload") || x == "repo" && y == "create" {
			hit("upload", "github.com", 3)
		}
	case "curl":
		for i, w := range args {
			up := w == "--json" || w == "-T" || strings.HasPrefix(w, "--upload-file") || strings.HasPrefix(w, "--data") ||
				strings.HasPrefix(w, "--form") || strings.HasPrefix(w, "-F") || strings.HasPrefix(w, "-d")
			if !up && len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], "dFT") {
				up = true // bundled short flags: -sSd
			}
			method := ""
			switch {
			case w == "-X" || w == "--request":
				if i+1 < len(args) {
					method = args[i+1]
				}
			case strings.HasPrefix(w, "-X"):
				method = w[2:]
			case strings.HasPrefix(w, "--request="):
				method = w[len("--request="):]
			}
			if up || writeMethod(method) {
				hit("upload", urlHostIn(args), 1)
				return
			}
		}
	case "wget", "wget2":
		for _, w := range args {
			if strings.HasPrefix(w, "--post-") || strings.HasPrefix(w, "--body-") ||
				(strings.HasPrefix(w, "--method=") && writeMethod(w[len("--method="):])) {
				hit("upload", urlHostIn(args), 1)
				return
			}
		}
	case "http", "https", "httpie", "xh", "xhs":
		for i, o := range ops("a") {
			if (i == 0 && writeMethod(o)) || strings.HasPrefix(o, "@") || strings.Contains(o, ":=") || strings.Contains(o, "=@") ||
				(strings.Contains(o, "=") && !strings.Contains(o, "==") && !strings.Contains(o, "://")) {
				hit("upload", urlHostIn(args), 1)
				return
			}
		}
	case "scp", "rsync", "sftp":
		o := ops("PiJlocFSeBDX")
		if len(o) == 0 {
			return
		}
		if fam == "sftp" {
			hit("copy", netdest.Host(o[0]), 2)
		} else if h := netdest.RemoteHost(o[len(o)-1]); h != "" && len(o) > 1 {
			hit("copy", h, 1)
		}
	case "ssh", "mosh", "autossh", "nc", "ncat", "netcat", "telnet", "ftp", "tftp":
		h := egressUnknown
		if o := ops("bcDEeFIiJLlmOopQRSWwpsqTxy"); len(o) > 0 {
			h = netdest.Host(o[0])
		}
		hit("connect", h, 2)
	case "socat":
		for _, w := range args {
			if l := strings.ToLower(w); strings.HasPrefix(l, "tcp:") || strings.HasPrefix(l, "tcp4:") ||
				strings.HasPrefix(l, "tcp6:") || strings.HasPrefix(l, "udp:") || strings.HasPrefix(l, "openssl:") {
				hit("connect", netdest.Host(w[strings.IndexByte(w, ':')+1:]), 1)
				return
			}
		}
	case "aws":
		o := ops("")
		if len(o) >= 4 && o[0] == "s3" && (o[1] == "cp" || o[1] == "mv" || o[1] == "sync") &&
			strings.HasPrefix(o[len(o)-1], "s3://") && !strings.HasPrefix(o[len(o)-2], "s3://") {
			hit("upload", bucketHost(o[len(o)-1], ".s3.amazonaws.com"), 3)
		} else if len(o) >= 2 && o[0] == "s3api" && (o[1] == "put-object" || o[1] == "upload-part") {
			hit("upload", "s3.amazonaws.com", 3)
		}
	case "gsutil", "gcloud":
		o := ops("")
		if fam == "gcloud" && len(o) > 1 && o[0] == "storage" {
			o = o[1:]
		}
		if len(o) >= 3 && (o[0] == "cp" || o[0] == "mv" || o[0] == "rsync") &&
			strings.HasPrefix(o[len(o)-1], "gs://") && !strings.HasPrefix(o[len(o)-2], "gs://") {
			hit("upload", bucketHost(o[len(o)-1], ".storage.googleapis.com"), 2)
		}
	case "rclone":
		o := ops("")
		if len(o) >= 3 && (o[0] == "copy" || o[0] == "copyto" || o[0] == "sync" || o[0] == "move" || o[0] == "moveto") {
			if dst := o[len(o)-1]; netdest.RemoteHost(dst) != "" || strings.HasSuffix(dst, ":") {
				remote, _, _ := strings.Cut(dst, ":")
				hit("upload", remote, 2)
			}
		}
	case "npm", "pnpm", "yarn", "bun":
		if sub(0) == "publish" {
			hit("publish", "registry.npmjs.org", 2)
		}
	case "cargo":
		if sub(0) == "publish" {
			hit("publish", "crates.io", 2)
		}
	case "twine", "flit", "hatch", "poetry", "uv":
		if s := sub(0); s == "upload" || s == "publish" {
			hit("publish", "pypi.org", 2)
		}
	case "gem":
		if sub(0) == "push" {
			hit("publish", "rubygems.org", 2)
		}
	case "docker", "podman", "buildah", "nerdctl", "helm":
		o := ops("")
		if len(o) >= 2 && o[0] == "push" {
			hit("publish", netdest.Host(o[1]), 2)
		} else if len(o) >= 3 && o[0] == "image" && o[1] == "push" {
			hit("publish", netdest.Host(o[2]), 3)
		}
	case "dotnet":
		if sub(0) == "nuget" && sub(1) == "push" {
			hit("publish", "nuget.org", 3)
		}
	case "mvn", "gradle", "gradlew":
		for _, o := range ops("") {
			if o == "deploy" || strings.HasPrefix(o, "publish") {
				hit("publish", egressUnknown, 2)
				return
			}
		}
	}
}

// urlHostIn is the host of the first URL among words, else
// egressUnknown.
func urlHostIn(words []string) string {
	for _, w := range words {
		if h := netdest.URLHost(w); h != "" {
			return h
		}
	}
	return egressUnknown
}

func writeMethod(m string) bool {
	switch strings.ToUpper(m) {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}

// bucketHost is the host serving a bucket URL (s3://b/…, gs://b/…).
func bucketHost(url, suffix string) string {
	b := strings.TrimPrefix(strings.TrimPrefix(url, "s3://"), "gs://")
	b, _, _ = strings.Cut(b, "/")
	return b + suffix
}
