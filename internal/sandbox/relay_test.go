package sandbox

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// An agentls process confining a command for agentls (`agentls exec`)
// relays its programs' connections to agentls's proxy: the first
// process's checker decides each host, a refusal comes back with its
// reason, and a tunnel carries both directions, half-closes included.
func TestRelayThroughTheFirstProxy(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello from "+r.Host)
	}))
	defer web.Close()
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c) // until the program's half-close
				io.WriteString(c, "got "+string(b))
			}()
		}
	}()
	// The test's names stand for the loopback servers.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case "allowed.test:80":
			addr = web.Listener.Addr().String()
		case "echo.test:443":
			addr = echo.Addr().String()
		default:
			return nil, errors.New("no such test host " + addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	first := NewProxy(ProxyOptions{Dial: dial})
	var asked []string
	token, release := first.Register(context.Background(), func(_ context.Context, host string, port int) error {
		asked = append(asked, host)
		if host == "denied.test" {
			return errors.New("the person denied denied.test")
		}
		return nil
	})
	defer release()
	sock, stop, err := first.ServeSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	second := NewProxy(ProxyOptions{Dial: RelayDial(sock, token)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go second.Serve(ln)
	token2, release2 := second.Register(context.Background(), func(context.Context, string, int) error { return nil })
	defer release2()
	proxyURL := &url.URL{Scheme: "http", User: url.UserPassword("agentls", token2), Host: ln.Addr().String()}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}

	resp, err := client.Get("http://allowed.test/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello from allowed.test" {
		t.Errorf("allowed host: %d %q", resp.StatusCode, body)
	}

	resp, err = client.Get("http://denied.test/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || !strings.Contains(string(body), "the person denied denied.test") {
		t.Errorf("denied host: %d %q, want a refusal with the first proxy's reason", resp.StatusCode, body)
	}

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT echo.test:443 HTTP/1.1\r\nHost: echo.test:443\r\nProxy-Authorization: Basic "+base64Of("agentls:"+token2)+"\r\n\r\n")
	br := bufio.NewReader(c)
	cr, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || cr.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT through the relay: %v %v", cr, err)
	}
	io.WriteString(c, "ping")
	c.(*net.TCPConn).CloseWrite()
	got, _ := io.ReadAll(br)
	if string(got) != "got ping" {
		t.Errorf("tunnel answered %q, want %q (the half-close must reach the far end, and its answer come back)", got, "got ping")
	}
	if strings.Join(asked, ",") != "allowed.test,denied.test,echo.test" {
		t.Errorf("the first proxy judged %v", asked)
	}
}
