package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/config/trust"
	"github.com/agentls/agentls/internal/permission"
)

// WorkspaceFile is the per-root settings file. It is untrusted unless the
// user file's trusted_workspaces trusts its root (package trust).
const WorkspaceFile = ".agentls.json"

// Flags are the command-line settings that reach Resolve.
type Flags struct {
	// Mode is --mode; empty when not given.
	Mode string
	// Yolo is --yolo: auto mode.
	Yolo bool
}

// Warning is a setting that was ignored or overridden. Resolve returns
// warnings as data; the server shows each once in the editor.
type Warning struct {
	// Source is where the setting came from: a file path, "editor
	// settings" or a flag.
	Source  string `json:"source"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// String is the one-line form shown in the editor and logs.
func (w Warning) String() string {
	return fmt.Sprintf("%s: %s: %s", w.Source, w.Key, w.Message)
}

// Resolve merges every settings source into one config. It is pure: no
// file or environment is read.
//
// Precedence, highest first: flags, editor settings, trusted workspace
// files, the user file. A workspace file whose root is not trusted by
// trusted (the user file's trusted_workspaces, under the one rule of
// package trust: the folder itself, or a parent written "DIR/**") may
// only tighten: its deny rules, its ask rules (as ask_always), its
// ask_always entries, a stricter mode and inspectors switched on apply;
// everything looser is ignored with a warning. Any workspace file's
// stricter mode applies whatever the other sources say. Path-scoped keys of
// a workspace file are anchored to its root. Invalid input is an error
// naming its source.
func Resolve(user, editor Config, flags Flags, workspace map[string]Config, trusted []string) (Config, []Warning, error) {
	var warns []Warning
	warn := func(src, key, format string, args ...any) {
		warns = append(warns, Warning{Source: src, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if err := user.Validate(); err != nil {
		return Config{}, nil, fmt.Errorf("user config: %w", err)
	}
	if err := editor.Validate(); err != nil {
		return Config{}, nil, fmt.Errorf("editor settings: %w", err)
	}
	flagMode := flags.Mode
	if flagMode != "" {
		if _, err := permission.ParseMode(flagMode); err != nil {
			return Config{}, nil, fmt.Errorf("--mode: %w", err)
		}
	}
	if flags.Yolo {
		if flagMode != "" && flagMode != string(permission.ModeAuto) {
			return Config{}, nil, fmt.Errorf("--yolo means --mode auto and conflicts with --mode %s: give one of them", flagMode)
		}
		flagMode = string(permission.ModeAuto)
	}
	for _, t := range trusted {
		if err := trust.Validate(t); err != nil {
			return Config{}, nil, err
		}
	}
	if len(editor.TrustedWorkspaces) > 0 {
		warn("editor settings", "trusted_workspaces", "ignored: only the user config file can trust a workspace")
		editor.TrustedWorkspaces = nil
	}
	if !editor.Sandbox.IsZero() {
		warn("editor settings", "sandbox", "ignored: only the user config file sets the sandbox")
		editor.Sandbox = Sandbox{}
	}
	if !editor.Checkpoints.IsZero() {
		warn("editor settings", "checkpoints", "ignored: only the user config file sets the checkpoints")
		editor.Checkpoints = Checkpoints{}
	}
	editor.MCP = maps.Clone(editor.MCP)
	editor.MCP.fromSource("editor settings", "")

	roots := slices.Sorted(mapKeys(workspace))
	var trustedLayer Config
	var untrusted []string
	for _, root := range roots {
		ws := workspace[root]
		src := filepath.Join(root, WorkspaceFile)
		if !filepath.IsAbs(root) {
			return Config{}, nil, fmt.Errorf("workspace root %q is not an absolute path", root)
		}
		if err := ws.Validate(); err != nil {
			return Config{}, nil, fmt.Errorf("%s: %w", src, err)
		}
		if len(ws.TrustedWorkspaces) > 0 {
			warn(src, "trusted_workspaces", "ignored: only the user config file can trust a workspace")
		}
		if !ws.Sandbox.IsZero() {
			warn(src, "sandbox", "ignored: only the user config file sets the sandbox")
		}
		if !ws.Checkpoints.IsZero() {
			warn(src, "checkpoints", "ignored: only the user config file sets the checkpoints")
		}
		if trust.Trusted(root, trusted) {
			ws.TrustedWorkspaces = nil
			ws.Permissions.Rules, ws.Permissions.AskAlways = anchorRules(ws.Permissions.Rules, root), anchorKeys(ws.Permissions.AskAlways, root)
			trustedLayer = Merge(trustedLayer, ws)
			continue
		}
		untrusted = append(untrusted, root)
	}

	user.TrustedWorkspaces = nil
	out := Merge(Merge(Merge(user, trustedLayer), editor), Config{Permissions: Permissions{Mode: flagMode}})
	out.TrustedWorkspaces = cleanAll(trusted)
	// Merge may hand back the user's own rules map; tightening writes to it.
	out.Permissions.Rules = maps.Clone(out.Permissions.Rules)

	// Tightening from every workspace file; loosening from untrusted ones
	// is dropped with a warning.
	for _, root := range roots {
		ws := workspace[root]
		src := filepath.Join(root, WorkspaceFile)
		wsTrusted := !slices.Contains(untrusted, root)
		if m := ws.Permissions.Mode; m != "" {
			cur := effectiveMode(out.Permissions.Mode)
			wm, _ := permission.ParseMode(m)
			switch {
			case wm.Strictness() > cur.Strictness():
				out.Permissions.Mode = m
				warn(src, "permissions.mode", "%s is stricter than %s and applies", m, cur)
			case wm.Strictness() < cur.Strictness() && !wsTrusted:
				warn(src, "permissions.mode", "%s is ignored: the workspace is not trusted and may only make the mode stricter than %s", m, cur)
			}
		}
		if wsTrusted {
			continue
		}
		tightenFrom(&out.Permissions, ws, root, src, warn)
	}
	return out, warns, nil
}

// tightenFrom applies what an untrusted workspace file may change: it only
// ever makes decisions stricter.
func tightenFrom(p *Permissions, ws Config, root, src string, warn func(src, key, format string, args ...any)) {
	wp := ws.Permissions
	for _, k := range slices.Sorted(mapKeys(wp.Rules)) {
		key := anchorKey(k, root)
		switch wp.Rules[k] {
		case string(permission.Deny):
			// A deny added to the table never loosens: it either wins
			// (stricter) or loses to a more specific user rule.
			if p.Rules == nil {
				p.Rules = map[string]string{}
			}
			p.Rules[key] = string(permission.Deny)
		case string(permission.Ask):
			// As ask_always: an ask rule in the table could outrank a
			// user's broader deny and loosen it.
			p.AskAlways = union(p.AskAlways, []string{key})
		default:
			warn(src, fmt.Sprintf("permissions.rules[%q]", k), "%s is ignored: the workspace is not trusted and may only add deny or ask rules", wp.Rules[k])
		}
	}
	if len(wp.AskAlways) > 0 {
		p.AskAlways = union(p.AskAlways, anchorKeys(wp.AskAlways, root))
	}
	if len(wp.AllowedTools) > 0 {
		warn(src, "permissions.allowed_tools", "ignored: the workspace is not trusted")
	}
	if wp.AskTimeout != "" {
		warn(src, "permissions.ask_timeout", "ignored: the workspace is not trusted")
	}
	in := wp.Inspectors
	onOff := func(key string, v *bool, cur **bool, def bool) {
		switch {
		case v == nil:
		case *v:
			*cur = ptr(true)
		case *cur == nil && def || *cur != nil && **cur:
			warn(src, "permissions.inspectors."+key, "false is ignored: the workspace is not trusted and may only switch inspectors on")
		}
	}
	onOff("security", in.Security, &p.Inspectors.Security, true)
	onOff("egress", in.Egress, &p.Inspectors.Egress, true)
	onOff("adversary", in.Adversary, &p.Inspectors.Adversary, false)
	if r := in.Repetition; r != nil {
		cur := permission.DefaultRepetition
		if p.Inspectors.Repetition != nil {
			cur = *p.Inspectors.Repetition
		}
		switch {
		case *r > 0 && (cur == 0 || *r < cur):
			p.Inspectors.Repetition = ptr(*r)
		case *r == 0 && cur != 0 || *r > cur && cur != 0:
			warn(src, "permissions.inspectors.repetition", "%d is ignored: the workspace is not trusted and may only lower the limit", *r)
		}
	}
	if ws.Model != "" || len(ws.Providers) > 0 || ws.MaxSteps != 0 {
		warn(src, "model, providers, max_steps", "ignored: the workspace is not trusted")
	}
	if !ws.Completion.IsZero() {
		warn(src, "completion", "ignored: the workspace is not trusted, and its model is where your code would be sent")
	}
	if len(ws.SubagentTools) > 0 {
		warn(src, "subagent_tools", "ignored: the workspace is not trusted")
	}
	if hasLSP(ws) {
		warn(src, "lsp, auto_lsp", "ignored: the workspace is not trusted, and a language server is a program agentls would run")
	}
	for _, w := range mcpWarnings(ws.MCP) {
		warn(w.Source, w.Key, "%s", w.Message)
	}
}

func effectiveMode(s string) permission.Mode {
	m, err := permission.ParseMode(s)
	if err != nil {
		return permission.ModeChat // unreachable after Validate; fail closed
	}
	return m
}

func cleanAll(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Clean(p)
	}
	return out
}

// anchorKey rewrites a relative path-scoped key of a workspace file into an
// absolute one under its root, so it cannot reach other roots.
func anchorKey(key, root string) string {
	k, err := permission.ParseRuleKey(key)
	if err != nil || !k.PathScoped() {
		return key
	}
	capPart, scope, _ := strings.Cut(key, ":")
	scope = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(scope)), "./")
	return capPart + ":" + escapeGlob(filepath.ToSlash(filepath.Clean(root))) + "/" + scope
}

func anchorKeys(keys []string, root string) []string {
	if len(keys) == 0 {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = anchorKey(k, root)
	}
	return out
}

func anchorRules(rules map[string]string, root string) map[string]string {
	if len(rules) == 0 {
		return nil
	}
	out := make(map[string]string, len(rules))
	for k, v := range rules {
		out[anchorKey(k, root)] = v
	}
	return out
}

// escapeGlob quotes the glob metacharacters of a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// LoadWorkspaces reads each root's .agentls.json, and the MCP servers of
// its .mcp.json (config/mcpjson.go). A missing file is skipped; a file
// that cannot be read or parsed yields approve mode for that root and a
// warning, so a broken file never drops its denies silently.
func LoadWorkspaces(roots []string) (map[string]Config, []Warning) {
	out := map[string]Config{}
	var warns []Warning
	for _, root := range roots {
		warns = append(warns, loadWorkspace(out, root)...)
	}
	return out, warns
}

// loadWorkspace reads one root's files into out[root].
func loadWorkspace(out map[string]Config, root string) []Warning {
	var warns []Warning
	path := filepath.Join(root, WorkspaceFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err == nil:
		var c Config
		if c, err = Parse(path, data); err == nil {
			c.MCP.fromSource(path, root)
			out[root] = c
			break
		}
		fallthrough
	default:
		out[root] = Config{Permissions: Permissions{Mode: string(permission.ModeApprove)}}
		warns = append(warns, Warning{Source: path, Key: "(file)",
			Message: fmt.Sprintf("cannot be used (%v); approve mode applies until it is fixed", err)})
	}
	c, ok, more := withProjectMCP(out[root], root)
	if ok {
		out[root] = c
	}
	return append(warns, more...)
}
