package sandbox

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A sandbox made again from its Spec, after a trip through JSON (as
// `agentls exec` receives it), confines as the first: the same policy,
// the same program environment, no secret added back.
func TestSpecRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	o := Options{
		Mode:    ModeAuto,
		Policy:  Policy{Read: []string{"/usr"}, Write: []string{tmp}},
		TempDir: tmp, Home: "/home/someone",
		Environ:  []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "GITHUB_TOKEN=ghp_secret", "MY_SETTING=1"},
		EnvAllow: []string{"MY_SETTING"},
	}
	first, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	b, err := json.Marshal(first.Spec())
	if err != nil {
		t.Fatal(err)
	}
	var sp Spec
	if err := json.Unmarshal(b, &sp); err != nil {
		t.Fatal(err)
	}
	second, err := FromSpec(sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if !slices.Equal(first.Policy().Read, second.Policy().Read) || !slices.Equal(first.Policy().Write, second.Policy().Write) || second.Policy().Network {
		t.Errorf("policy %+v, want %+v", second.Policy(), first.Policy())
	}
	if first.Confined() != second.Confined() {
		t.Errorf("confined %v, want %v", second.Confined(), first.Confined())
	}
	e1, e2 := first.Env(""), second.Env("")
	slices.Sort(e1)
	slices.Sort(e2)
	if !slices.Equal(e1, e2) {
		t.Errorf("environment\n%v\nwant\n%v", e2, e1)
	}
	if strings.Contains(strings.Join(e2, "\n"), "ghp_secret") || !slices.Contains(e2, "MY_SETTING=1") {
		t.Errorf("environment %v: want MY_SETTING kept and no GITHUB_TOKEN", e2)
	}
}

func TestFromSpecEdges(t *testing.T) {
	if sb, err := FromSpec(Spec{Mode: ModeOff}, nil); sb != nil || err != nil {
		t.Errorf("mode off: %v %v, want a nil sandbox (unconfined)", sb, err)
	}
	if _, err := FromSpec(Spec{Mode: ModeAuto, Policy: Policy{Network: true}}, nil); err == nil {
		t.Error("a network without a proxy was accepted")
	}
	if _, err := FromSpec(Spec{Mode: "loose"}, nil); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
