package framing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// pipeEnd is one side of a Stream under fuzzing: it reads fixed input and
// collects what the Stream writes.
type pipeEnd struct {
	in  io.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *pipeEnd) Read(b []byte) (int, error) { return p.in.Read(b) }
func (p *pipeEnd) Close() error               { return nil }
func (p *pipeEnd) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *pipeEnd) written() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.out.Bytes())
}

// readAll reads every message of input through a Stream with o, returning
// them, the final error, the byte count Read reported and what the Stream
// wrote back.
func readAll(input []byte, o Options) ([]jsonrpc2.Message, error, int64, []byte) {
	end := &pipeEnd{in: bytes.NewReader(input)}
	s := New(end, o)
	var msgs []jsonrpc2.Message
	var total int64
	var err error
	for {
		var m jsonrpc2.Message
		var n int64
		m, n, err = s.Read(context.Background())
		total += n
		if err != nil {
			break
		}
		msgs = append(msgs, m)
	}
	s.Close() // flushes the answers to bad frames
	return msgs, err, total, end.written()
}

// sameJSON compares two JSON texts by value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// FuzzRead feeds arbitrary bytes to the stream, as a broken editor or a
// language server printing to stdout would. Read must never panic or
// hang, must end in io.EOF or an ErrTransport, must count no more bytes
// than it was given, and must only return messages that survive a round
// trip (written by one Stream and read by another, they are the same
// message). As a server (AnswerBadFrames) everything it writes back must
// be well-formed frames of error responses.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":[{"text":"é😀"}]}}`),
		frame(`{"jsonrpc":"2.0","id":"a","result":null}`),
		frame(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`),
		frame(`{"jsonrpc":"2.0","id":7,"method":42}`) + frame(`{"jsonrpc":"2.0","method":"ok"}`),
		"stray text from a server\r\n\r\n" + frame(`{"jsonrpc":"2.0","method":"x","params":null}`),
		"}}tail" + frame(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`),
		"Content-Length: abc\r\n\r\n",
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":",
		"Content-Type: x\r\nContent-Length: 2\r\n\r\n[]",
		"\r\n\r\n\n" + frame(`[1,2]`),
		"content-length: 3\r\n\r\n{}x",
		// Frames the reader skips after a whole one (checkAhead).
		frame(`{"jsonrpc":"2.0","method":"a"}`) + "Content-Length: 0\r\n\r\n",
		frame(`{"jsonrpc":"2.0","method":"a"}`) + "Content-Length: 2\r\ngarbage\r\n\r\n{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		for _, answer := range []bool{false, true} {
			msgs, err, total, wrote := readAll(input, Options{AnswerBadFrames: answer, MaxMessageSize: 1 << 16})
			if !errors.Is(err, io.EOF) && !errors.Is(err, ErrTransport) {
				t.Fatalf("Read ended with %v, want io.EOF or ErrTransport", err)
			}
			if total > int64(len(input)) {
				t.Fatalf("Read counted %d bytes of %d", total, len(input))
			}
			checkErrorFrames(t, wrote)
			for _, m := range msgs {
				roundTrip(t, m)
			}
		}
		checkAhead(t, input)
	})
}

// onceReader serves its input in one read, then counts the reads that
// ask for more.
type onceReader struct {
	input []byte
	more  int
}

func (r *onceReader) Read(b []byte) (int, error) {
	if len(r.input) == 0 {
		r.more++
		return 0, io.EOF
	}
	n := copy(b, r.input)
	r.input = r.input[n:]
	return n, nil
}

// checkAhead: whenever Ahead says a whole frame is buffered, the next
// ReadBody returns without asking for more input (a relay holds its
// writes on Ahead's word, and must not hold them over a wait).
func checkAhead(t *testing.T, input []byte) {
	r := &onceReader{input: input}
	s := New(struct {
		io.Reader
		io.Writer
		io.Closer
	}{r, io.Discard, io.NopCloser(nil)}, Options{MaxMessageSize: 1 << 16})
	defer s.Close()
	for {
		ahead, before := s.Ahead(), r.more
		_, _, err := s.ReadBody(context.Background())
		if ahead && r.more > before {
			t.Fatalf("Ahead said a whole frame was buffered, but ReadBody read on (err %v)", err)
		}
		if err != nil {
			return
		}
	}
}

// checkErrorFrames reads what a Stream wrote back: well-formed frames,
// each an error response.
func checkErrorFrames(t *testing.T, wrote []byte) {
	t.Helper()
	back, err, _, _ := readAll(wrote, Options{})
	if !errors.Is(err, io.EOF) {
		t.Fatalf("the answers to bad input are not well-formed frames (%v):\n%q", err, wrote)
	}
	for _, m := range back {
		r, ok := m.(*jsonrpc2.Response)
		if !ok || r.Err() == nil {
			t.Fatalf("an answer to bad input is %#v, not an error response", m)
		}
	}
}

// roundTrip writes m with one Stream and reads it with another.
func roundTrip(t *testing.T, m jsonrpc2.Message) {
	t.Helper()
	end := &pipeEnd{in: bytes.NewReader(nil)}
	w := New(end, Options{})
	if _, err := w.Write(context.Background(), m); err != nil {
		t.Fatalf("write %#v: %v", m, err)
	}
	w.Close()
	back, err, _, _ := readAll(end.written(), Options{})
	if !errors.Is(err, io.EOF) || len(back) != 1 {
		t.Fatalf("message %#v written as %q reads back as %d messages (%v)", m, end.written(), len(back), err)
	}
	got := back[0]
	if reflect.TypeOf(got) != reflect.TypeOf(m) {
		t.Fatalf("%T read back as %T", m, got)
	}
	switch want := m.(type) {
	case *jsonrpc2.Call:
		g := got.(*jsonrpc2.Call)
		if g.ID() != want.ID() || g.Method() != want.Method() || !sameParams(g.Params(), want.Params()) {
			t.Fatalf("call %v %q %s read back as %v %q %s", want.ID(), want.Method(), want.Params(), g.ID(), g.Method(), g.Params())
		}
	case *jsonrpc2.Notification:
		g := got.(*jsonrpc2.Notification)
		if g.Method() != want.Method() || !sameParams(g.Params(), want.Params()) {
			t.Fatalf("notification %q %s read back as %q %s", want.Method(), want.Params(), g.Method(), g.Params())
		}
	case *jsonrpc2.Response:
		g := got.(*jsonrpc2.Response)
		if g.ID() != want.ID() || !sameJSON(g.Result(), want.Result()) || (g.Err() == nil) != (want.Err() == nil) {
			t.Fatalf("response %v %s %v read back as %v %s %v", want.ID(), want.Result(), want.Err(), g.ID(), g.Result(), g.Err())
		}
	}
}

// sameParams compares params, null and absent being the same (appendMessage
// leaves null params out).
func sameParams(a, b json.RawMessage) bool {
	null := func(p json.RawMessage) bool { p = bytes.TrimSpace(p); return len(p) == 0 || string(p) == "null" }
	if null(a) || null(b) {
		return null(a) && null(b)
	}
	return sameJSON(a, b)
}
