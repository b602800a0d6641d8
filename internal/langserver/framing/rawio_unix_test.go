//go:build unix

package framing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"
)

// pipeConn is a connection over two os.Pipe files (non-blocking, as
// package proc's are), exposing their descriptors as proc.Proc does.
type pipeConn struct{ r, w *os.File }

func (p pipeConn) Read(b []byte) (int, error)          { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error)         { return p.w.Write(b) }
func (p pipeConn) Close() error                        { return p.r.Close() }
func (p pipeConn) ReadConn() (syscall.RawConn, error)  { return p.r.SyscallConn() }
func (p pipeConn) WriteConn() (syscall.RawConn, error) { return p.w.SyscallConn() }

// pipePeer is the other side: it writes what the Stream reads and reads
// what it writes.
type pipePeer struct{ toStream, fromStream *os.File }

func newPipeStream(t *testing.T) (*Stream, pipePeer) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := New(pipeConn{r: inR, w: outW}, Options{})
	if s.try == nil {
		t.Fatal("a Stream over non-blocking pipes does not try its writes from the caller")
	}
	t.Cleanup(func() { s.Close(); outW.Close(); inW.Close(); outR.Close() })
	return s, pipePeer{toStream: inW, fromStream: outR}
}

func note(i int, pad int) *jsonrpc2.Notification {
	n, _ := jsonrpc2.NewNotification("n", map[string]any{"i": i, "pad": strings.Repeat("x", pad)})
	return n
}

// readNotes reads n notifications from r and checks they are 0…n-1 in
// order.
func readNotes(t *testing.T, r io.Reader, n int) {
	t.Helper()
	peer := New(struct {
		io.Reader
		io.Writer
		io.Closer
	}{r, io.Discard, io.NopCloser(nil)}, Options{})
	for i := range n {
		msg, _, err := peer.Read(context.Background())
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		want := fmt.Sprintf(`{"i":%d,`, i)
		if got := string(msg.(*jsonrpc2.Notification).Params()); !strings.HasPrefix(got, want) {
			t.Fatalf("message %d is %.40s…, want %s…", i, got, want)
		}
	}
}

// TestWritesNeverBlockOnAFullPipe: a peer that reads nothing while
// several times the pipe's capacity is written (from several goroutines)
// never holds up a writer, and once it reads it gets every frame whole
// and in each writer's order — the frames the pipe did not take, or took
// in part, went on through the writer.
func TestWritesNeverBlockOnAFullPipe(t *testing.T) {
	s, peer := newPipeStream(t)
	const writers, each = 4, 100
	done := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					n, _ := jsonrpc2.NewNotification("n", map[string]any{"w": w, "i": i, "pad": strings.Repeat("y", 3000)})
					if _, err := s.Write(context.Background(), n); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writing 1.2 MB to a pipe nobody reads blocked a writer")
	}
	r := New(struct {
		io.Reader
		io.Writer
		io.Closer
	}{peer.fromStream, io.Discard, io.NopCloser(nil)}, Options{})
	next := make([]int, writers)
	for range writers * each {
		msg, _, err := r.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ W, I int }
		if err := json.Unmarshal(msg.(*jsonrpc2.Notification).Params(), &p); err != nil {
			t.Fatal(err)
		}
		if p.I != next[p.W] {
			t.Fatalf("writer %d's message %d arrived where %d was due", p.W, p.I, next[p.W])
		}
		next[p.W]++
	}
}

// TestHeldWritesGoOutTogether: what is written during a Hold reaches the
// peer only at Release, in order, in one write.
func TestHeldWritesGoOutTogether(t *testing.T) {
	s, peer := newPipeStream(t)
	s.Hold()
	for i := range 5 {
		if _, err := s.Write(context.Background(), note(i, 10)); err != nil {
			t.Fatal(err)
		}
	}
	fd := int(peer.fromStream.Fd()) // Fd makes it blocking: once
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	if n, err := unix.Read(fd, buf); n > 0 || err != unix.EAGAIN {
		t.Fatalf("held frames reached the peer before Release: %d bytes, %v", n, err)
	}
	s.Release()
	var n int
	var err error
	for range 100 {
		if n, err = unix.Read(fd, buf); err != unix.EAGAIN {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(buf[:n], []byte("Content-Length")); got != 5 {
		t.Fatalf("the first read after Release got %d of the 5 held frames: %q", got, buf[:n])
	}
	readNotes(t, bytes.NewReader(buf[:n]), 5)
}

// TestAhead: a whole frame already buffered is ahead; a header alone, a
// part of a body or nothing is not.
func TestAhead(t *testing.T) {
	for _, tc := range []struct {
		name, buffered string
		want           bool
	}{
		{"nothing", "", false},
		{"whole frame", frame(`{"jsonrpc":"2.0","method":"a"}`), true},
		{"two frames", frame(`{}`) + frame(`{}`), true},
		{"header only", "Content-Length: 30\r\n\r\n", false},
		{"part of the body", "Content-Length: 30\r\n\r\n{\"jsonrpc\"", false},
		{"half a header", "Content-Len", false},
		{"other header first", "Content-Type: x\r\nContent-Length: 2\r\n\r\n{}", true},
		{"bad length", "Content-Length: x\r\n\r\n{}", false},
		// Frames ReadBody skips, after which it would wait for more: a
		// relay holding its writes must not count them as ahead.
		{"zero length", "Content-Length: 0\r\n\r\n", false},
		{"a line without a colon", "Content-Length: 2\r\ngarbage\r\n\r\n{}", false},
		{"garbage before the header", "garbage\r\nContent-Length: 2\r\n\r\n{}", false},
		{"case of the header name", "content-length: 2\r\n\r\n{}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inW.Close()
			s := New(pipeConn{r: inR, w: inW}, Options{})
			defer s.Close()
			first := frame(`{"jsonrpc":"2.0","method":"first"}`)
			if _, err := inW.WriteString(first + tc.buffered); err != nil {
				t.Fatal(err)
			}
			// The first frame is read with whatever followed it in the
			// same read.
			if _, _, err := s.ReadBody(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := s.Ahead(); got != tc.want {
				t.Fatalf("Ahead() = %v with %q buffered", got, tc.buffered)
			}
		})
	}
}

// TestOpenStdio: pipes given as blocking stdin and stdout are read and
// written without blocking, a read waiting on stdin returns when the
// connection closes, and Restore puts the blocking mode back.
func TestOpenStdio(t *testing.T) {
	blockingPipe := func() (r, w *os.File) {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	}
	inR, inW := blockingPipe()
	outR, outW := blockingPipe()
	defer inW.Close()
	defer outR.Close()
	nonblocking := func(f *os.File) bool {
		fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fl&unix.O_NONBLOCK != 0
	}
	conn := OpenStdio(inR, outW)
	if !nonblocking(inR) || !nonblocking(outW) {
		t.Fatal("OpenStdio left a pipe in blocking mode")
	}
	s := New(conn, Options{})
	if s.try == nil {
		t.Fatal("a Stream over OpenStdio's pipes does not try its writes from the caller")
	}
	if _, err := s.Write(context.Background(), note(0, 10)); err != nil {
		t.Fatal(err)
	}
	readNotes(t, bufio.NewReader(outR), 1)
	read := make(chan error, 1)
	go func() {
		_, _, err := s.Read(context.Background())
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the read wait on the empty pipe
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if err == nil {
			t.Fatal("a read of a closed stdin returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read waiting on stdin did not return when the connection closed")
	}
	conn.Restore()
	if nonblocking(inR) || nonblocking(outW) {
		t.Fatal("Restore left a pipe in non-blocking mode")
	}
}

// TestOpenStdioLeavesFilesAlone: a file (or a terminal) is used as it is.
func TestOpenStdioLeavesFilesAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	conn := OpenStdio(f, f)
	defer conn.Restore()
	if conn.in != f || conn.out != f {
		t.Fatal("OpenStdio replaced a regular file")
	}
	if fl, _ := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0); fl&unix.O_NONBLOCK != 0 {
		t.Fatal("OpenStdio made a regular file non-blocking")
	}
}
