package sandbox

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ServeSocket serves the proxy on a Unix socket in a new private folder
// (0700) as well, for an agentls process that confines a command on
// agentls's behalf (`agentls exec` in an editor's terminal) and relays its
// programs' connections here (RelayDial): the hosts are judged by the
// token's checker in this process, as for any command. stop closes the
// socket and removes the folder.
func (p *Proxy) ServeSocket() (path string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "agentls-relay-")
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: a folder for the proxy's socket: %w", err)
	}
	path = filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("sandbox: listen for the proxy's relay: %w", err)
	}
	go p.Serve(ln)
	return path, func() {
		ln.Close()
		os.RemoveAll(dir)
	}, nil
}

// RelayDial is a ProxyOptions.Dial that reaches every destination through
// the proxy at the Unix socket path (ServeSocket) with token: a CONNECT
// that proxy's checker judges. Its refusal comes back as the error.
func RelayDial(path, token string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	auth := base64.StdEncoding.EncodeToString([]byte("agentls:" + token))
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, fmt.Errorf("the relay to agentls's proxy: %w", err)
		}
		if dl, ok := ctx.Deadline(); ok {
			_ = c.SetDeadline(dl)
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		defer stop()
		if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", addr, addr, auth); err != nil {
			c.Close()
			return nil, fmt.Errorf("the relay to agentls's proxy: %w", err)
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("the relay to agentls's proxy: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			c.Close()
			why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(msg)), "agentls:"))
			if why == "" {
				why = resp.Status
			}
			return nil, errors.New(why)
		}
		_ = c.SetDeadline(time.Time{})
		return &bufferedConn{Conn: c, r: br}, nil
	}
}

// bufferedConn is a connection whose first bytes may already sit in r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// CloseWrite half-closes the relay, so the far end sees the end of what
// the program sent and can still answer.
func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}
