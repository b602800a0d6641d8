//go:build !unix

// Command gopoll is a Unix relay (main.go); elsewhere it says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "gopoll: poll(2) relays run on Unix only")
	os.Exit(2)
}
