package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/lsp"
)

func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: agentls serve [--stdio] [flags]\n\nRuns the language server on stdin/stdout. Editors start it like any language server.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.Bool("stdio", true, "use stdin/stdout (the only transport; accepted for editors that pass it)")
	model := fs.String("model", "", "model as provider:model (overrides the editor, AGENTLS_MODEL and the config file)")
	mode := fs.String("mode", "", "permission mode: chat, approve, smart or auto")
	yolo := fs.Bool("yolo", false, "auto mode: run every call that is not hard-blocked without asking")
	logFile := fs.String("log-file", "", "log file (default: agentls.log in the user's state dir)")
	verbose := fs.Bool("verbose", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	dirs, err := config.UserDirs()
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 1
	}
	// The editor shows the server's stderr in its log: everything goes
	// there and to the log file.
	log, closeLog := newLogger(dirs, *logFile, *verbose, stderr, slog.LevelDebug)
	defer closeLog()
	a, _, err := newApp(log, appFlags{model: *model, mode: *mode, yolo: *yolo})
	if err != nil {
		// A broken config file must not stop the editor's server: log it
		// and go on with defaults; asks will say what is missing.
		log.Error("config file ignored", "error", err)
	}
	code := lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{Name: "agentls", Version: Version, App: a})
	log.Info("exit", "code", code)
	return code
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
