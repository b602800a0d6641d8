package acp

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/app"
)

// wait bounds every wait of these tests.
const wait = 20 * time.Second

// testApp is a composition root with a history store in a temp folder and
// the provider prov for every session.
func testApp(t *testing.T, prov func() agent.Provider) *app.App {
	t.Helper()
	return app.New(app.Options{
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		DataDir: t.TempDir(), StateDir: t.TempDir(), ModelFlag: "replay:test",
		Getenv:      func(string) string { return "" },
		NewProvider: func(string, string) (agent.Provider, error) { return prov(), nil },
	})
}

// script is a provider playing a replay script given as JSON.
func script(t *testing.T, js string) func() agent.Provider {
	t.Helper()
	return func() agent.Provider {
		p, err := replay.Parse("replay:test", []byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// workspace makes a folder with files (relative name → text).
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// serve runs Serve on a pipe pair; the returned writer is the client's
// side of stdin, the reader the client's side of stdout. Closing the
// writer ends the connection; the test waits for Serve to return.
func serve(t *testing.T, a *app.App) (io.WriteCloser, io.Reader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := Serve(context.Background(), inR, outW, Options{App: a, Version: "test", FileTimeout: 2 * time.Second}); err != nil {
			t.Errorf("Serve: %v", err)
		}
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let the last writes through
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("Serve did not return after stdin closed")
		}
	})
	return inW, outR
}

// lines reads the agent's output lines into a channel.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// next returns the next output line that contains want.
func next(t *testing.T, ch <-chan string, want string) string {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("the agent closed its output before a line with %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %q in time", want)
		}
	}
}

// fakeEditor is an ACP client: buffers answer fs/read_text_file (disk
// otherwise), writes are recorded, permission requests go to onAsk.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []sdk.WriteTextFileRequest
	updates []sdk.SessionNotification
	// readHook, when set, may change a read's answer (or fail it).
	readHook func(path string, n int) (string, error)
	onAsk    func(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	// onElicit answers elicitation/create (a client that declares
	// elicitation.form); nil answers method not found.
	onElicit func(r sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
	elicits  []sdk.UnstableCreateElicitationRequest
	// terms, when set, runs terminal/* for real (a client that declares
	// the terminal capability); nil answers method not found.
	terms   *fakeTerminals
	changed chan struct{}
}

func (e *fakeEditor) UnstableCreateElicitation(_ context.Context, r sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	e.mu.Lock()
	e.elicits = append(e.elicits, r)
	h := e.onElicit
	e.mu.Unlock()
	if h == nil {
		return sdk.UnstableCreateElicitationResponse{}, sdk.NewMethodNotFound("elicitation/create")
	}
	return h(r), nil
}

func newFakeEditor() *fakeEditor {
	return &fakeEditor{buffers: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (e *fakeEditor) poke() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// until waits for cond (checked under the lock) to hold.
func (e *fakeEditor) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(wait)
	for {
		e.mu.Lock()
		ok := cond()
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-e.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (e *fakeEditor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.poke()
	defer e.mu.Unlock()
	e.reads = append(e.reads, p.Path)
	if e.readHook != nil {
		text, err := e.readHook(p.Path, len(e.reads))
		return sdk.ReadTextFileResponse{Content: text}, err
	}
	if text, ok := e.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: codeNotFound, Message: "no such file"}
	}
	return sdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (e *fakeEditor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.poke()
	defer e.mu.Unlock()
	e.writes = append(e.writes, p)
	e.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (e *fakeEditor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	defer e.poke()
	if e.onAsk == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return e.onAsk(ctx, p)
}

func (e *fakeEditor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	e.poke()
	return nil
}

func (e *fakeEditor) CreateTerminal(ctx context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if e.terms == nil {
		return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
	}
	defer e.poke()
	return e.terms.create(r)
}

func (e *fakeEditor) KillTerminal(_ context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if e.terms == nil {
		return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
	}
	defer e.poke()
	return sdk.KillTerminalResponse{}, e.terms.kill(r.TerminalId)
}

func (e *fakeEditor) TerminalOutput(_ context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if e.terms == nil {
		return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
	}
	return e.terms.output(r.TerminalId)
}

func (e *fakeEditor) ReleaseTerminal(_ context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if e.terms == nil {
		return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
	}
	defer e.poke()
	return sdk.ReleaseTerminalResponse{}, e.terms.release(r.TerminalId)
}

func (e *fakeEditor) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if e.terms == nil {
		return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
	}
	return e.terms.wait(ctx, r.TerminalId)
}

// connect serves a and connects the fake editor to it with the SDK's
// client side, initialized with the given file-system capabilities.
func connect(t *testing.T, a *app.App, ed *fakeEditor, fs sdk.FileSystemCapabilities) *sdk.ClientSideConnection {
	t.Helper()
	return connectCaps(t, a, ed, sdk.ClientCapabilities{Fs: fs})
}

// connectCaps is connect with the client's whole capabilities.
func connectCaps(t *testing.T, a *app.App, ed *fakeEditor, caps sdk.ClientCapabilities) *sdk.ClientSideConnection {
	t.Helper()
	in, out := serve(t, a)
	c := sdk.NewClientSideConnection(ed, in, out)
	c.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// newSession opens a session on root.
func newSession(t *testing.T, c *sdk.ClientSideConnection, root string) sdk.SessionId {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return r.SessionId
}

// prompt sends a text prompt and waits for its response.
func prompt(c *sdk.ClientSideConnection, id sdk.SessionId, blocks ...sdk.ContentBlock) (sdk.PromptResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return c.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: blocks})
}

// codeOf is a JSON-RPC error's code (0 for another error).
func codeOf(err error) int {
	if re, ok := err.(*sdk.RequestError); ok {
		return re.Code
	}
	return 0
}
