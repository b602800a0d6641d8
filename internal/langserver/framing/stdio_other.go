//go:build !unix

package framing

import "os"

// pollable is nil here: stdin and stdout are used as they are.
func pollable(*os.File) (*os.File, func()) { return nil, nil }
