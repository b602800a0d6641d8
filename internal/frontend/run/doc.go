// Package run is the headless front-end (agentls run): one agent turn on a
// workspace without an editor. Its asker is the terminal when there is
// one; it prints the answer, or every event as a JSON line for scripts.
// Like the LSP and ACP front-ends it constructs none of the session's
// pieces: the command line makes the app and opens the environment.
package run
