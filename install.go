package gatehouse

import (
	"runtime"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// installOnce panics when g is already installed on s. Both layers of a
// Guard installed twice would decide each call (charging its budget, rate
// limits and steps twice), and the inner one would take AddTool's marks
// out of the listing the outer one reads, refusing its asks. The servers
// are held weakly, and each entry goes when its server is collected, so a
// server built per request is not kept alive.
func (g *Guard) installOnce(s *mcp.Server) {
	wp := weak.Make(s)
	if _, dup := g.installed.LoadOrStore(wp, struct{}{}); dup {
		panic("gatehouse: Install: this Guard is already installed on this server; install it once (each layer would decide every call again)")
	}
	runtime.AddCleanup(s, func(wp weak.Pointer[mcp.Server]) { g.installed.Delete(wp) }, wp)
}
