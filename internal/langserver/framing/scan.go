package framing

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// Kind is what a scanned message is.
type Kind uint8

const (
	// RawCall is a request: an id and a method.
	RawCall Kind = iota + 1
	// RawNotification is a method without an id.
	RawNotification
	// RawResponse is a successful answer: an id and a result.
	RawResponse
)

// Raw is a JSON-RPC message as Scan reads it: its kind, id and method,
// and its params or result as views of the body, untouched. A message
// passed on through WriteRaw keeps them byte for byte, where decoding it
// into a jsonrpc2.Message and writing that re-encodes them (compacted,
// HTML-escaped).
type Raw struct {
	Kind   Kind
	ID     jsonrpc2.ID     // calls and responses
	Method string          // calls and notifications
	Params json.RawMessage // calls and notifications; nil when absent, never null
	Result json.RawMessage // responses; never nil
}

// top-level members of a message, as bits of Scan's seen set.
const (
	seenVersion = 1 << iota
	seenID
	seenMethod
	seenParams
	seenResult
)

// members are the top-level keys a JSON-RPC message is decoded by.
var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// Scan reads the top level of a message body without decoding it: it
// validates the whole body as JSON and finds the members a message is
// routed by. ok is false for every body Scan does not read exactly as
// the full decode (Stream.Decode) would: a body that is no message,
// error answers, null params, ids that are neither int32 numbers nor
// plain ASCII strings, methods that are not plain ASCII, keys that are
// escaped, not ASCII, repeated or only match a member's name case-
// insensitively (as the decoder would match them), invalid UTF-8. Such a
// body is for the full decode, which handles every case as before.
func Scan(body []byte) (r Raw, ok bool) {
	if !utf8.Valid(body) {
		return Raw{}, false
	}
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return Raw{}, false
	}
	i = skipSpace(body, i+1)
	var seen uint8
	var id []byte
	for {
		if i >= len(body) || body[i] != '"' {
			return Raw{}, false // also the empty object: no message
		}
		end, plain := skipString(body, i)
		if end < 0 || !plain {
			return Raw{}, false
		}
		key := body[i+1 : end-1]
		for _, c := range key {
			if c >= utf8.RuneSelf {
				return Raw{}, false // might fold to a member's name
			}
		}
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return Raw{}, false
		}
		i = skipSpace(body, i+1)
		start := i
		if i = skipValue(body, i); i < 0 {
			return Raw{}, false
		}
		val := body[start:i]
		var bit uint8
		switch string(key) {
		case "jsonrpc":
			if string(val) != `"2.0"` {
				return Raw{}, false
			}
			bit = seenVersion
		case "id":
			id, bit = val, seenID
		case "method":
			m, ok := plainString(val)
			if !ok || m == "" {
				return Raw{}, false
			}
			r.Method, bit = m, seenMethod
		case "params":
			if string(val) == "null" {
				return Raw{}, false
			}
			r.Params, bit = val, seenParams
		case "result":
			r.Result, bit = val, seenResult
		default:
			for _, name := range members {
				if strings.EqualFold(string(key), name) {
					return Raw{}, false // "error", or a member's name in other case
				}
			}
		}
		if seen&bit != 0 {
			return Raw{}, false // a repeated member: the decoder keeps the last
		}
		seen |= bit
		i = skipSpace(body, i)
		if i >= len(body) {
			return Raw{}, false
		}
		if body[i] == ',' {
			i = skipSpace(body, i+1)
			continue
		}
		if body[i] != '}' {
			return Raw{}, false
		}
		break
	}
	if skipSpace(body, i+1) != len(body) {
		return Raw{}, false
	}
	if seen&seenID != 0 {
		var ok bool
		if r.ID, ok = scanID(id); !ok {
			return Raw{}, false
		}
	}
	switch {
	case seen&seenMethod != 0 && seen&seenResult == 0:
		r.Result = nil
		if seen&seenID != 0 {
			r.Kind = RawCall
		} else {
			r.Kind = RawNotification
		}
	case seen&seenMethod == 0 && seen&seenID != 0 && seen&seenResult != 0:
		r.Kind, r.Params = RawResponse, nil
	default:
		return Raw{}, false
	}
	return r, true
}

// scanID reads an id: a number within int32 written as an integer, or a
// non-empty plain ASCII string (which jsonrpc2.ID holds as it is; the
// empty string would read as the number 0).
func scanID(v []byte) (jsonrpc2.ID, bool) {
	if len(v) > 0 && v[0] == '"' {
		s, ok := plainString(v)
		if !ok || s == "" {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.NewStringID(s), true
	}
	if len(v) == 0 || len(v) > 11 || string(v) == "-0" {
		return jsonrpc2.ID{}, false
	}
	digits := v
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc2.ID{}, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc2.ID{}, false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.NewNumberID(int32(n)), true
}

// plainString is the JSON string v when it is printable ASCII without
// escapes, so its bytes are its value.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(s), true
}

// appendID appends an id as jsonrpc2.ID's MarshalJSON writes it.
func appendID(buf []byte, id jsonrpc2.ID) ([]byte, error) {
	raw, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(buf, raw...), nil
}

// AppendBody appends the body of r, as Scan read it, the way WriteRaw
// writes it: under id for a call or a response (a notification has
// none), its method, params and result as they came.
func AppendBody(buf []byte, r Raw, id jsonrpc2.ID) ([]byte, error) {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if r.Kind != RawNotification {
		buf = append(buf, `,"id":`...)
		var err error
		if buf, err = appendID(buf, id); err != nil {
			return nil, err
		}
	}
	if r.Kind == RawResponse {
		buf = append(buf, `,"result":`...)
		buf = append(buf, r.Result...)
		return append(buf, '}'), nil
	}
	buf = append(buf, `,"method":"`...)
	buf = append(buf, r.Method...)
	buf = append(buf, '"')
	if len(bytes.TrimSpace(r.Params)) > 0 {
		buf = append(buf, `,"params":`...)
		buf = append(buf, r.Params...)
	}
	return append(buf, '}'), nil
}

// skipSpace is the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString validates the JSON string starting at b[i] ('"') and
// returns the index just past it, or -1; plain says it has no escapes.
func skipString(b []byte, i int) (end int, plain bool) {
	plain = true
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, plain
		case c < 0x20:
			return -1, false
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 6
			default:
				return -1, false
			}
		default:
			i++
		}
	}
	return -1, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber validates the JSON number starting at b[i] and returns the
// index just past it, or -1.
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	return i
}

// maxDepth bounds the nesting Scan follows; deeper bodies are left to
// the full decode.
const maxDepth = 1000

// skipValue validates the JSON value starting at b[i] (no whitespace
// before it) and returns the index just past it, or -1. It keeps its own
// stack of open arrays and objects instead of recursing.
func skipValue(b []byte, i int) int {
	var stackBuf [64]byte
	stack := stackBuf[:0] // '{' or '[' for each open container
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return -1
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i = skipKey(b, i); i < 0 {
					return -1
				}
			}
			continue
		case '"':
			if i, _ = skipString(b, i); i < 0 {
				return -1
			}
		case 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return -1
			}
			i += 4
		case 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return -1
			}
			i += 5
		case 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return -1
			}
			i += 4
		default:
			if i = skipNumber(b, i); i < 0 {
				return -1
			}
		}
		// A value ended before b[i]: close the containers it ends.
		for {
			if len(stack) == 0 {
				return i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			open := stack[len(stack)-1]
			if b[i] == open+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
			if open == '{' {
				if i = skipKey(b, i); i < 0 {
					return -1
				}
			}
			break
		}
	}
}

// skipKey validates an object's key and its colon at b[i] and returns the
// index of the value after them, or -1.
func skipKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i, _ = skipString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}
