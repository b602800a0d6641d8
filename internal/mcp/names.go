package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

// maxToolName is the longest tool name the model APIs accept.
const maxToolName = 64

// toolName is the name a server's tool is offered under:
// mcp_{server}_{tool}, with every character the APIs refuse (outside
// [a-zA-Z0-9_-]) replaced by "_"; a name over 64 characters keeps its
// start and gets a hash of the whole, so it stays distinct.
func toolName(server, tool string) string {
	name := "mcp_" + server + "_" + replaceOutside(tool, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
	})
	if len(name) <= maxToolName {
		return name
	}
	return name[:maxToolName-9] + "_" + shortHash(server+"\x00"+tool)
}

// capabilityOf is the capability of a server's tool: mcp.{server}.{tool},
// lowercased, the tool's dots kept as segments (rules such as
// mcp.github.* match whole segments) and other characters a capability
// cannot hold replaced by "_".
func capabilityOf(server, tool string) permission.Capability {
	segs := strings.Split(strings.ToLower(tool), ".")
	for i, s := range segs {
		s = replaceOutside(s, func(r rune) bool {
			return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		})
		if s == "" || s[0] == '-' {
			s = "_" + s
		}
		segs[i] = s
	}
	c := permission.Capability("mcp." + server + "." + strings.Join(segs, "."))
	if !c.Valid() { // unreachable for a valid server name; fail safe
		c = permission.Capability("mcp." + server + ".tool_" + shortHash(tool))
	}
	return c
}

// Capabilities of the resource tools: listing every server's resources,
// and listing or reading one server's.
func listAllCapability() permission.Capability { return "mcp.list_resources" }

func listCapability(server string) permission.Capability {
	return permission.Capability("mcp." + server + ".list_resources")
}

func readCapability(server string) permission.Capability {
	return permission.Capability("mcp." + server + ".read_resource")
}

func replaceOutside(s string, ok func(rune) bool) string {
	var b strings.Builder
	for _, r := range s {
		if ok(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
