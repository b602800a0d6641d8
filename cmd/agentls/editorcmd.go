package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// editorFlags are the flags of the commands an editor starts (serve,
// acp).
type editorFlags struct {
	model, mode, logFile, logLevel *string
	yolo, verbose                  *bool
}

// addEditorFlags registers them on fs; modelHelp and modeHelp say where
// the command's other settings come from.
func addEditorFlags(fs *flag.FlagSet, modelHelp, modeHelp string) editorFlags {
	return editorFlags{
		model:    fs.String("model", "", modelHelp),
		mode:     fs.String("mode", "", modeHelp),
		yolo:     fs.Bool("yolo", false, "auto mode: run every call that is not hard-blocked without asking"),
		logFile:  fs.String("log-file", "", "log file (default: agentls.log in the user's state dir; - for stderr)"),
		logLevel: fs.String("log-level", "info", "how much the log file gets: debug, info, warn or error"),
		verbose:  fs.Bool("verbose", false, "log debug messages (--log-level debug)"),
	}
}

// parseEditorArgs parses the flags of a command that takes no arguments;
// done says the command ends with code (0 for --help, 2 for bad usage).
func parseEditorArgs(fs *flag.FlagSet, args []string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		return flagExit(err), true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "agentls %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	return 0, false
}

// openEditorApp makes the composition root of a command an editor starts.
// Its stdout is the protocol; the log goes to the log file, and to stderr
// only from stderrLevel up (ACP clients show every stderr line as an
// error; Neovim files it as one): stderrOff for none. A broken config
// file must not stop the editor's server: it is logged and the defaults
// apply (asks and sessions say what is missing). It fails (exit 2 for a
// bad flag, 1 when the user's folders cannot be found) before anything
// starts, saying so on stderr.
func openEditorApp(stderr io.Writer, f editorFlags, stderrLevel slog.Level) (*app.App, *slog.Logger, func(), int) {
	level, err := logLevel(*f.logLevel, *f.verbose)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return nil, nil, func() {}, 2
	}
	dirs, err := config.UserDirs()
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return nil, nil, func() {}, 1
	}
	log, closeLog := newLogger(dirs, *f.logFile, level, stderr, stderrLevel)
	a, _, err := newApp(log, appFlags{model: *f.model, mode: *f.mode, yolo: *f.yolo})
	if err != nil {
		log.Error("config file ignored", "error", err)
	}
	return a, log, closeLog, 0
}

// logLevel reads --log-level; --verbose is --log-level debug.
func logLevel(name string, verbose bool) (slog.Level, error) {
	if verbose {
		return slog.LevelDebug, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(name)); err != nil {
		return 0, fmt.Errorf("--log-level %q: use debug, info, warn or error", name)
	}
	return l, nil
}
