// Package mcpcaps copies go-sdk server capabilities, for the root
// middleware and approval/approvalmcp alike (the root must not import
// approvalmcp: it would link WebAuthn into every program).
package mcpcaps

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Copy returns a copy of c whose maps and member structs are its own (nil
// gives an empty value), so a result can be changed without mutating the
// server's own capabilities.
func Copy(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	out := &mcp.ServerCapabilities{}
	if c == nil {
		return out
	}
	*out = *c
	out.Extensions = cloneMap(c.Extensions)
	out.Experimental = cloneMap(c.Experimental)
	if c.Resources != nil {
		r := *c.Resources
		out.Resources = &r
	}
	return out
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
