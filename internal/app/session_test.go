package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// newApp makes the composition root against a loopback model server, with
// only the view tool (so the window is spent on the conversation).
func newApp(t *testing.T, srvURL string, mod ...func(*app.Options)) (*app.App, string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	o := app.Options{
		Config: config.Config{
			Model:     "openai:test-model",
			Providers: map[string]config.Provider{"openai": {BaseURL: srvURL, APIKeyEnv: "TEST_KEY"}},
		},
		DataDir: t.TempDir(), StateDir: t.TempDir(), ModeFlag: "auto",
		Getenv: func(k string) string {
			if k == "TEST_KEY" {
				return "k"
			}
			return ""
		},
		Tools: func(ws *tools.Workspace) []tools.Tool { return []tools.Tool{tools.NewViewTool(ws)} },
	}
	for _, m := range mod {
		m(&o)
	}
	return app.New(o), root
}

// writeFactFile writes files/NAME.txt: its "FILE NAME secret=S" line and
// filler lines that take room in the context window.
func writeFactFile(t *testing.T, root, name, secret string, filler int) {
	t.Helper()
	body := "FILE " + name + " secret=" + secret + "\n" + strings.Repeat("filler line that takes room in the context window\n", filler)
	p := filepath.Join(root, "files", name+".txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

var factRE = regexp.MustCompile(`FILE (f\d\d) secret=(\S+)`)

// facts finds what the model has been shown: every "FILE fNN secret=X"
// line, in tool results or in a summary.
func facts(text string) map[string]string {
	out := map[string]string{}
	for _, m := range factRE.FindAllStringSubmatch(text, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func factList(f map[string]string) string {
	var keys []string
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, "FILE "+k+" secret="+f[k])
	}
	return strings.Join(parts, "\n")
}

// TestCompactionKeepsTheTaskGoing: a 25-file reading task on a model whose
// window (enforced by the server with OpenAI's real error) holds about a
// third of the files. The session compacts — learning the window from the
// first "too long" answer — and the model, which only knows what the
// conversation or its summary shows, gives the right answer.
func TestCompactionKeepsTheTaskGoing(t *testing.T) {
	const files = 25
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You compact a coding session") {
			return openaitest.Reply{Parts: []string{"The user wants every secret of files/f01..f25.txt. Learned so far:\n" + factList(facts(r.Text()))}}
		}
		known := facts(r.Text())
		for i := 1; i <= files; i++ {
			name := fmt.Sprintf("f%02d", i)
			if _, ok := known[name]; !ok {
				return openaitest.Reply{Parts: []string{"Reading " + name + "."},
					ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("call_%d_%d", i, len(r.Messages)), "view", map[string]string{"file_path": "files/" + name + ".txt"})}}
			}
		}
		return openaitest.Reply{Parts: []string{"All secrets:\n", factList(known)}}
	})
	defer srv.Close()
	srv.Window = 9000
	a, root := newApp(t, srv.URL)
	want := map[string]string{}
	for i := 1; i <= files; i++ {
		name := fmt.Sprintf("f%02d", i)
		want[name] = fmt.Sprintf("word-%d-%x", i, i*7919)
		writeFactFile(t, root, name, want[name], 60)
	}
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless", MaxSteps: 200})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var compactions []string
	turn, err := sess.Start(context.Background(), "Read files/f01.txt to files/f25.txt and tell me every secret.", func(e agent.Event) {
		if e.Type == agent.EventCompaction {
			mu.Lock()
			compactions = append(compactions, e.Message)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	res := turn.Wait()
	if res.Reason != agent.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", res.Reason, res.Err)
	}
	if got := facts(res.Text); len(got) != files || factList(got) != factList(want) {
		t.Errorf("final answer has %d of %d secrets right:\n%s", len(got), files, res.Text)
	}
	if len(compactions) == 0 {
		t.Error("the conversation never compacted")
	}
	if n := srv.OverWindow(); n > 1 {
		t.Errorf("%d requests were over the window, want at most 1 (the one that teaches it)", n)
	}
	largest := 0
	for _, r := range srv.Requests() {
		largest = max(largest, r.Tokens)
	}
	t.Logf("%d requests, largest %d tokens (window %d), %d over; compactions: %q; usage %+v",
		len(srv.Requests()), largest, srv.Window, srv.OverWindow(), compactions, res.Usage)
}

// TestCompactionWithAKnownWindow: with the window in the settings, no
// request is ever over it.
func TestCompactionWithAKnownWindow(t *testing.T) {
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if strings.Contains(r.Messages[0].Content, "You compact a coding session") {
			return openaitest.Reply{Parts: []string{"Summary: " + factList(facts(r.Text()))}}
		}
		if n := len(facts(r.Text())); n < 12 {
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("c%d", len(r.Messages)), "view", map[string]string{"file_path": fmt.Sprintf("f%02d.txt", n+1)})}}
		}
		return openaitest.Reply{Parts: []string{"done: " + factList(facts(r.Text()))}}
	})
	defer srv.Close()
	srv.Window = 6000
	a, root := newApp(t, srv.URL, func(o *app.Options) {
		p := o.Config.Providers["openai"]
		p.ContextWindow = 6000
		o.Config.Providers["openai"] = p
	})
	for i := 1; i <= 12; i++ {
		body := fmt.Sprintf("FILE f%02d secret=s%d\n", i, i) + strings.Repeat("x", 2500) + "\n"
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644)
	}
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env.Close()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless", MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	turn, _ := sess.Start(context.Background(), "read f01..f12", func(agent.Event) {})
	res := turn.Wait()
	if res.Reason != agent.ReasonCompleted || len(facts(res.Text)) != 12 {
		t.Fatalf("turn: %s %v: %s", res.Reason, res.Err, res.Text)
	}
	if n := srv.OverWindow(); n != 0 {
		t.Errorf("%d requests over a window the settings named", n)
	}
}

// TestStreamingReachesTheFrontEndMidStep: the first text delta reaches the
// front-end while the server still holds the rest of the answer back — the
// server sends its last chunk only after the delta arrived (or gives up
// after 5 s, failing the test).
func TestStreamingReachesTheFrontEndMidStep(t *testing.T) {
	got := make(chan time.Time, 8)
	var sentFirst, sentLast time.Time
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Parts: []string{"Hello ", "there, ", "world."}, BeforePart: func(i int) {
			switch i {
			case 0:
				sentFirst = time.Now()
			case 2:
				select {
				case <-got:
				case <-time.After(5 * time.Second):
				}
				sentLast = time.Now()
			}
		}}
	})
	defer srv.Close()
	a, root := newApp(t, srv.URL)
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env.Close()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	var firstDelta time.Time
	var mu sync.Mutex
	var usage *agent.Event
	turn, _ := sess.Start(context.Background(), "hi", func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Type {
		case agent.EventTextDelta:
			if firstDelta.IsZero() {
				firstDelta = time.Now()
				got <- firstDelta
			}
			deltas = append(deltas, e.Text)
		case agent.EventUsage:
			usage = &e
		}
	})
	res := turn.Wait()
	if res.Text != "Hello there, world." {
		t.Fatalf("answer %q (%v)", res.Text, res.Err)
	}
	if firstDelta.IsZero() || !firstDelta.Before(sentLast) {
		t.Errorf("first delta at %v, last chunk sent at %v: the delta did not arrive mid-step", firstDelta, sentLast)
	}
	if strings.Join(deltas, "") != res.Text {
		t.Errorf("deltas %q do not add up to the answer %q", deltas, res.Text)
	}
	if usage == nil || usage.Usage.Input == 0 || usage.Usage.Output == 0 || res.Usage.Input != usage.Usage.Input {
		t.Errorf("usage event %+v, turn usage %+v", usage, res.Usage)
	}
	t.Logf("first chunk sent → delta at the front-end: %v", firstDelta.Sub(sentFirst))
}

// TestResumeGivesTheModelItsConversation: a second environment (a new
// process, say) resumes the session by id, and the model receives the
// earlier turns.
func TestResumeGivesTheModelItsConversation(t *testing.T) {
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Parts: []string{fmt.Sprintf("seen %d messages", len(r.Messages))}}
	})
	defer srv.Close()
	dataDir := t.TempDir()
	a, root := newApp(t, srv.URL, func(o *app.Options) { o.DataDir = dataDir })
	env, _ := a.Open(app.Frontend{Roots: []string{root}})
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	turn, _ := sess.Start(context.Background(), "remember the word ZEBRA", func(agent.Event) {})
	turn.Wait()
	id := sess.ID
	env.Close()

	env2, _ := a.Open(app.Frontend{Roots: []string{root}})
	defer env2.Close()
	for _, so := range []app.SessionOptions{{Resume: id}, {Continue: true}} {
		s2, err := env2.NewSession(context.Background(), so)
		if err != nil {
			t.Fatal(err)
		}
		if s2.ID != id {
			t.Errorf("resumed %s, want %s", s2.ID, id)
		}
		turn, _ := s2.Start(context.Background(), "which word?", func(agent.Event) {})
		if res := turn.Wait(); res.Reason != agent.ReasonCompleted {
			t.Fatalf("resumed turn: %s %v", res.Reason, res.Err)
		}
		last := srv.Requests()[len(srv.Requests())-1]
		if !strings.Contains(last.Text(), "ZEBRA") {
			t.Errorf("%+v: the model did not receive the earlier turn:\n%s", so, last.Text())
		}
	}
	if _, err := env2.NewSession(context.Background(), app.SessionOptions{Resume: "s-nope"}); err == nil {
		t.Error("resuming an unknown session worked")
	}
}
