package lsp

import (
	"bufio"
	"bytes"
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

// MaxMessageSize bounds one incoming message. A larger one is skipped and
// answered with an error; the connection stays up.
const MaxMessageSize = 32 << 20

const contentLength = "Content-Length:"

// stream is a jsonrpc2.Stream with LSP base-protocol framing that survives
// bad input. jsonrpc2's own stream ends the connection on the first frame
// it cannot decode; this one answers the bad frame with a JSON-RPC error,
// resynchronizes on the next Content-Length header and keeps reading. Only
// end of input or a read error ends it.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger

	// Writes are queued and written by one goroutine, so the reading side
	// never waits on a client that is itself busy writing to us (a
	// synchronous pipe would deadlock).
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
				s.werr = fmt.Errorf("write message: %w", err)
			}
			s.queue, s.closed = nil, true
			s.mu.Unlock()
			return
		}
	}
}

// Read returns the next well-formed message, answering and skipping the
// malformed ones.
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
			continue // header was bad and already reported
		}
		if length > MaxMessageSize {
			m, err := io.CopyN(io.Discard, s.in, length)
			total += m
			if err != nil {
				return nil, total, fmt.Errorf("skip oversized message: %w", err)
			}
			s.reject(nil, jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is over the %d-byte limit; it was skipped", length, MaxMessageSize))
			continue
		}
		body := make([]byte, length)
		m, err := io.ReadFull(s.in, body)
		total += int64(m)
		if err != nil {
			return nil, total, fmt.Errorf("read message body (%d of %d bytes): %w", m, length, err)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, total, nil
		}
		s.rejectBody(body, err)
	}
}

// readHeader reads one header block. It returns the content length, or -1
// when the block was malformed (reported, and the reader moved past it).
// Anything before a Content-Length header that is not a header line is
// garbage: it is reported once and skipped, so a frame with a wrong length
// costs that frame only.
func (s *stream) readHeader() (int64, int64, error) {
	var total int64
	length := int64(-1)
	lines, garbage, problem := 0, "", ""
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if err == io.EOF && total == 0 {
				return 0, total, io.EOF
			}
			return 0, total, fmt.Errorf("read header: %w", err)
		}
		if i := strings.Index(line, contentLength); i > 0 {
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
				// Garbage, then a real header: answer the garbage and
				// start the message afresh at this header.
				s.reportBadFrame(fmt.Sprintf("skipped bytes that are not a message: %q", abbreviate(garbage, 60)))
				garbage = ""
			}
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v <= 0 {
				problem = fmt.Sprintf("bad Content-Length %q", strings.TrimSpace(value))
				length = -1
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
		s.reportBadFrame(problem)
		return -1, total, nil
	}
	return length, total, nil
}

func (s *stream) reportBadFrame(problem string) {
	s.log.Warn("malformed LSP frame", "problem", problem)
	s.reject(nil, jsonrpc2.ParseError, "malformed message: "+problem+"; each message needs a valid Content-Length header")
}

// rejectBody answers a body that is not a valid JSON-RPC message: a parse
// error when it is not JSON, an invalid-request error (with its id when it
// has one) when it is JSON of the wrong shape.
func (s *stream) rejectBody(body []byte, err error) {
	if !json.Valid(body) {
		s.log.Warn("message body is not JSON", "bytes", len(body), "start", abbreviate(string(body), 80))
		s.reject(nil, jsonrpc2.ParseError, "message body is not valid JSON; it was skipped")
		return
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &probe)
	s.log.Warn("invalid JSON-RPC message", "error", err, "start", abbreviate(string(body), 80))
	s.reject(probe.ID, jsonrpc2.InvalidRequest, fmt.Sprintf("not a valid JSON-RPC 2.0 message: %v", err))
}

// reject writes an error response. id may be nil (JSON null).
func (s *stream) reject(id json.RawMessage, code jsonrpc2.Code, msg string) {
	if len(id) == 0 || !validID(id) {
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
	if len(id) == 0 {
		return false
	}
	var n json.Number
	var str string
	return json.Unmarshal(id, &n) == nil || json.Unmarshal(id, &str) == nil
}

// Write frames and writes one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshal message: %w", err)
	}
	return int64(len(data)), s.writeFrame(data)
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
		return errors.New("write message: connection closed")
	}
	s.queue = append(s.queue, frame)
	s.cond.Signal()
	return nil
}

// Close flushes queued messages (briefly) and closes the connection.
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
