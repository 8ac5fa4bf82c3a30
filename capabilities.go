package gatehouse

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpcaps"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// featureMethods are the methods behind each optional server capability.
// A capability is advertised only while the policy allows at least one of
// its methods: a client that sees "logging" calls logging/setLevel at once,
// and MCP Inspector stops at the "Method not allowed" it gets back.
var featureMethods = struct{ logging, prompts, resources, completions, tools []string }{
	logging:     []string{"logging/setLevel"},
	prompts:     []string{"prompts/list", "prompts/get"},
	resources:   []string{"resources/list", "resources/read", "resources/templates/list"},
	completions: []string{"completion/complete"},
	tools:       []string{"tools/list", "tools/call"},
}

// allowsAny reports whether the policy lets at least one of methods through
// (an allowed or monitored method).
func (g *Guard) allowsAny(methods []string) bool {
	for _, m := range methods {
		if g.p.EvaluateMethod(m).Outcome == policy.Allow {
			return true
		}
	}
	return false
}

// advertise makes the capabilities of an initialize or server/discover
// result match what the guard lets through, and declares verified approval
// when it is served. The result's capabilities are copied, never changed in
// place.
func (g *Guard) advertise(res mcp.Result) {
	var caps **mcp.ServerCapabilities
	switch r := res.(type) {
	case *mcp.InitializeResult:
		caps = &r.Capabilities
	case *mcp.DiscoverResult:
		caps = &r.Capabilities
	default:
		return
	}
	c := mcpcaps.Copy(*caps)
	f := featureMethods
	if c.Logging != nil && !g.allowsAny(f.logging) {
		c.Logging = nil
	}
	if c.Prompts != nil && !g.allowsAny(f.prompts) {
		c.Prompts = nil
	}
	if c.Resources != nil && !g.allowsAny(f.resources) {
		c.Resources = nil
	}
	if c.Resources != nil && c.Resources.Subscribe && !g.allowsAny([]string{"resources/subscribe"}) {
		c.Resources.Subscribe = false
	}
	if c.Completions != nil && !g.allowsAny(f.completions) {
		c.Completions = nil
	}
	if c.Tools != nil && !g.allowsAny(f.tools) {
		c.Tools = nil
	}
	*caps = c
	if g.o.Approval != nil {
		g.o.Approval.Server.Advertise(res)
	}
}

// listTools filters a tools/list result: tools the policy can never allow
// are hidden (unless ShowAllTools), and a suspended agent (trust levels)
// sees none. A list that depends on who asks is marked cacheScope
// "private" (MCP 2026-07-28), so no shared cache hands it to another
// caller. The server's result is never changed in place.
func (g *Guard) listTools(ctx context.Context, r *mcp.ListToolsResult, agent string) *mcp.ListToolsResult {
	kept := withoutMarker(r.Tools)
	if !g.o.ShowAllTools {
		kept = make([]*mcp.Tool, 0, len(r.Tools))
		for _, t := range withoutMarker(r.Tools) {
			if t != nil && g.mayList(t) {
				kept = append(kept, t)
			}
		}
	}
	perCaller := g.o.Trust != nil
	if perCaller && g.suspended(ctx, agent) {
		kept = []*mcp.Tool{}
	}
	if len(kept) == len(r.Tools) && !perCaller && (len(kept) == 0 || &kept[0] == &r.Tools[0]) {
		return r
	}
	c := *r
	c.Tools = kept
	if perCaller {
		c.CacheScope = "private"
	}
	return &c
}

// suspended reports whether the agent's trust level is suspended; a store
// error hides nothing here (the call itself is still checked).
func (g *Guard) suspended(ctx context.Context, agent string) bool {
	level, err := g.o.Trust.Store.Level(ctx, agent)
	return err == nil && level == trust.Suspended
}
