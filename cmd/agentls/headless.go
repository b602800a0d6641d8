package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
)

// appFlags are the command-line settings every front-end passes to the
// composition root.
type appFlags struct {
	model, mode string
	yolo        bool
}

// newApp loads the user's folders and config file and makes the
// composition root with log as every front-end's logger. A config file
// that does not load is an error for the caller to show.
func newApp(log *slog.Logger, f appFlags) (*app.App, config.Dirs, error) {
	dirs, err := config.UserDirs()
	if err != nil {
		return nil, dirs, err
	}
	user, err := config.Load(dirs.File())
	a := app.New(app.Options{
		Log: log, Config: user, ConfigPath: dirs.File(), ConfigErr: err, StateDir: dirs.State, DataDir: dirs.Data,
		ModelFlag: f.model, ModeFlag: f.mode, Yolo: f.yolo, Version: Version,
	})
	return a, dirs, err
}

// stderrOff is a stderr level nothing reaches: ACP clients take every
// stderr line for an error of the agent.
const stderrOff = slog.Level(1 << 10)

// newLogger is the logger of every command: the log file in the user's
// state folder (or logFile; "-" is stderr) from level up, and stderr from
// stderrLevel up as well.
func newLogger(dirs config.Dirs, logFile string, level slog.Level, stderr io.Writer, stderrLevel slog.Level) (*slog.Logger, func()) {
	if logFile == "-" {
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), func() {}
	}
	path := logFile
	if path == "" {
		path = filepath.Join(dirs.State, "agentls.log")
	}
	var handlers []slog.Handler
	if stderrLevel < stderrOff {
		handlers = append(handlers, slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: max(level, stderrLevel)}))
	}
	closeFn := func() {}
	if f, err := openLog(path); err != nil {
		// Said once, even where stderr is otherwise quiet: nothing else
		// would tell that nothing is logged.
		fmt.Fprintf(stderr, "agentls: no log file: %v\n", err)
	} else {
		handlers = append(handlers, slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}))
		closeFn = func() { f.Close() }
	}
	return slog.New(slog.NewMultiHandler(handlers...)), closeFn
}

// headlessApp is the composition root of a command without an editor:
// warnings reach stderr, everything the log file. A config file that does
// not load is an error: a command line can say what to fix.
func headlessApp(stderr io.Writer, f appFlags) (*app.App, func(), error) {
	dirs, err := config.UserDirs()
	if err != nil {
		return nil, func() {}, err
	}
	log, closeLog := newLogger(dirs, "", slog.LevelInfo, stderr, slog.LevelWarn)
	a, _, err := newApp(log, f)
	if err != nil {
		closeLog()
		return nil, func() {}, err
	}
	return a, closeLog, nil
}

// openHeadless opens the environment of a workspace folder for a command
// without an editor. Errors say what to fix; usage errors exit 2.
func openHeadless(a *app.App, workspace string) (*app.Env, error) {
	if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("--workspace %s is not a directory", workspace)}
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, usageError{err}
	}
	env, err := a.Open(app.Frontend{Roots: []string{abs}, AskTrust: trustNotice(os.Stderr)})
	if err != nil {
		return nil, usageError{err}
	}
	return env, nil
}

// headlessEnv is headlessApp then openHeadless: the environment of a
// command without an editor, and what closes it (the environment, then
// the log). exitCode gives the exit status of its error.
func headlessEnv(stderr io.Writer, f appFlags, workspace string) (*app.Env, func(), error) {
	a, closeLog, err := headlessApp(stderr, f)
	if err != nil {
		return nil, nil, err
	}
	env, err := openHeadless(a, workspace)
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	return env, func() {
		env.Close()
		closeLog()
	}, nil
}

// exitCode is the exit status of a command that failed to start: 2 for
// a usageError, 1 for anything else.
func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// trustNotice tells the person on stderr, once per server and folder,
// that a language server runs in its safe form (or not at all) because
// the folder is not trusted, and how to trust it.
func trustNotice(w io.Writer) func(client.TrustRequest) {
	var mu sync.Mutex
	told := map[string]bool{}
	return func(r client.TrustRequest) {
		mu.Lock()
		defer mu.Unlock()
		if key := r.Server + "\x00" + r.Folder; !told[key] {
			told[key] = true
			fmt.Fprintf(w, "agentls: %s would run code from %s (%s), which is not trusted. %s Trust it with `agentls trust %s`.\n", r.Server, r.Folder, r.Code, r.Meanwhile, r.Folder)
		}
	}
}

// usageError marks errors that are the caller's to fix (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }
