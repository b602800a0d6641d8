// Package framing is the LSP base protocol (Content-Length framing) for
// go.lsp.dev/jsonrpc2, built to survive bad input. Both sides of agentls
// use it: the editor-facing server and the client of language servers.
//
// jsonrpc2's own stream ends the connection on the first body it cannot
// decode and always writes a "params" member. This one skips a malformed
// frame, resynchronizes on the next Content-Length header and keeps
// reading; it answers a broken request that carries an id (so the peer
// does not wait forever); and it leaves out null params, which JSON-RPC
// allows and some servers (tsgo) require. A write never waits on the
// peer (two peers each blocked writing to the other would deadlock): on a
// non-blocking pipe (rawio_unix.go; agentls serve's own stdio through
// OpenStdio) the caller writes the frame at once when nothing is queued
// and the pipe takes it, and what the pipe does not take goes to the
// writer goroutine, which writes everything queued together in one write;
// elsewhere every frame goes through the writer.
//
// A relay (agentls serve --wrap) need not decode what it passes on:
// ReadBody returns a body undecoded, Scan reads its id and method and
// validates it, and WriteRaw writes it on under another id with its
// params or result as they came; Decode is the full decode for the rest.
// While more messages are read already (Ahead), the relay holds its writes
// (Hold, Release), so that a burst goes on in one write.
package framing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/textclip"

	segjson "github.com/segmentio/encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// ErrTransport marks a failure to talk to the peer at all (its pipe is
// closed or broken), as opposed to an error the peer answered.
var ErrTransport = errors.New("connection closed")

const contentLength = "Content-Length:"

// Options configure a Stream.
type Options struct {
	// MaxMessageSize bounds one incoming message; a larger one is skipped.
	MaxMessageSize int64
	// AnswerBadFrames answers every malformed frame with a JSON-RPC error
	// (id null when it has none), as a server owes its client. Without it
	// only broken requests that carry an id are answered.
	AnswerBadFrames bool
	// Peer names the other side in log lines ("client", "gopls").
	Peer string
	// Log receives warnings about bad input; nil discards them.
	Log *slog.Logger
}

// Stream is a jsonrpc2.Stream over a pipe or connection.
type Stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	o   Options
	log *slog.Logger

	// try writes a frame without blocking (nil where the connection
	// cannot): a message written while nothing is queued goes out from
	// the caller at once instead of waking the writer (rawio_unix.go).
	try func([]byte) (int, error)

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte // frames (header and body) in order
	busy    bool     // a frame is being written: the queue waits behind it
	holds   int      // Hold calls not yet released: the queue waits for them
	closed  bool
	werr    error
	stopped chan struct{}
}

var _ jsonrpc2.Stream = (*Stream)(nil)

// New frames messages over rwc.
func New(rwc io.ReadWriteCloser, o Options) *Stream {
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = 32 << 20
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Peer != "" {
		log = log.With("peer", o.Peer)
	}
	s := &Stream{in: bufio.NewReaderSize(reader(rwc), 64<<10), out: rwc, c: rwc, o: o, log: log, try: tryWriter(rwc), stopped: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.writer()
	return s
}

// writeBufferSize is the size of the buffer the writer gathers frames in.
const writeBufferSize = 64 << 10

// writer writes queued frames in order until the stream closes. It takes
// every frame queued at once and writes them through a buffer, flushed
// whenever the queue is empty: frames queued together go out in one
// write, and none waits for a later one.
func (s *Stream) writer() {
	defer close(s.stopped)
	w := bufio.NewWriterSize(s.out, writeBufferSize)
	var batch [][]byte
	s.mu.Lock()
	for {
		for s.busy || ((len(s.queue) == 0 || s.holds > 0) && !s.closed) {
			s.cond.Wait()
		}
		if len(s.queue) == 0 || s.werr != nil {
			s.mu.Unlock()
			return
		}
		s.busy = true
		for len(s.queue) > 0 {
			batch, s.queue = s.queue, batch[:0]
			s.mu.Unlock()
			for i, frame := range batch {
				if _, err := w.Write(frame); err != nil {
					s.failWrite(err)
					return
				}
				batch[i] = nil
			}
			s.mu.Lock()
		}
		s.mu.Unlock()
		err := w.Flush()
		if err != nil {
			s.failWrite(err)
			return
		}
		s.mu.Lock()
		s.busy = false
	}
}

// failWrite ends the stream after a failed write.
func (s *Stream) failWrite(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr == nil {
		s.werr = fmt.Errorf("%w: write: %v", ErrTransport, err)
	}
	s.queue, s.closed, s.busy = nil, true, false
	s.cond.Broadcast()
}

// Read returns the next well-formed message, answering or skipping the
// malformed ones.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		body, n, err := s.ReadBody(ctx)
		total += n
		if err != nil {
			return nil, total, err
		}
		if msg, err := s.Decode(body); err == nil {
			return msg, total, nil
		}
	}
}

// ReadBody returns the body of the next well-framed message, undecoded
// (for Scan), skipping malformed frames as Read does. n counts every byte
// read. The body is the caller's: the Stream does not reuse it.
func (s *Stream) ReadBody(ctx context.Context) (body []byte, n int64, err error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		length, n, err := s.readHeader()
		total += n
		if err != nil {
			return nil, total, err
		}
		if length < 0 {
			continue // reported
		}
		if length > s.o.MaxMessageSize {
			m, err := io.CopyN(io.Discard, s.in, length)
			total += m
			if err != nil {
				return nil, total, fmt.Errorf("%w: skip oversized message: %v", ErrTransport, err)
			}
			s.log.Warn("skipped oversized message", "bytes", length)
			if s.o.AnswerBadFrames {
				s.reject(nil, jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is over the %d-byte limit; it was skipped", length, s.o.MaxMessageSize))
			}
			continue
		}
		body := make([]byte, length)
		m, err := io.ReadFull(s.in, body)
		total += int64(m)
		if err != nil {
			return nil, total, fmt.Errorf("%w: read message body (%d of %d bytes): %v", ErrTransport, m, length, err)
		}
		return body, total, nil
	}
}

// Decode decodes a body ReadBody returned as Read does. A body that is not
// a valid JSON-RPC message is answered or skipped as Read answers or skips
// it, and the error says why; the caller reads on.
func (s *Stream) Decode(body []byte) (jsonrpc2.Message, error) {
	msg, err := decodeMessage(body)
	if err != nil {
		s.rejectBody(body, err)
		return nil, err
	}
	return msg, nil
}

// readHeader reads one header block. It returns the content length, or -1
// when the block was malformed (reported, and the reader moved past it).
// Anything before a Content-Length header that is not a header line is
// garbage (the tail of a frame whose length was wrong, or a server
// printing to stdout): it is reported once and skipped.
func (s *Stream) readHeader() (int64, int64, error) {
	var total int64
	length := int64(-1)
	lines, garbage, problem := 0, "", ""
	for {
		line, n, err := s.readLine()
		total += n
		if err != nil {
			if err == io.EOF && total == 0 {
				return 0, total, io.EOF
			}
			return 0, total, fmt.Errorf("%w: read header: %v", ErrTransport, err)
		}
		if i := bytes.Index(line, []byte(contentLength)); i > 0 {
			garbage, line = string(line[:i]), line[i:]
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if lines == 0 && garbage == "" {
				continue // a stray blank line between messages
			}
			break
		}
		lines++
		v, isLength, ok := headerField(line)
		switch {
		case !ok:
			garbage = string(line)
		case isLength:
			if garbage != "" {
				// Garbage, then a real header: report the garbage and
				// start the message afresh at this header.
				s.badFrame(fmt.Sprintf("skipped bytes that are not a message: %q", abbreviate(garbage, 60)))
				garbage = ""
			}
			if v <= 0 {
				_, value, _ := bytes.Cut(line, []byte(":"))
				problem, length = fmt.Sprintf("bad Content-Length %q", bytes.TrimSpace(value)), -1
			} else {
				problem, length = "", v
			}
		}
	}
	switch {
	case garbage != "":
		problem = fmt.Sprintf("skipped bytes that are not a message: %q", abbreviate(garbage, 60))
	case length < 0 && problem == "":
		problem = "no Content-Length header"
	}
	if problem != "" {
		s.badFrame(problem)
		return -1, total, nil
	}
	return length, total, nil
}

// headerField reads one header line: ok is false when it is no
// "name: value" line; isLength when it is Content-Length, whose value is
// length (-1 when it is not a positive number).
func headerField(line []byte) (length int64, isLength, ok bool) {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
		return 0, false, ok
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
	if err != nil || v <= 0 {
		return -1, true, true
	}
	return v, true, true
}

// lineKeep is how much of each end of an overlong header line is kept.
const lineKeep = 80

// readLine reads one header line, a view of the read buffer until the
// next read. A line longer than the buffer (a server printing megabytes
// without a newline) is not held in memory: its first and last bytes
// stand for it, so it is still reported, and a header glued to its end is
// still found. n counts every byte read.
func (s *Stream) readLine() (line []byte, n int64, err error) {
	b, err := s.in.ReadSlice('\n')
	n = int64(len(b))
	if err != bufio.ErrBufferFull {
		return b, n, err
	}
	head := string(b[:lineKeep])
	tail := append(make([]byte, 0, 2*lineKeep), b[len(b)-lineKeep:]...)
	for err == bufio.ErrBufferFull {
		b, err = s.in.ReadSlice('\n')
		n += int64(len(b))
		tail = append(tail, b[max(0, len(b)-lineKeep):]...)
		tail = append(tail[:0], tail[max(0, len(tail)-lineKeep):]...)
	}
	return []byte(head + "…" + string(tail)), n, err
}

func (s *Stream) badFrame(problem string) {
	s.log.Warn("malformed LSP frame", "problem", problem)
	if s.o.AnswerBadFrames {
		s.reject(nil, jsonrpc2.ParseError, "malformed message: "+problem+"; each message needs a valid Content-Length header")
	}
}

// rejectBody skips a body that is not a valid JSON-RPC message. A request
// with an id gets an invalid-request error, so its sender does not wait
// forever; other bodies are answered only with AnswerBadFrames.
func (s *Stream) rejectBody(body []byte, err error) {
	s.log.Warn("skipped invalid message", "error", err, "start", abbreviate(string(body), 80))
	if !json.Valid(body) {
		if s.o.AnswerBadFrames {
			s.reject(nil, jsonrpc2.ParseError, "message body is not valid JSON; it was skipped")
		}
		return
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(body, &probe)
	hasID := validID(probe.ID)
	if !s.o.AnswerBadFrames && (!hasID || len(probe.Method) == 0) {
		return
	}
	s.reject(probe.ID, jsonrpc2.InvalidRequest, fmt.Sprintf("not a valid JSON-RPC 2.0 message: %v", err))
}

// reject queues an error response; an id that is not a valid JSON-RPC id
// becomes null.
func (s *Stream) reject(id json.RawMessage, code jsonrpc2.Code, msg string) {
	if !validID(id) {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: code, Message: msg}})
	if err := s.writeFrame(body); err != nil {
		s.log.Warn("write error response", "error", err)
	}
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || string(id) == "null" {
		return false
	}
	var n json.Number
	var str string
	return json.Unmarshal(id, &n) == nil || json.Unmarshal(id, &str) == nil
}

// Write frames and queues one message.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	buf, err := appendMessage(make([]byte, headerRoom, headerRoom+256), msg)
	if err != nil {
		return 0, err
	}
	return int64(len(buf) - headerRoom), s.queueFrame(frameAround(buf))
}

// wireMessage is any JSON-RPC message, as jsonrpc2 decodes it.
type wireMessage struct {
	Version *string          `json:"jsonrpc"`
	ID      *jsonrpc2.ID     `json:"id,omitempty"`
	Method  string           `json:"method"`
	Params  *json.RawMessage `json:"params,omitempty"`
	Result  *json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error  `json:"error,omitempty"`
}

// decodeMessage decodes a message as jsonrpc2.DecodeMessage does, whose
// decoder allocates (and clears) a 32 KiB buffer per message: passing
// requests on (agentls serve --wrap) decodes two messages per request.
// The params and result stay views of body, as with DecodeMessage's
// ZeroCopy; absent ones read as null.
func decodeMessage(body []byte) (jsonrpc2.Message, error) {
	var w wireMessage
	// What follows the message in the body is ignored, as jsonrpc2's
	// decoder ignores it.
	_, err := segjson.Parse(body, &w, segjson.ZeroCopy)
	switch {
	case err != nil:
	case w.Version != nil && *w.Version != "2.0":
		err = fmt.Errorf("invalid RPC version %v", *w.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	raw := func(r *json.RawMessage) any {
		if r == nil {
			return nil
		}
		return *r
	}
	switch {
	case w.Method == "" && w.ID == nil:
		return nil, jsonrpc2.ErrInvalidRequest
	case w.Method == "":
		var rerr error
		if w.Error != nil {
			rerr = w.Error
		}
		return jsonrpc2.NewResponse(*w.ID, raw(w.Result), rerr)
	case w.ID == nil:
		return jsonrpc2.NewNotification(w.Method, raw(w.Params))
	}
	return jsonrpc2.NewCall(*w.ID, w.Method, raw(w.Params))
}

// WriteResponse writes an answer whose result is JSON already (a
// server's, passed on), without decoding or re-encoding it: the result is
// written as it is, null when empty. An error answer is written as Write
// writes it.
func (s *Stream) WriteResponse(ctx context.Context, id jsonrpc2.ID, result json.RawMessage, err error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err != nil {
		r, merr := jsonrpc2.NewResponse(id, nil, err)
		if merr != nil {
			return merr
		}
		_, werr := s.Write(ctx, r)
		return werr
	}
	raw, merr := id.MarshalJSON()
	if merr != nil {
		return fmt.Errorf("marshal message id: %w", merr)
	}
	if len(bytes.TrimSpace(result)) == 0 {
		result = json.RawMessage("null")
	}
	buf := make([]byte, headerRoom, headerRoom+len(result)+len(raw)+40)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, raw...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, result...)
	return s.queueFrame(frameAround(append(buf, '}')))
}

// appendMessage appends a message's encoding to buf, leaving out params
// that are null: JSON-RPC allows params to be omitted but not null.
func appendMessage(buf []byte, msg jsonrpc2.Message) ([]byte, error) {
	var id *jsonrpc2.ID
	var method string
	var params []byte
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		v := m.ID()
		id, method, params = &v, m.Method(), m.Params()
	case *jsonrpc2.Notification:
		method, params = m.Method(), m.Params()
	default:
		data, err := json.Marshal(msg)
		if err != nil {
			return nil, fmt.Errorf("marshal message: %w", err)
		}
		return append(buf, data...), nil
	}
	buf = slices.Grow(buf, len(params)+len(method)+48)
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if id != nil {
		raw, err := id.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("marshal message id: %w", err)
		}
		buf = append(buf, `,"id":`...)
		buf = append(buf, raw...)
	}
	name, err := json.Marshal(method)
	if err != nil {
		return nil, fmt.Errorf("marshal method name: %w", err)
	}
	buf = append(buf, `,"method":`...)
	buf = append(buf, name...)
	if p := bytes.TrimSpace(params); len(p) > 0 && string(p) != "null" {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}'), nil
}

// WriteRaw passes on a message Scan read, under id when it is a call or a
// response: its method, params and result are written as they came, not
// re-encoded.
func (s *Stream) WriteRaw(r Raw, id jsonrpc2.ID) error {
	// The body is built after room for the header, which then goes right
	// before it: one buffer for the whole frame.
	buf, err := AppendBody(make([]byte, headerRoom, headerRoom+len(r.Params)+len(r.Result)+len(r.Method)+64), r, id)
	if err != nil {
		return fmt.Errorf("marshal message id: %w", err)
	}
	return s.queueFrame(frameAround(buf))
}

// headerRoom is the room before a body for its frame's header.
const headerRoom = 40

// frameAround puts the header before the body that follows headerRoom
// bytes in buf, and returns the frame.
func frameAround(buf []byte) []byte {
	var h [headerRoom]byte
	header := append(h[:0], "Content-Length: "...)
	header = strconv.AppendInt(header, int64(len(buf)-headerRoom), 10)
	header = append(header, "\r\n\r\n"...)
	start := headerRoom - len(header)
	copy(buf[start:], header)
	return buf[start:]
}

// writeFrame sends one message's body (queueFrame).
func (s *Stream) writeFrame(body []byte) error {
	buf := make([]byte, headerRoom, headerRoom+len(body))
	return s.queueFrame(frameAround(append(buf, body...)))
}

// queueFrame queues a frame, which the Stream owns from now on, and sends
// the queue (sendLocked) unless writes are held. It never blocks on the
// peer, and fails only once the stream is closed or a write has failed.
func (s *Stream) queueFrame(frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if s.closed {
		return ErrTransport
	}
	s.queue = append(s.queue, frame)
	s.sendLocked()
	return nil
}

// Hold keeps the frames written from now on queued until as many Release
// calls, so that a relay reading a burst of messages passes them on in one
// write. Every Hold needs its Release.
func (s *Stream) Hold() {
	s.mu.Lock()
	s.holds++
	s.mu.Unlock()
}

// Release ends a Hold and sends what it kept.
func (s *Stream) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds--
	s.sendLocked()
}

// sendLocked sends the queue unless writes are held or a write is under
// way (whoever writes takes the queue after it): from the caller at once
// when the connection takes it without blocking, the rest by the writer.
// s.mu is held; it is let go during the write.
func (s *Stream) sendLocked() {
	if len(s.queue) == 0 || s.busy || s.holds > 0 || s.closed {
		return
	}
	if s.try == nil || len(s.queue) > 1 && queued(s.queue) > writeBufferSize {
		s.cond.Signal()
		return
	}
	buf := s.queue[0]
	if len(s.queue) > 1 {
		buf = slices.Concat(s.queue...)
	}
	clear(s.queue)
	s.queue = s.queue[:0]
	s.busy = true
	s.mu.Unlock()
	n, err := s.try(buf)
	s.mu.Lock()
	s.busy = false
	if err != nil {
		if s.werr == nil {
			s.werr = fmt.Errorf("%w: write: %v", ErrTransport, err)
		}
		s.queue, s.closed = nil, true
		s.cond.Broadcast()
		return
	}
	if n < len(buf) {
		s.queue = slices.Insert(s.queue, 0, buf[n:])
	}
	if len(s.queue) > 0 || s.closed {
		s.cond.Signal() // the writer takes the rest, or ends
	}
}

// queued is the size of the frames in q.
func queued(q [][]byte) int {
	n := 0
	for _, f := range q {
		n += len(f)
	}
	return n
}

// Ahead reports whether a whole frame is read and buffered already, so
// that the next ReadBody returns it without waiting for the peer. It errs
// towards false: a header block readHeader would reject (a line without a
// colon, a length that is not positive) is not ahead, since ReadBody
// would skip it and wait for more.
func (s *Stream) Ahead() bool {
	n := s.in.Buffered()
	if n == 0 {
		return false
	}
	b, _ := s.in.Peek(n)
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return false
	}
	length := int64(-1)
	for line := range bytes.SplitSeq(b[:end], []byte("\r\n")) {
		if len(line) == 0 {
			continue // a stray blank line before the header
		}
		v, isLength, ok := headerField(line)
		if !ok || isLength && v <= 0 {
			return false
		}
		if isLength {
			length = v
		}
	}
	return length > 0 && int64(len(b)-(end+4)) >= length
}

// Close flushes queued messages (for up to a second) and closes the
// connection.
func (s *Stream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.cond.Signal()
	s.mu.Unlock()
	select {
	case <-s.stopped:
	case <-time.After(time.Second):
	}
	return s.c.Close()
}

func abbreviate(s string, n int) string { return textclip.Bytes(s, n, "…") }
