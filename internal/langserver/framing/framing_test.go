package framing

import (
	"bufio"
	"context"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// pair returns a Stream on one end of a pipe and a raw reader/writer on
// the other; the Stream reads in the background into msgs.
func pair(t *testing.T, o Options) (*Stream, net.Conn, *bufio.Reader, chan jsonrpc2.Message) {
	t.Helper()
	a, b := net.Pipe()
	s := New(a, o)
	t.Cleanup(func() { s.Close(); b.Close() })
	msgs := make(chan jsonrpc2.Message, 10)
	go func() {
		for {
			m, _, err := s.Read(context.Background())
			if err != nil {
				close(msgs)
				return
			}
			msgs <- m
		}
	}()
	return s, b, bufio.NewReader(b), msgs
}

func readFrame(t *testing.T, c net.Conn, r *bufio.Reader) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if line == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestNullParamsAreOmitted(t *testing.T) {
	s, c, r, _ := pair(t, Options{})
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "shutdown", nil)
	if _, err := s.Write(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got := readFrame(t, c, r); got != `{"jsonrpc":"2.0","id":1,"method":"shutdown"}` {
		t.Errorf("shutdown = %s", got)
	}
	note, _ := jsonrpc2.NewNotification("x", map[string]int{"a": 1})
	_, _ = s.Write(context.Background(), note)
	if got := readFrame(t, c, r); got != `{"jsonrpc":"2.0","method":"x","params":{"a":1}}` {
		t.Errorf("notification = %s", got)
	}
}

// A server answers every bad frame; a client answers only broken requests
// that carry an id. Both keep reading.
func TestBadInput(t *testing.T) {
	for _, answer := range []bool{true, false} {
		_, c, r, msgs := pair(t, Options{AnswerBadFrames: answer})
		go func() {
			_, _ = io.WriteString(c, "stray text from a server\r\n\r\n")
			_, _ = io.WriteString(c, frame(`{"jsonrpc":"2.0","id":7,"method":42}`))
			_, _ = io.WriteString(c, frame(`{"jsonrpc":"2.0","method":"ok"}`))
		}()
		if answer {
			if got := readFrame(t, c, r); !strings.Contains(got, `"id":null`) || !strings.Contains(got, "-32700") {
				t.Errorf("garbage answered with %s", got)
			}
		}
		if got := readFrame(t, c, r); !strings.Contains(got, `"id":7`) || !strings.Contains(got, "-32600") {
			t.Errorf("broken request answered with %s", got)
		}
		select {
		case m := <-msgs:
			if n, ok := m.(*jsonrpc2.Notification); !ok || n.Method() != "ok" {
				t.Errorf("next message = %#v", m)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the stream stopped reading after bad input")
		}
	}
}

// repeat reads n copies of byte c.
type repeat struct {
	c byte
	n int64
}

func (r *repeat) Read(b []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := int64(len(b))
	k = min(k, r.n)
	for i := range b[:k] {
		b[i] = r.c
	}
	r.n -= k
	return int(k), nil
}

// A server that floods stdout with one endless line (no newline): the
// stream holds none of it, reports it, and reads the message glued to its
// end.
func TestFloodWithoutNewlineIsNotHeld(t *testing.T) {
	const flood = 64 << 20
	in := io.MultiReader(&repeat{c: 'x', n: flood}, strings.NewReader(frame(`{"jsonrpc":"2.0","method":"ok"}`)))
	end := &pipeEnd{in: in}
	s := New(end, Options{AnswerBadFrames: true})
	defer s.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, n, err := s.Read(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if note, ok := m.(*jsonrpc2.Notification); !ok || note.Method() != "ok" {
		t.Fatalf("read %#v, want the ok notification", m)
	}
	if want := int64(flood + len(frame(`{"jsonrpc":"2.0","method":"ok"}`))); n != want {
		t.Errorf("Read counted %d bytes, want %d", n, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading a %d MiB line allocated %d MiB: the line was held", flood>>20, got>>20)
	}
	s.Close()
	if w := string(end.written()); !strings.Contains(w, "not a message") || !strings.Contains(w, "xxx") {
		t.Errorf("the flood was not reported: %q", w)
	}
}

// A header glued to the end of an overlong line is found wherever the
// read buffer splits it.
func TestHeaderGluedToOverlongLine(t *testing.T) {
	msg := frame(`{"jsonrpc":"2.0","method":"ok"}`)
	for _, garbage := range []int{64<<10 - 5, 64 << 10, 64<<10 + 3, 200 << 10} {
		end := &pipeEnd{in: io.MultiReader(&repeat{c: 'x', n: int64(garbage)}, strings.NewReader(msg))}
		s := New(end, Options{})
		m, _, err := s.Read(context.Background())
		if note, ok := m.(*jsonrpc2.Notification); err != nil || !ok || note.Method() != "ok" {
			t.Errorf("%d bytes of garbage: read %#v, %v", garbage, m, err)
		}
		s.Close()
	}
}

// TestWritesGatheredInOrder: messages queued faster than the peer reads
// (written in gathered batches) all arrive, whole and in order, whether
// written by Write, WriteResponse or WriteRaw, and those queued before
// Close are flushed by it.
func TestWritesGatheredInOrder(t *testing.T) {
	a, b := net.Pipe()
	s := New(a, Options{})
	defer b.Close()
	const n = 3000
	big := strings.Repeat("x", writeBufferSize)
	go func() {
		ctx := context.Background()
		for i := range n {
			id := jsonrpc2.NewNumberID(int32(i))
			switch i % 3 {
			case 0:
				c, _ := jsonrpc2.NewCall(id, "m", map[string]int{"i": i})
				_, _ = s.Write(ctx, c)
			case 1:
				text := "small"
				if i%300 == 1 {
					text = big // larger than the write buffer
				}
				_ = s.WriteResponse(ctx, id, []byte(strconv.Quote(text)), nil)
			case 2:
				r, ok := Scan([]byte(`{"id":0,"method":"raw","params":[` + strconv.Itoa(i) + `]}`))
				if !ok {
					panic("not scanned")
				}
				_ = s.WriteRaw(r, id)
			}
		}
		s.Close()
	}()
	in := New(b, Options{MaxMessageSize: 1 << 20})
	for i := range n {
		msg, _, err := in.Read(context.Background())
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		var id jsonrpc2.ID
		switch m := msg.(type) {
		case *jsonrpc2.Call:
			id = m.ID()
			want := `{"i":` + strconv.Itoa(i) + `}`
			if i%3 == 2 {
				want = `[` + strconv.Itoa(i) + `]`
			}
			if string(m.Params()) != want {
				t.Fatalf("message %d has params %s", i, m.Params())
			}
		case *jsonrpc2.Response:
			id = m.ID()
			if i%300 == 1 && len(m.Result()) != len(big)+2 {
				t.Fatalf("message %d has a result of %d bytes", i, len(m.Result()))
			}
		}
		if id != jsonrpc2.NewNumberID(int32(i)) {
			t.Fatalf("message %d came as %#v", i, msg)
		}
	}
}
