package sandbox

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as a small program the tests run
// confined: SANDBOX_HELPER="dial tcp ADDR" and friends (helper).
func TestMain(m *testing.M) {
	if h := os.Getenv("SANDBOX_HELPER"); h != "" {
		os.Exit(helper(h))
	}
	os.Exit(m.Run())
}

// helper does one network action and prints what happened; exit 0 when it
// succeeded.
func helper(spec string) int {
	f := strings.Fields(spec)
	if len(f) < 2 {
		fmt.Println("bad helper spec")
		return 2
	}
	var err error
	switch f[0] + " " + f[1] {
	case "dial tcp":
		var c net.Conn
		c, err = net.DialTimeout("tcp", f[2], 3*time.Second)
		if err == nil {
			_, err = c.Write([]byte("leak"))
			c.Close()
		}
	case "send udp":
		var c net.Conn
		c, err = net.Dial("udp", f[2])
		if err == nil {
			_, err = c.Write([]byte("leak"))
			c.Close()
		}
	case "listen tcp":
		var ln net.Listener
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			// A program's own loopback server, dialled by itself.
			go func() {
				if c, err := ln.Accept(); err == nil {
					c.Close()
				}
			}()
			var c net.Conn
			c, err = net.DialTimeout("tcp", ln.Addr().String(), 3*time.Second)
			if err == nil {
				c.Close()
			}
			ln.Close()
		}
	default:
		fmt.Println("unknown helper spec", spec)
		return 2
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func base64Of(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
