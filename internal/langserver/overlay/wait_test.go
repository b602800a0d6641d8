package overlay

import (
	"context"
	"testing"
	"time"
)

// Wait returns when a didChange brings the awaited text, and when the
// document closes; it gives up when its context ends.
func TestWait(t *testing.T) {
	s := open(t, "a\n")
	got := make(chan bool, 1)
	go func() {
		got <- s.Wait(context.Background(), "/w/a.go", func(text string, v int32, open bool) bool { return open && text == "ab\n" && v == 3 })
	}()
	if _, err := s.Change(uri, 2, []Change{{Text: "x\n"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
		t.Fatal("Wait returned before the awaited text arrived")
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := s.Change(uri, 3, []Change{{Text: "ab\n"}}); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, got, "the didChange")

	closed := make(chan bool, 1)
	go func() {
		closed <- s.Wait(context.Background(), "/w/a.go", func(_ string, _ int32, open bool) bool { return !open })
	}()
	if err := s.Close(uri); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, closed, "the didClose")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if s.Wait(ctx, "/w/a.go", func(string, int32, bool) bool { return false }) {
		t.Error("Wait reported true for a condition that never held")
	}
}

// waitTrue fails unless Wait, running in a goroutine that sends its
// result on got, returns true within 5 s of what.
func waitTrue(t *testing.T, got <-chan bool, what string) {
	t.Helper()
	select {
	case ok := <-got:
		if !ok {
			t.Fatalf("Wait reported false after %s", what)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Wait missed %s", what)
	}
}
