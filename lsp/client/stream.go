package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// maxMessageSize bounds one message from a server; a larger one is
// skipped (its request, if any, then times out).
const maxMessageSize = 64 << 20

// errTransport marks a failure to talk to the server process at all (its
// pipe is closed or broken), as opposed to an error the server answered.
var errTransport = errors.New("connection to the language server is closed")

// stream is a jsonrpc2.Stream with LSP base-protocol framing, owned here
// rather than taken from jsonrpc2 for two reasons: jsonrpc2's stream ends
// the connection on the first body it cannot decode (a server printing a
// stray line to stdout would then look like a crash), and it always writes
// a "params" member, while some servers (tsgo) reject `"params": null` on
// shutdown and exit. This one skips bad frames and resynchronizes on the
// next Content-Length header, and omits null params.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger

	// Writes are queued and written by one goroutine so that a caller
	// (including the read loop answering a server request) never blocks
	// on a server that is itself busy writing to us.
	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	closed  bool
	werr    error
	stopped chan struct{}
}

// newStream frames messages over rwc.
func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	s := &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, c: rwc, log: log, stopped: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.writer()
	return s
}

// writer writes queued frames in order until the stream closes.
func (s *stream) writer() {
	defer close(s.stopped)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		frame := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if _, err := s.out.Write(frame); err != nil {
			s.mu.Lock()
			if s.werr == nil {
				s.werr = fmt.Errorf("%w: write: %v", errTransport, err)
			}
			s.queue, s.closed = nil, true
			s.mu.Unlock()
			return
		}
	}
}

// Read returns the next well-formed message, skipping malformed ones.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
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
			continue
		}
		if length > maxMessageSize {
			m, err := io.CopyN(io.Discard, s.in, length)
			total += m
			if err != nil {
				return nil, total, fmt.Errorf("%w: skip oversized message: %v", errTransport, err)
			}
			s.log.Warn("skipped oversized message from language server", "bytes", length)
			continue
		}
		body := make([]byte, length)
		m, err := io.ReadFull(s.in, body)
		total += int64(m)
		if err != nil {
			return nil, total, fmt.Errorf("%w: read message body (%d of %d bytes): %v", errTransport, m, length, err)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, total, nil
		}
		s.rejectBody(body, err)
	}
}

// readHeader reads one header block and returns the content length, or -1
// when the block was malformed (logged and skipped). Text before a
// Content-Length header that is not a header line (a server printing to
// stdout) is skipped.
func (s *stream) readHeader() (int64, int64, error) {
	var total int64
	length := int64(-1)
	lines, garbage := 0, ""
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if err == io.EOF && total == 0 {
				return 0, total, io.EOF
			}
			return 0, total, fmt.Errorf("%w: read header: %v", errTransport, err)
		}
		if i := strings.Index(line, "Content-Length:"); i > 0 {
			garbage, line = line[:i], line[i:]
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if lines == 0 && garbage == "" {
				continue // a stray blank line between messages
			}
			break
		}
		lines++
		name, value, ok := strings.Cut(line, ":")
		switch {
		case !ok:
			garbage = line
		case strings.EqualFold(strings.TrimSpace(name), "Content-Length"):
			if garbage != "" {
				s.log.Warn("language server wrote text that is not a message", "text", abbreviate(garbage, 80))
				garbage = ""
			}
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v <= 0 {
				length = -1
			} else {
				length = v
			}
		}
	}
	if garbage != "" || length < 0 {
		s.log.Warn("skipped malformed frame from language server", "text", abbreviate(garbage, 80))
		return -1, total, nil
	}
	return length, total, nil
}

// rejectBody skips a body that is not a JSON-RPC message. When it looks
// like a request with an id, the server waits for an answer, so it gets
// an invalid-request error.
func (s *stream) rejectBody(body []byte, err error) {
	s.log.Warn("skipped invalid message from language server", "error", err, "start", abbreviate(string(body), 80))
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Method == "" || len(probe.ID) == 0 || string(probe.ID) == "null" {
		return
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", probe.ID, jsonrpc2.Error{Code: jsonrpc2.InvalidRequest, Message: fmt.Sprintf("not a valid JSON-RPC 2.0 message: %v", err)}})
	_ = s.writeFrame(out)
}

// Write frames and queues one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := encodeMessage(msg)
	if err != nil {
		return 0, err
	}
	return int64(len(data)), s.writeFrame(data)
}

// encodeMessage marshals a message, leaving out params that are null:
// JSON-RPC allows params to be omitted but not null, and some servers
// (tsgo) reject a shutdown request with `"params": null`.
func encodeMessage(msg jsonrpc2.Message) ([]byte, error) {
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
		return data, nil
	}
	buf := make([]byte, 0, len(params)+len(method)+48)
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
	if p := strings.TrimSpace(string(params)); p != "" && p != "null" {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}'), nil
}

// writeFrame queues one framed message. It fails only once the stream is
// closed or a write has failed.
func (s *stream) writeFrame(body []byte) error {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if s.closed {
		return errTransport
	}
	s.queue = append(s.queue, frame)
	s.cond.Signal()
	return nil
}

// Close flushes queued messages (briefly) and closes the pipes.
func (s *stream) Close() error {
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

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
