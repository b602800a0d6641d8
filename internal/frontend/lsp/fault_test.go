package lsp_test

// The fault suite's editor faults (docs/faults.md): each test breaks one
// thing the editor does and checks that no user data is lost, that the
// failure reaches the model (the tool result it reads) and the person
// (the agentls/event the editor shows), and that the server still runs
// turns afterwards.

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// faultScript views a.go, edits it, answers, and has one more answer for
// the ask that proves the server still serves.
const faultScript = `{"turns":[
	{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
	{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"println(\"old\")","new_string":"println(\"new\")"}}]},
	{"text":"changed it"},
	{"text":"still here"}]}`

// mine is the person's unsaved change: "package main" → "package main // mine".
var mine = fake.Edit{StartLine: 0, StartChar: 12, EndLine: 0, EndChar: 12, Text: " // mine"}

const tabbedMine = "package main // mine\n\nfunc main() {\n\tif true {\n\t\tprintln(\"old\")\n\t}\n}\n"

// openWithUnsaved opens a.go in the editor with the person's unsaved change.
func openWithUnsaved(t *testing.T, ctx context.Context, ed *fake.Editor, path string) {
	t.Helper()
	if err := ed.Open(ctx, path, tabbed); err != nil {
		t.Fatal(err)
	}
	if err := ed.Change(ctx, path, mine); err != nil {
		t.Fatal(err)
	}
}

// askTurn asks and returns the turn's events.
func askTurn(t *testing.T, ctx context.Context, ed *fake.Editor, prompt string) []agent.Event {
	t.Helper()
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: prompt})
	if err != nil {
		t.Fatalf("ask %q: %v", prompt, err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// editFailed checks the edit's result reached the editor as an error
// the model can act on, naming what went wrong.
func editFailed(t *testing.T, evs []agent.Event, wants ...string) {
	t.Helper()
	r := resultsOf(evs, "edit")
	if len(r) != 1 || !*r[0].IsError {
		t.Fatalf("edit results = %+v, want one error", r)
	}
	for _, w := range wants {
		if !strings.Contains(*r[0].Content, w) {
			t.Errorf("edit result %q does not say %q", *r[0].Content, w)
		}
	}
}

// stillServes asks once more: the server answers with the script's last
// turn, and the person is told.
func stillServes(t *testing.T, ctx context.Context, ed *fake.Editor) {
	t.Helper()
	evs := askTurn(t, ctx, ed, "are you there?")
	if last := evs[len(evs)-1]; last.Type != agent.EventTurnEnd || last.Reason != agent.ReasonCompleted {
		t.Fatalf("the next turn ended %+v", last)
	}
	shows := ed.Shows()
	if got := shows[len(shows)-1].Message; got != "agentls: still here" {
		t.Errorf("the next turn's message = %q", got)
	}
}

// noTempFiles fails if an atomic write left a temporary file under root.
func noTempFiles(t *testing.T, root string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".agentls-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// disk checks a file on disk holds want.
func disk(t *testing.T, path, want string) {
	t.Helper()
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("%s on disk = %q, want %q", filepath.Base(path), got, want)
	}
}

// TestFaultApplyEditNotApplied: the editor answers applyEdit with
// applied:false or with an error. The buffer keeps the person's unsaved
// change, the model reads why, and the server goes on.
func TestFaultApplyEditNotApplied(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(context.Context, *fake.Editor, json.RawMessage) (any, error)
		want   string
	}{
		{"applied false", func(context.Context, *fake.Editor, json.RawMessage) (any, error) {
			return map[string]any{"applied": false, "failureReason": "the file is read-only"}, nil
		}, "the file is read-only"},
		{"error", func(context.Context, *fake.Editor, json.RawMessage) (any, error) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "the buffer is locked by another extension")
		}, "the buffer is locked by another extension"},
		{"bare false", func(context.Context, *fake.Editor, json.RawMessage) (any, error) { return false, nil }, "did not apply"},
		{"nonsense answer", func(context.Context, *fake.Editor, json.RawMessage) (any, error) { return "sure", nil }, `answered "sure"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) { o.AnswerApplyEdit = tc.answer })
			path := filepath.Join(root, "a.go")
			openWithUnsaved(t, ctx, ed, path)
			editFailed(t, askTurn(t, ctx, ed, "say new"), "a.go was not changed", tc.want)
			if got, _ := ed.Buffer(path); got != tabbedMine {
				t.Errorf("buffer = %q", got)
			}
			disk(t, path, tabbed)
			stillServes(t, ctx, ed)
		})
	}
}

// TestFaultApplyEditNeverAnswered: the editor never answers applyEdit.
// The turn does not hang: after the edit timeout the model is told the
// edit may or may not have landed, the editor is told to drop the
// request, and the turn and the server go on.
func TestFaultApplyEditNeverAnswered(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
		o.EditTimeout = 300 * time.Millisecond
		o.AnswerApplyEdit = func(ctx context.Context, _ *fake.Editor, _ json.RawMessage) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	})
	path := filepath.Join(root, "a.go")
	openWithUnsaved(t, ctx, ed, path)
	evs := askTurn(t, ctx, ed, "say new")
	editFailed(t, evs, "a.go may or may not have changed", "did not answer workspace/applyEdit within 300ms", "View it again")
	if last := evs[len(evs)-1]; last.Reason != agent.ReasonCompleted {
		t.Errorf("turn ended %q, want completed (the model went on)", last.Reason)
	}
	if err := ed.WaitFor(ctx, "$/cancelRequest", func(e *fake.Editor) bool { return len(e.Cancels()) == 1 }); err != nil {
		t.Error(err)
	}
	if got, _ := ed.Buffer(path); got != tabbedMine {
		t.Errorf("buffer = %q", got)
	}
	disk(t, path, tabbed)
	stillServes(t, ctx, ed)
}

// TestFaultBufferMovedBetweenAskAndApply: the person types while being
// asked. The edit was prepared for a version that is gone: it is
// refused before anything is sent, and the typing is kept.
func TestFaultBufferMovedBetweenAskAndApply(t *testing.T) {
	ctx := ctxT(t)
	var ed *fake.Editor
	var path string
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
		o.Answer = func(string, []string) string {
			if err := ed.Change(context.Background(), path, fake.Edit{StartLine: 6, StartChar: 1, EndLine: 6, EndChar: 1, Text: " // typed"}); err != nil {
				t.Error(err)
			}
			return "Allow"
		}
	})
	path = filepath.Join(root, "a.go")
	openWithUnsaved(t, ctx, ed, path)
	editFailed(t, askTurn(t, ctx, ed, "say new"), "changed in the editor since you read it", "view it again")
	if got, _ := ed.Buffer(path); got != strings.Replace(tabbedMine, "}\n}\n", "}\n} // typed\n", 1) {
		t.Errorf("buffer = %q", got)
	}
	if len(ed.Applied()) != 0 {
		t.Errorf("a stale edit was sent to the editor")
	}
	stillServes(t, ctx, ed)
}

// TestFaultBufferMovedDuringApply: the person types just as the edit
// arrives. The edit carries the version it was made for, so the editor
// refuses it, and the typing is kept.
func TestFaultBufferMovedDuringApply(t *testing.T) {
	ctx := ctxT(t)
	var path string
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
		o.BeforeApply = func(e *fake.Editor) {
			if err := e.Change(context.Background(), path, fake.Edit{StartLine: 6, StartChar: 1, EndLine: 6, EndChar: 1, Text: " // typed"}); err != nil {
				t.Error(err)
			}
		}
	})
	path = filepath.Join(root, "a.go")
	openWithUnsaved(t, ctx, ed, path)
	editFailed(t, askTurn(t, ctx, ed, "say new"), "a.go was not changed", "does not match the buffer's")
	if got, _ := ed.Buffer(path); got != strings.Replace(tabbedMine, "}\n}\n", "}\n} // typed\n", 1) {
		t.Errorf("buffer = %q", got)
	}
	stillServes(t, ctx, ed)
}

// TestFaultFileChangedOnDiskAfterRead: a file not open in the editor
// changes on disk after the agent read it (while the person is asked):
// new content and mtime, the same size with the old mtime put back, or
// only a new mtime. The edit is refused and the disk keeps the change.
func TestFaultFileChangedOnDiskAfterRead(t *testing.T) {
	other := strings.Replace(tabbed, "old", "OLD", 1)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
		want   string
	}{
		{"content and mtime", func(t *testing.T, path string) {
			write(t, path, other+"// more\n")
			touch(t, path, time.Now().Add(time.Minute))
		}, other + "// more\n"},
		{"same size, mtime put back", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			write(t, path, other)
			touch(t, path, fi.ModTime())
		}, other},
		{"only mtime", func(t *testing.T, path string) { touch(t, path, time.Now().Add(time.Minute)) }, tabbed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			var path string
			ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
				o.Answer = func(string, []string) string {
					tc.change(t, path)
					return "Allow"
				}
			})
			path = filepath.Join(root, "a.go")
			editFailed(t, askTurn(t, ctx, ed, "say new"), "changed on disk since you read it", "view it again")
			disk(t, path, tc.want)
			noTempFiles(t, root)
			stillServes(t, ctx, ed)
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func touch(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestFaultDisconnectMidAsk: the editor goes away while the person is
// asked. The server stops (exit code 1, no shutdown) and writes nothing.
func TestFaultDisconnectMidAsk(t *testing.T) {
	ctx := ctxT(t)
	var ed *fake.Editor
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
		o.Answer = func(string, []string) string {
			ed.Close()
			return "Allow"
		}
	})
	if _, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"}); err != nil {
		t.Fatal(err)
	}
	if code, err := ed.ExitCode(ctx); err != nil || code != 1 {
		t.Fatalf("server exit %d %v", code, err)
	}
	disk(t, filepath.Join(root, "a.go"), tabbed)
	noTempFiles(t, root)
}

// TestFaultDisconnectMidApplyEdit: the editor crashes while the edit is
// on its way. The server stops, the file on disk is untouched and no
// temporary file is left.
func TestFaultDisconnectMidApplyEdit(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, faultScript), func(o *fake.Options) {
		o.AnswerApplyEdit = func(_ context.Context, e *fake.Editor, _ json.RawMessage) (any, error) {
			e.Close()
			return nil, jsonrpc2.ErrIdleTimeout
		}
	})
	path := filepath.Join(root, "a.go")
	openWithUnsaved(t, ctx, ed, path)
	if _, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"}); err != nil {
		t.Fatal(err)
	}
	if code, err := ed.ExitCode(ctx); err != nil || code != 1 {
		t.Fatalf("server exit %d %v", code, err)
	}
	disk(t, path, tabbed)
	noTempFiles(t, root)
}
