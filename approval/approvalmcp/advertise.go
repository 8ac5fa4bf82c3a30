package approvalmcp

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpcaps"
)

// Advertise declares extensions.verifiedApproval (SEP-2672 §4.3) in an
// initialize or server/discover result, for middleware that serves approval
// on a server whose ServerOptions it does not own; other results are left
// as they are. The result's capabilities are copied before the change, so
// the server's own values are never mutated.
func Advertise(res mcp.Result) {
	caps := capabilitiesOf(res)
	if caps == nil {
		return
	}
	c := CopyCapabilities(*caps)
	AddCapability(c)
	*caps = c
}

// CopyCapabilities returns a copy of c whose maps and member structs are
// its own (nil gives an empty value).
func CopyCapabilities(c *mcp.ServerCapabilities) *mcp.ServerCapabilities { return mcpcaps.Copy(c) }

// capabilitiesOf points at the capabilities of an initialize or
// server/discover result, nil for any other result.
func capabilitiesOf(res mcp.Result) **mcp.ServerCapabilities {
	switch r := res.(type) {
	case *mcp.InitializeResult:
		return &r.Capabilities
	case *mcp.DiscoverResult:
		return &r.Capabilities
	}
	return nil
}
