package permission

import (
	"fmt"

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

// detectEgress finds outbound data in a call. A shell command's come from
// the shell judge's reading of it (Request.Egress: the gate parses no
// shell); other tools count when they name destinations and are not
// read-only, or say they reach the open world (Request.OpenWorld). A
// fetch sends data only in its URL. Inbound traffic (clone, pull, plain
// downloads) is not egress.
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
			if netdest.Local(h) {
				add(egressHit{kind: "local", dest: h, message: fmt.Sprintf(
					"egress: %s reaches %s, an address on this machine or its private network, where local services and cloud metadata listen", r.Tool, h)})
			}
		}
		return out
	}
	for _, e := range r.Egress {
		add(egressHit{kind: e.Kind, dest: e.Dest, what: e.What})
	}
	if r.OpenWorld {
		add(egressHit{kind: "open world", dest: "services outside this machine", what: r.Tool})
	}
	if !r.ReadOnly && r.Command == "" && len(r.Argvs) == 0 {
		for _, d := range r.Destinations {
			add(egressHit{kind: "send", dest: displayDest(d), what: r.Tool})
		}
	}
	return out
}

// displayDest is a destination as the person reads it: a URL's host.
func displayDest(d string) string {
	if h := netdest.URLHost(d); h != "" {
		return h
	}
	return d
}
