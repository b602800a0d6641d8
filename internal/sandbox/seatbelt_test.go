package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestSeatbeltProfile: paths reach the profile only as parameters, so a
// path with quotes or parentheses cannot change its syntax; the network is
// the proxy's loopback port and nothing else.
func TestSeatbeltProfile(t *testing.T) {
	hostile := `/Users/a/ws") (allow file-write* (subpath "/`
	pol := Policy{Read: []string{"/usr", "/opt/homebrew"}, Write: []string{hostile, "/private/var/folders/x/T/agentls"}, Network: true}
	prof, params := seatbeltProfile(pol, 41234)
	if strings.Contains(prof, "/Users/a") || strings.Contains(prof, "/opt/homebrew") {
		t.Errorf("a path was spliced into the profile:\n%s", prof)
	}
	for _, want := range []string{
		"(deny default)",
		`(subpath (param "READ_0"))`, `(subpath (param "READ_1"))`,
		"(allow file-read* file-write*\n  (subpath (param \"WRITE_0\"))",
		`(allow network-outbound (remote ip "localhost:41234"))`,
	} {
		if !strings.Contains(prof, want) {
			t.Errorf("profile lacks %q:\n%s", want, prof)
		}
	}
	if strings.Count(prof, "network") != 1 {
		t.Errorf("the profile allows more network than the proxy:\n%s", prof)
	}
	wantParams := []string{"-D", "READ_0=/usr", "-D", "READ_1=/opt/homebrew", "-D", "WRITE_0=" + hostile, "-D", "WRITE_1=/private/var/folders/x/T/agentls"}
	if !slices.Equal(params, wantParams) {
		t.Errorf("params = %q\nwant %q", params, wantParams)
	}
	noNet, _ := seatbeltProfile(Policy{Read: []string{"/usr"}}, 41234)
	if strings.Contains(noNet, "network") {
		t.Errorf("a policy without network allows some:\n%s", noNet)
	}
	if strings.Count(prof, "(") != strings.Count(prof, ")") {
		t.Errorf("unbalanced profile:\n%s", prof)
	}
}
