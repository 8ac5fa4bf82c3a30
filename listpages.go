package gatehouse

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// filteredToolsPage is the tools/list result the caller may see: the page
// next returned, without the tools the policy, trust or scopes hide. go-sdk's
// cursor is the name of the page's last tool (base64 of gob, not sealed), so
// a page that ends with a hidden tool would hand its name to the caller in
// nextCursor. Such a page is joined with the pages after it, read through
// next, until one ends with a tool the caller sees or the list ends: the
// cursor sent always names a listed tool. A page that cannot be read ends
// the list there (its cursor is not sent): a shorter list, never a leak.
func (g *Guard) filteredToolsPage(ctx context.Context, method string, req mcp.Request, srv *served, next mcp.MethodHandler, r *mcp.ListToolsResult, agent string) mcp.Result {
	filter := func(p *mcp.ListToolsResult) mcp.Result {
		return g.scopeList(g.pinList(srv, g.listTools(ctx, p, agent)), req)
	}
	res := filter(r)
	lr, ok := res.(*mcp.ListToolsResult)
	lreq, isList := req.(*mcp.ListToolsRequest)
	for page := 1; ok && isList && r.NextCursor != "" && !endsShown(r, lr); page++ {
		out := *lr
		out.NextCursor = ""
		if page >= maxIndexPages {
			return &out
		}
		q := *lreq
		params := mcp.ListToolsParams{}
		if lreq.Params != nil {
			params = *lreq.Params
		}
		params.Cursor = r.NextCursor
		q.Params = &params
		nres, err := next(ctx, method, &q)
		nr, isPage := nres.(*mcp.ListToolsResult)
		if err != nil || !isPage || nr == nil {
			return &out
		}
		more, isRes := filter(nr).(*mcp.ListToolsResult)
		if !isRes || more == nil {
			return &out
		}
		out.Tools = append(append([]*mcp.Tool(nil), out.Tools...), more.Tools...)
		out.NextCursor = nr.NextCursor
		out.CacheScope = more.CacheScope
		r, lr, res = nr, &out, &out
	}
	return res
}

// endsShown reports whether the last tool of the page as the server
// listed it is among the tools shown (by name: pinning may show a copy).
func endsShown(page, shown *mcp.ListToolsResult) bool {
	if len(page.Tools) == 0 || page.Tools[len(page.Tools)-1] == nil {
		return false
	}
	last := page.Tools[len(page.Tools)-1].Name
	for _, t := range shown.Tools {
		if t != nil && t.Name == last {
			return true
		}
	}
	return false
}
