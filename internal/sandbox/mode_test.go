package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestModes: where programs cannot be confined, auto runs them as they are
// and says why, required refuses them, off never confines.
func TestModes(t *testing.T) {
	pol := Policy{Read: []string{"/usr"}, Write: []string{t.TempDir()}}
	for _, tc := range []struct {
		mode    Mode
		wantErr bool
	}{{ModeAuto, false}, {"", false}, {ModeRequired, true}, {ModeOff, false}} {
		sb, err := New(Options{Mode: tc.mode, Policy: pol, unavailable: "this test's system has no sandbox"})
		if err != nil {
			t.Fatal(err)
		}
		if sb.Confined() {
			t.Errorf("%q: confined on a system without a sandbox", tc.mode)
		}
		if tc.mode != ModeOff && !strings.Contains(sb.Status().String(), "not enforced: this test's system has no sandbox") {
			t.Errorf("%q: status does not say why:\n%s", tc.mode, sb.Status())
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$") // this test binary: on every system
		err = sb.Start(cmd)
		switch {
		case tc.wantErr && !errors.Is(err, ErrUnconfined):
			t.Errorf("%q: Start = %v, want ErrUnconfined", tc.mode, err)
		case !tc.wantErr && err != nil:
			t.Errorf("%q: Start = %v", tc.mode, err)
		case err == nil:
			if err := cmd.Wait(); err != nil {
				t.Errorf("%q: %v", tc.mode, err)
			}
		}
		sb.Close()
	}
	if _, err := New(Options{Mode: "loose"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if _, err := New(Options{Policy: Policy{Write: []string{"relative/path"}}}); err == nil {
		t.Error("a relative path was accepted")
	}
}
