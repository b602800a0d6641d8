package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/langserver/framing"
)

func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: agentls serve [--stdio] [flags] [--wrap CMD ARGS…]\n\nRuns the language server on stdin/stdout. Editors start it like any language server.\nThe log goes to the log file; stderr gets its warnings and errors.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "  -wrap CMD ARGS…\n    \tstart the language server CMD (e.g. gopls) and be the editor's one server:\n    \tits requests pass through unchanged, agentls's commands and code actions\n    \tare added, and the agent's lsp_* tools use the same process (last flag:\n    \tthe rest of the line is the command)\n")
	}
	fs.Bool("stdio", true, "use stdin/stdout (the only transport; accepted for editors that pass it)")
	flags := addEditorFlags(fs, "model as provider:model (overrides the editor, AGENTLS_MODEL and the config file)", "permission mode: chat, approve, smart or auto")
	args, wrapCmd, ok := splitWrap(args)
	if !ok {
		fmt.Fprintln(stderr, "agentls serve: --wrap needs a command, e.g. --wrap gopls")
		return 2
	}
	if code, done := parseEditorArgs(fs, args); done {
		return code
	}
	// Editors show stderr in their LSP log (Neovim files every line as an
	// error): warnings and errors only; the log file has the rest.
	a, log, closeLog, code := openEditorApp(stderr, flags, slog.LevelWarn)
	defer closeLog()
	if code != 0 {
		return code
	}
	conn, restore := serveConn(stdin, stdout)
	defer restore()
	code = lsp.Serve(ctx, conn, lsp.Options{Name: "agentls", Version: Version, App: a, Wrap: wrapCmd})
	log.Info("exit", "code", code)
	return code
}

// splitWrap takes `--wrap CMD ARGS…` (or -wrap) off the end of serve's
// arguments: everything after it is the wrapped server's command line.
// ok is false when --wrap names no command.
func splitWrap(args []string) (flags, wrap []string, ok bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--wrap" || a == "-wrap" {
			if i+1 == len(args) {
				return nil, nil, false
			}
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, true
}

func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log file: %w", err)
	}
	return f, nil
}

// serveConn is the editor's connection: the process's own stdin and
// stdout through framing.OpenStdio (pipes read and written without
// blocking; restore puts their mode back), or the streams as given.
func serveConn(stdin io.Reader, stdout io.Writer) (conn io.ReadWriteCloser, restore func()) {
	in, ok := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	if !ok || !ok2 {
		return stdio{stdin, stdout}, func() {}
	}
	s := framing.OpenStdio(in, out)
	return s, s.Restore
}

// stdio joins stdin and stdout into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes stdin so the reader stops; stdout stays for the last words.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
