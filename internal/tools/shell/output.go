package shell

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxOutputChars is the most characters of one output shown to the model;
// more would crowd out the conversation.
const MaxOutputChars = 30000

// Truncate bounds text for the model. Text over MaxOutputChars characters
// keeps its first and last halves joined by a "[N lines truncated]" marker,
// cut on character boundaries so CJK and emoji stay valid UTF-8. When text
// is truncated and saveDir is not empty, the full text is written to a new
// file there and its path returned, so nothing is lost for good.
// Invalid UTF-8 in the input is replaced in what is shown.
func Truncate(text, saveDir string) (shown, savedPath string, err error) {
	valid := strings.ToValidUTF8(text, "\uFFFD")
	n := utf8.RuneCountInString(valid)
	if n <= MaxOutputChars {
		return valid, "", nil
	}
	half := MaxOutputChars / 2
	headEnd := byteOffset(valid, half)
	tailStart := byteOffset(valid, n-half)
	head, middle, tail := valid[:headEnd], valid[headEnd:tailStart], valid[tailStart:]
	shown = fmt.Sprintf("%s\n\n... [%d lines truncated] ...\n\n%s", head, strings.Count(middle, "\n"), tail)
	if saveDir == "" {
		return shown, "", nil
	}
	f, err := os.CreateTemp(saveDir, "shell-output-*.txt")
	if err != nil {
		return shown, "", fmt.Errorf("shell: save full output: %w", err)
	}
	_, werr := f.WriteString(text)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return shown, "", fmt.Errorf("shell: save full output: %w", firstErr(werr, cerr))
	}
	return shown, f.Name(), nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// byteOffset returns the byte offset of the rune with index i in s.
func byteOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// capture keeps a bounded copy of a stream: the first and the last half of
// its limit, with a marker where bytes were dropped. Commands may print
// gigabytes; the server must not hold them.
type capture struct {
	mu    sync.Mutex
	limit int
	head  []byte
	tail  ring
}

func newCapture(limit int) *capture {
	return &capture{limit: limit, tail: ring{buf: make([]byte, 0, 64), size: limit - limit/2}}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.limit/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail.write(p)
	return n, nil
}

// String returns what was kept, marking any gap.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail, dropped := c.tail.since(0)
	if dropped == 0 {
		return string(c.head) + string(tail)
	}
	return fmt.Sprintf("%s\n... [%d bytes omitted] ...\n%s", c.head, dropped, tail)
}

// dropped returns how many bytes were not kept.
func (c *capture) dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, d := c.tail.since(0)
	return d
}

// ring keeps the last size bytes written to a stream and counts all bytes,
// so readers can ask for "everything after offset n" and learn how much of
// it was overwritten. It is not safe for concurrent use by itself.
type ring struct {
	buf   []byte // grows up to size, then wraps
	size  int
	start int   // index in buf of the oldest byte once full
	total int64 // bytes ever written
}

func (r *ring) write(p []byte) {
	r.total += int64(len(p))
	if r.size <= 0 {
		return
	}
	if len(p) >= r.size {
		r.buf = append(r.buf[:0], p[len(p)-r.size:]...)
		r.start = 0
		return
	}
	if room := r.size - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(r.buf[r.start:], p)
		p = p[k:]
		r.start = (r.start + k) % r.size
	}
}

// since returns the bytes written after offset off that are still kept,
// and how many bytes after off were lost.
func (r *ring) since(off int64) ([]byte, int64) {
	kept := int64(len(r.buf))
	first := r.total - kept // offset of the oldest kept byte
	var dropped int64
	if off < first {
		dropped = first - off
		off = first
	}
	if off >= r.total {
		return nil, dropped
	}
	ordered := make([]byte, 0, kept)
	ordered = append(ordered, r.buf[r.start:]...)
	ordered = append(ordered, r.buf[:r.start]...)
	return ordered[off-first:], dropped
}

// lockedRing is a ring shared by a running command and its readers.
type lockedRing struct {
	mu sync.Mutex
	r  ring
}

func (l *lockedRing) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.r.write(p)
	l.mu.Unlock()
	return len(p), nil
}

func (l *lockedRing) since(off int64) ([]byte, int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, dropped := l.r.since(off)
	return b, dropped, l.r.total
}
