package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// maxLine is the longest message agentls reads. The SDK's reader stops
// the connection at 10 MiB, so longer lines never reach it: they are
// skipped and answered here.
const maxLine = 8 << 20

// JSON-RPC error codes agentls answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeMethodNotFound is a client's answer to a method it does not have.
	codeMethodNotFound = -32601
	// codeNotFound is ACP's "resource not found" (an unknown session).
	codeNotFound = -32002
)

// wire is the client's stream as agentls reads and writes it: every
// line from the client is checked before the SDK's connection sees it,
// so input the SDK would drop silently or stop on (a line that is not
// JSON, not a JSON-RPC message, a batch, a line over maxLine) is answered
// with a JSON-RPC error and the connection reads on. Writes of the SDK and
// of wire itself go through one lock, a whole line at a time.
type wire struct {
	in  io.Reader
	log *slog.Logger

	mu  sync.Mutex // held while a line is written
	out io.Writer

	// pending holds every request read and not yet answered, with the
	// hook (nil for most) to run once its reply is written; see afterReply.
	// answered is signalled on every reply, for drain.
	pendMu   sync.Mutex
	pending  map[string]func(result json.RawMessage)
	answered chan struct{}
	watch    func(method string, params json.RawMessage) func(result json.RawMessage)
}

// newWire returns the stream over in and out. watch, when not nil, is
// told of every request (method, params) before the SDK sees it; the
// function it returns, if any, runs once the reply has been written, with
// the reply's result (nil for an error reply).
func newWire(in io.Reader, out io.Writer, log *slog.Logger, watch func(method string, params json.RawMessage) func(json.RawMessage)) *wire {
	return &wire{in: in, out: out, log: log, watch: watch, pending: map[string]func(json.RawMessage){}, answered: make(chan struct{}, 1)}
}

// Write writes one or more whole lines (the SDK writes one message with
// its newline per call), an elicitation request given its session scope
// (scopeElicitation). A reply to a watched request runs its hook after
// the line is out, on its own goroutine, so the hook's own writes follow
// the reply.
func (w *wire) Write(p []byte) (int, error) {
	line := scopeElicitation(p)
	w.mu.Lock()
	n, err := w.out.Write(line)
	w.mu.Unlock()
	if err != nil {
		return min(n, len(p)), err
	}
	w.afterReply(p)
	return len(p), nil
}

// afterReply marks the request a written reply answers as answered and
// runs its hook.
func (w *wire) afterReply(p []byte) {
	w.pendMu.Lock()
	empty := len(w.pending) == 0
	w.pendMu.Unlock()
	if empty {
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(p), &msg) != nil || msg.Method != "" || len(msg.ID) == 0 {
		return
	}
	key := idKey(msg.ID)
	w.pendMu.Lock()
	h, ok := w.pending[key]
	delete(w.pending, key)
	w.pendMu.Unlock()
	if !ok {
		return
	}
	select {
	case w.answered <- struct{}{}:
	default:
	}
	if h != nil {
		go h(msg.Result)
	}
}

// drain waits until every request read has been answered, or the timeout
// passes; it reports whether all were.
func (w *wire) drain(timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		w.pendMu.Lock()
		n := len(w.pending)
		w.pendMu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-w.answered:
		case <-deadline:
			return false
		}
	}
}

// idKey is a request id in one spelling, to match a reply to its request.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// pump reads the client's lines until it closes the stream or an error
// occurs, answering bad ones and writing good ones to sdk. It closes sdk
// when it returns, which ends the SDK's connection.
func (w *wire) pump(sdk *io.PipeWriter) {
	r := bufio.NewReaderSize(w.in, 64<<10)
	var err error
	for n := 1; ; n++ {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(r)
		if tooLong {
			w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d: a message of more than %d MiB was skipped: send large files as resource links (the agent reads them itself) rather than embedding them", n, maxLine>>20))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			// What is checked is what the SDK gets: a leading \v or \f is
			// space to TrimSpace but not to a JSON decoder.
			if w.check(n, line) {
				if _, werr := sdk.Write(append(line, '\n')); werr != nil {
					err = werr
					break
				}
			}
		}
		if err != nil {
			break
		}
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		w.log.Warn("acp: reading the client's stream failed", "error", err)
	}
	sdk.Close()
}

// readLine reads one line without its newline. A line longer than maxLine
// is read to its end and dropped (tooLong). err is io.EOF after the last
// line.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case e == nil:
			return bytes.TrimRight(line, "\r\n"), tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return bytes.TrimRight(line, "\r\n"), tooLong, e
		}
	}
}

// check reports whether a line (trimmed of spaces) is a JSON-RPC 2.0
// message the SDK can take, answering it with an error when it is not.
// Requests are shown to watch.
func (w *wire) check(n int, trimmed []byte) bool {
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		w.reject(nil, codeParseError, fmt.Sprintf("line %d is not JSON (%v): ACP takes one JSON-RPC 2.0 message per line", n, err))
		return false
	}
	switch trimmed[0] {
	case '{':
	case '[':
		w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d is a JSON-RPC batch: ACP takes one message per line, not batches", n))
		return false
	default:
		w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d is JSON but not a JSON-RPC message (an object with \"jsonrpc\": \"2.0\")", n))
		return false
	}
	var msg struct {
		JSONRPC *string          `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Method  *string          `json:"method"`
		Params  json.RawMessage  `json:"params"`
		Result  json.RawMessage  `json:"result"`
		Error   json.RawMessage  `json:"error"`
	}
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d is not a JSON-RPC message: %v", n, err))
		return false
	}
	var id json.RawMessage
	if msg.ID != nil {
		id = *msg.ID
		if !validID(id) {
			w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d: the id must be a string or a number, not %s", n, id))
			return false
		}
	}
	switch {
	case msg.JSONRPC == nil || *msg.JSONRPC != "2.0":
		w.reject(id, codeInvalidRequest, fmt.Sprintf("line %d: \"jsonrpc\" must be \"2.0\"", n))
		return false
	case msg.Method != nil && *msg.Method == "":
		w.reject(id, codeInvalidRequest, fmt.Sprintf("line %d: the method name is empty", n))
		return false
	case msg.Method == nil && msg.ID == nil:
		w.reject(nil, codeInvalidRequest, fmt.Sprintf("line %d has neither a method (a request or notification) nor an id (a reply)", n))
		return false
	case msg.Method == nil && msg.Result == nil && msg.Error == nil:
		w.reject(id, codeInvalidRequest, fmt.Sprintf("line %d: a reply needs a result or an error", n))
		return false
	case msg.Method != nil && len(msg.Params) > 0 && msg.Params[0] != '{' && msg.Params[0] != '[' && string(msg.Params) != "null":
		if msg.ID != nil {
			w.reject(id, codeInvalidParams, fmt.Sprintf("%s: params must be an object", *msg.Method))
		} else {
			w.log.Warn("acp: notification with params that are not an object ignored", "method", *msg.Method)
		}
		return false
	}
	if msg.Method != nil && msg.ID != nil {
		key := idKey(id)
		w.pendMu.Lock()
		_, dup := w.pending[key]
		w.pendMu.Unlock()
		if dup {
			// JSON-RPC ids are unique among requests not yet answered: the
			// SDK's reply to one would answer the other.
			w.reject(id, codeInvalidRequest, fmt.Sprintf("line %d: id %s is already used by a request not answered yet", n, id))
			return false
		}
		var h func(json.RawMessage)
		if w.watch != nil {
			h = w.watch(*msg.Method, msg.Params)
		}
		w.pendMu.Lock()
		w.pending[key] = h
		w.pendMu.Unlock()
	}
	return true
}

// validID reports whether id is a JSON string, number or null.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case nil, string, float64:
		return true
	}
	return false
}

// reject writes an error reply; id nil means null (the request's id is
// not known).
func (w *wire) reject(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.log.Warn("acp: bad input answered", "code", code, "message", msg)
	reply := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	reply.Error.Code, reply.Error.Message = code, msg
	b, err := json.Marshal(reply)
	if err != nil {
		return
	}
	// Written past afterReply: a rejected line never became a pending
	// request, and its id (a duplicate's) must not answer one that did.
	w.mu.Lock()
	_, err = w.out.Write(append(b, '\n'))
	w.mu.Unlock()
	if err != nil {
		w.log.Warn("acp: writing an error reply failed", "error", err)
	}
}
