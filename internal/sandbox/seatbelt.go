package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// seatbeltBase is the fixed part of the macOS profile: deny everything,
// then allow what any program needs to start and run (its own processes,
// signals among them, system information, the system services that name
// lookups and preferences use, terminals), and nothing of the file system
// or the network — seatbeltProfile adds those from the policy.
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow process-info* (target same-sandbox))
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm-read-data ipc-posix-shm-write-data (ipc-posix-name-prefix "apple.shm.notification_center"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.coreservices.launchservicesd")
  (global-name "com.apple.lsd.mapdb")
  (global-name "com.apple.CoreServices.coreservicesd")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (global-name "com.apple.diagnosticd")
  (global-name "com.apple.analyticsd"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow file-read-metadata)
(allow file-ioctl (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow pseudo-tty)
(allow file-read* file-write-data
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper")
  (regex #"^/dev/ttys[0-9]+$") (literal "/dev/ptmx"))
(allow file-read* (literal "/dev/random") (literal "/dev/urandom") (literal "/"))
`

// seatbeltProfile is the profile for pol; the paths travel as sandbox-exec
// parameters (-D), never spliced into the profile's text, so no path can
// change its syntax. proxyPort > 0 is the one loopback port programs may
// connect to.
func seatbeltProfile(pol Policy, proxyPort int) (profile string, params []string) {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	rule := func(allow, prefix string, paths []string) {
		if len(paths) == 0 {
			return
		}
		fmt.Fprintf(&b, "(allow %s", allow)
		for i, p := range paths {
			name := prefix + strconv.Itoa(i)
			fmt.Fprintf(&b, "\n  (subpath (param %q))", name)
			params = append(params, "-D", name+"="+p)
		}
		b.WriteString(")\n")
	}
	rule("file-read*", "READ_", pol.Read)
	rule("file-read* file-write*", "WRITE_", pol.Write)
	if pol.Network && proxyPort > 0 {
		fmt.Fprintf(&b, "(allow network-outbound (remote ip \"localhost:%d\"))\n", proxyPort)
	}
	return b.String(), params
}
