//go:build !unix

package framing

import "io"

// reader is conn itself here.
func reader(conn io.Reader) io.Reader { return conn }

// tryWriter is nil here: every frame goes through the writer.
func tryWriter(io.Writer) func([]byte) (int, error) { return nil }
