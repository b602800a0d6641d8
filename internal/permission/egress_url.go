package permission

import (
	"fmt"
	"net/url"
	"strings"
)

// Budgets of a fetched URL. An exfiltrating request needs room for the
// data, in one piece or spread over many: the single-piece limits catch
// the first, the whole-URL sums the second. Documentation URLs (deep
// GitHub paths with a commit hash, pkg.go.dev pseudo-versions, MDN and
// Microsoft Learn slugs) stay well under them (egress_test.go).
const (
	urlMaxQuery      = 160 // the raw query
	urlMaxValue      = 63  // one query value
	urlMaxSegment    = 95  // one path segment
	urlMaxChars      = 320 // host, path and query together
	urlMaxSubdomains = 48  // the host's labels before its last two
	urlMaxEncoded    = 95  // encoded-looking runs over every label, segment and query
)

// carriesData says why a URL may carry workspace content out, counting
// the whole URL (all path segments, the query and all DNS labels of the
// host), or "".
func carriesData(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "a URL that does not parse"
	}
	if u.User != nil {
		return "credentials in the URL"
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	path := u.EscapedPath()
	if len(u.RawQuery) > urlMaxQuery {
		return fmt.Sprintf("a %d-character query", len(u.RawQuery))
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if len(v) > urlMaxValue {
				return fmt.Sprintf("a %d-character query value", len(v))
			}
		}
	}
	for _, seg := range strings.Split(path, "/") {
		if len(seg) > urlMaxSegment {
			return fmt.Sprintf("a %d-character path segment", len(seg))
		}
	}
	if n := len(host) + len(path) + len(u.RawQuery); n > urlMaxChars {
		return fmt.Sprintf("a %d-character URL (host, path and query together)", n)
	}
	if n := subdomainChars(host); n > urlMaxSubdomains {
		return fmt.Sprintf("%d characters in the host's subdomain labels", n)
	}
	if n := encodedChars(host) + encodedChars(path) + encodedChars(u.RawQuery); n > urlMaxEncoded {
		return fmt.Sprintf("%d characters of encoded-looking data across the host's labels, the path and the query", n)
	}
	return ""
}

// subdomainChars counts the characters of a host name's labels before its
// last two (the registered name): where a DNS request carries data. An IP
// address has none.
func subdomainChars(host string) int {
	labels := strings.Split(host, ".")
	if len(labels) <= 2 || strings.Contains(host, ":") || isDigits(labels[len(labels)-1]) {
		return 0
	}
	n := 0
	for _, l := range labels[:len(labels)-2] {
		n += len(l)
	}
	return n
}

// encodedChars sums the runs of s that look like encoded data: 16 or
// more letters and digits mixed (base64, hex, base32), or any unbroken
// run of 40 or more. Words, slugs split by - _ . and version numbers do
// not count; a 40-character commit hash does.
func encodedChars(s string) int {
	n := 0
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !isEncodedRune(r) }) {
		hasDigit := strings.ContainsAny(run, "0123456789")
		hasLetter := strings.IndexFunc(run, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
		if len(run) >= 40 || len(run) >= 16 && hasDigit && hasLetter {
			n += len(run)
		}
	}
	return n
}

func isEncodedRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '='
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
