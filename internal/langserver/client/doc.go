// Package client runs real language servers (gopls, pyright, clangd,
// typescript-language-server, rust-analyzer, …) on behalf of agentls's
// lsp_* tools, and keeps them seeing the same text the agent sees.
//
// A Manager starts one server process per (project root, server) lazily,
// the first time a file of its type is used, restarts it after a crash
// (a bounded number of times) and shuts everything down at exit. A Client
// is one such server; its methods take and return 1-based lines and
// columns counted in Unicode code points, and convert to and from the
// position encoding the server negotiated (UTF-16 unless it picked UTF-8
// or UTF-32) against the exact text the server was sent.
//
// Servers holds a workspace's Manager over its life: built on first use
// from the configuration read then, replaced when the configuration
// changes, shut down once (servers.go); it finds which languages a
// workspace holds (discover.go) and, starting nothing, which server would
// answer for each (coverage.go), and checks a server's edits against the
// text they were computed on before they are applied (edits.go). What it
// needs of the workspace comes as a Workspace (files as the agent sees
// them) and a Walk function, never as the tools' own types.
//
// In a workspace folder the person has not trusted (Config.Trusted), a
// server starts in its safe form, which runs no program from the folder,
// or not at all (trust.go, safe.go).
//
// The package is the client side only: it must not import the
// editor-facing server (package lsp), the agent or the tools
// (TestImportRule).
package client
