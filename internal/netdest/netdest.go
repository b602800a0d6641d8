// Package netdest reads network destinations out of command words: URLs
// (scheme://host/…), host arguments (user@host:port) and scp/rsync remote
// operands (host:path). The shell judge reports destinations with it and
// the gate's egress inspector names them with it, so both read a word the
// same way.
package netdest

import "strings"

// URLIn extracts a URL (scheme://…) from a word such as --url=https://x,
// or "" when the word holds none.
func URLIn(w string) string {
	i := strings.Index(w, "://")
	if i <= 0 {
		return ""
	}
	j := i
	for j > 0 {
		ch := w[j-1]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '.' || ch == '-' {
			j--
			continue
		}
		break
	}
	if j == i {
		return ""
	}
	return w[j:]
}

// Host strips user@ and :port/path from a host argument; an IPv6 address
// in brackets loses its brackets.
func Host(w string) string {
	if at := strings.LastIndexByte(w, '@'); at >= 0 {
		w = w[at+1:]
	}
	if strings.HasPrefix(w, "[") {
		if end := strings.IndexByte(w, ']'); end > 0 {
			return w[1:end]
		}
	}
	if k := strings.IndexAny(w, ":/"); k >= 0 {
		w = w[:k]
	}
	return w
}

// URLHost returns the host of the URL in w, or "".
func URLHost(w string) string {
	u := URLIn(w)
	if u == "" {
		return ""
	}
	return Host(u[strings.Index(u, "://")+3:])
}

// RemoteHost returns the host of an scp/rsync operand (host:path,
// user@host:path, rsync://host/…), or "" for a local path — including a
// Windows path such as C:\dir or C:/dir, on every system.
func RemoteHost(w string) string {
	if h := URLHost(w); h != "" {
		return h
	}
	if open := strings.IndexByte(w, '['); open >= 0 && !strings.ContainsAny(w[:open], ":/\\") { // [::1]:path, user@[::1]:path
		if end := strings.Index(w[open:], "]:"); end > 0 {
			return w[open+1 : open+end]
		}
		return ""
	}
	colon := strings.IndexByte(w, ':')
	if colon <= 0 || strings.ContainsAny(w[:colon], `/\`) {
		return ""
	}
	if colon == 1 && (len(w) == 2 || w[2] == '\\' || w[2] == '/') {
		return "" // a drive letter
	}
	return Host(w[:colon])
}
