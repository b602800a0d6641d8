package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/netdest"
)

// Checker decides whether a confined program may reach host:port: nil
// lets it through, an error refuses it (its text goes back to the
// program). It may ask a person, so it may block.
type Checker func(ctx context.Context, host string, port int) error

// ProxyOptions configures a Proxy.
type ProxyOptions struct {
	// Dial connects to an allowed destination; nil means a dialer that
	// refuses every address that is not netdest.Public, judged at connect
	// time. Tests reach loopback servers through their own.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log receives one line per refused or failed request; nil discards.
	Log *slog.Logger
}

// Proxy is the HTTP proxy (CONNECT for https, absolute URLs for http)
// through which confined programs reach the network. Every program is
// given a proxy URL with a token of its own (Register); the token's
// checker decides each host, so a command's hosts are asked about in that
// command's turn. A request without a known token is refused.
type Proxy struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	log  *slog.Logger

	mu     sync.Mutex
	tokens map[string]*grant
}

// grant is one registered program's checker and its open tunnels.
type grant struct {
	check Checker
	ctx   context.Context
	conns map[net.Conn]bool
	done  bool
}

// NewProxy returns a proxy that serves nothing until Serve.
func NewProxy(o ProxyOptions) *Proxy {
	p := &Proxy{dial: o.Dial, log: o.Log, tokens: map[string]*grant{}}
	if p.dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, Control: netdest.Control}
		p.dial = d.DialContext
	}
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return p
}

// Register gives a program (a command, a language server) its token: its
// requests are judged by check, with ctx (asks end with it). release
// forgets the token and closes the program's open connections.
func (p *Proxy) Register(ctx context.Context, check Checker) (token string, release func()) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token = hex.EncodeToString(b)
	g := &grant{check: check, ctx: ctx, conns: map[net.Conn]bool{}}
	p.mu.Lock()
	p.tokens[token] = g
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.tokens, token)
		g.done = true
		conns := g.conns
		g.conns = nil
		p.mu.Unlock()
		for c := range conns {
			c.Close()
		}
	}
}

// ProxyEnv is the environment that sends a program's HTTP(S) traffic to
// the proxy at url (Sandbox.ProxyURL) with token: both spellings of the
// usual variables, and no exceptions (NO_PROXY) that would go around it.
func ProxyEnv(url, token string) []string {
	if url == "" {
		return nil
	}
	u := strings.Replace(url, "://", "://agentls:"+token+"@", 1)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+u)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

// Serve answers connections on ln until it is closed.
func (p *Proxy) Serve(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go p.serveConn(c)
	}
}

// serveConn answers one client connection: CONNECT tunnels, or plain HTTP
// requests forwarded one by one.
func (p *Proxy) serveConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		g, ok := p.grantOf(req)
		if !ok {
			p.refuse(c, http.StatusProxyAuthRequired, "agentls: this proxy serves only the programs agentls starts")
			return
		}
		if req.Method == http.MethodConnect {
			p.tunnel(c, br, req, g)
			return
		}
		if !p.forward(c, req, g) {
			return
		}
	}
}

// grantOf finds the request's token (Proxy-Authorization: Basic
// agentls:TOKEN).
func (p *Proxy) grantOf(req *http.Request) (*grant, bool) {
	auth := req.Header.Get("Proxy-Authorization")
	enc, ok := strings.CutPrefix(auth, "Basic ")
	if !ok {
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return nil, false
	}
	_, token, _ := strings.Cut(string(raw), ":")
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.tokens[token]
	return g, ok
}

// target reads and checks the request's destination: a host name or an
// IP literal, and a port.
func target(hostport, defPort string) (host string, port int, err error) {
	h, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		h, ps = hostport, defPort
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if _, err := netip.ParseAddr(h); err != nil && !validHostname(h) {
		return "", 0, fmt.Errorf("%q is not a host name", h)
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("%q is not a port", ps)
	}
	return h, n, nil
}

// validHostname accepts DNS names of letters, digits, hyphens and dots
// only, so the name checked is the name dialled (no NUL, no spaces, no
// percent-encoding).
func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			ch := label[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
				return false
			}
		}
	}
	return true
}

// allow runs the grant's checker for host:port.
func (p *Proxy) allow(g *grant, host string, port int) error {
	if err := g.check(g.ctx, host, port); err != nil {
		p.log.Info("sandbox proxy refused", "host", host, "port", port, "reason", err)
		return err
	}
	return nil
}

// tunnel answers CONNECT: check, dial, then copy both ways.
func (p *Proxy) tunnel(c net.Conn, br *bufio.Reader, req *http.Request, g *grant) {
	host, port, err := target(req.Host, "443")
	if err == nil {
		err = p.allow(g, host, port)
	}
	if err != nil {
		p.refuse(c, http.StatusForbidden, "agentls: "+err.Error())
		return
	}
	up, err := p.dial(g.ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		p.refuse(c, http.StatusBadGateway, "agentls: "+err.Error())
		return
	}
	defer up.Close()
	if !p.track(g, c, up) {
		return
	}
	defer p.untrack(g, c, up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, br) // what the client sent after CONNECT is buffered in br
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		closeWrite(c)
		done <- struct{}{}
	}()
	<-done
	<-done
}

// forward answers a plain-HTTP request with an absolute URL; it reports
// whether the client connection may carry another request.
func (p *Proxy) forward(c net.Conn, req *http.Request, g *grant) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		p.refuse(c, http.StatusBadRequest, "agentls: a proxy request needs an absolute http:// URL (or CONNECT for https)")
		return false
	}
	host, port, err := target(req.URL.Host, "80")
	if err == nil {
		err = p.allow(g, host, port)
	}
	if err != nil {
		p.refuse(c, http.StatusForbidden, "agentls: "+err.Error())
		return false
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return p.dial(ctx, network, addr)
		},
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	out := req.Clone(g.ctx)
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Authorization", "Proxy-Connection", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := tr.RoundTrip(out)
	if err != nil {
		p.refuse(c, http.StatusBadGateway, "agentls: "+err.Error())
		return false
	}
	defer resp.Body.Close()
	if err := resp.Write(c); err != nil {
		return false
	}
	return !req.Close && !resp.Close
}

// track records a tunnel under its grant, refusing it if the grant ended.
func (p *Proxy) track(g *grant, cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g.done {
		return false
	}
	for _, c := range cs {
		g.conns[c] = true
	}
	return true
}

func (p *Proxy) untrack(g *grant, cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(g.conns, c)
	}
}

// refuse answers with status and a one-line text body.
func (p *Proxy) refuse(c net.Conn, status int, msg string) {
	body := msg + "\n"
	h := "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
	if status == http.StatusProxyAuthRequired {
		h += "Proxy-Authenticate: Basic realm=\"agentls\"\r\n"
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n%sContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), h, len(body), body)
}

// closeWrite half-closes a TCP connection so the other side sees the end.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}

// errNoServerNetwork refuses a server's host when no checker was given.
var errNoServerNetwork = errors.New("servers agentls starts reach no network unless a rule allows the host, e.g. \"net.fetch:proxy.golang.org\": \"allow\"")
