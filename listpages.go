package gatehouse

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
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
	for page := 1; ok && isList && r.NextCursor != "" && (!endsShown(r, lr) || g.cursorHolds(r.NextCursor)); page++ {
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

// cursorHolds reports whether a page's nextCursor, decoded, holds a
// secret: go-sdk's cursor is base64 of the gob of the last item's id.
func (g *Guard) cursorHolds(cursor string) bool {
	return g.dlp != nil && mcpredact.CursorHolds(g.dlp, cursor)
}

// cleanCursorPage is the page of resources/list, resources/templates/list
// or prompts/list to send: one whose nextCursor would carry a secret (the
// URI of its last resource: "postgres://admin:pw@db/app") is joined with
// the pages after it, read through next, until its cursor holds none or
// the list ends: every item is sent (redacted where it holds the
// secret) and the cursor never is. A page that cannot be read ends the
// list there, without the cursor.
func (g *Guard) cleanCursorPage(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler, res mcp.Result) mcp.Result {
	switch r := res.(type) {
	case *mcp.ListResourcesResult:
		return joinPages(ctx, g, method, req, next, r, func(p *mcp.ListResourcesResult) *string { return &p.NextCursor },
			func(dst, src *mcp.ListResourcesResult) {
				dst.Resources = append(slices.Clip(dst.Resources), src.Resources...)
			},
			func(q mcp.Request, c string) mcp.Request {
				return withCursor(q, c, func(p *mcp.ListResourcesParams, c string) { p.Cursor = c })
			})
	case *mcp.ListResourceTemplatesResult:
		return joinPages(ctx, g, method, req, next, r, func(p *mcp.ListResourceTemplatesResult) *string { return &p.NextCursor },
			func(dst, src *mcp.ListResourceTemplatesResult) {
				dst.ResourceTemplates = append(slices.Clip(dst.ResourceTemplates), src.ResourceTemplates...)
			},
			func(q mcp.Request, c string) mcp.Request {
				return withCursor(q, c, func(p *mcp.ListResourceTemplatesParams, c string) { p.Cursor = c })
			})
	case *mcp.ListPromptsResult:
		return joinPages(ctx, g, method, req, next, r, func(p *mcp.ListPromptsResult) *string { return &p.NextCursor },
			func(dst, src *mcp.ListPromptsResult) { dst.Prompts = append(slices.Clip(dst.Prompts), src.Prompts...) },
			func(q mcp.Request, c string) mcp.Request {
				return withCursor(q, c, func(p *mcp.ListPromptsParams, c string) { p.Cursor = c })
			})
	}
	return res
}

// joinPages is cleanCursorPage for one result type R: cursor points at a
// page's nextCursor, join appends a page's items to a copy's, and again
// is the request for the page at a cursor (nil when req is not one).
func joinPages[R interface {
	mcp.Result
	*T
}, T any](ctx context.Context, g *Guard, method string, req mcp.Request, next mcp.MethodHandler, r R,
	cursor func(R) *string, join func(dst, src R), again func(mcp.Request, string) mcp.Request) mcp.Result {
	if r == nil || !g.cursorHolds(*cursor(r)) {
		return r
	}
	out := R(new(T))
	*out = *r
	for page := 1; g.cursorHolds(*cursor(out)); page++ {
		q := again(req, *cursor(out))
		if page >= maxIndexPages || q == nil {
			*cursor(out) = ""
			break
		}
		nres, err := next(ctx, method, q)
		nr, ok := nres.(R)
		if err != nil || !ok || nr == nil {
			*cursor(out) = ""
			break
		}
		join(out, nr)
		*cursor(out) = *cursor(nr)
	}
	return out
}

// withCursor returns a copy of req (a *mcp.ServerRequest[P]) asking for
// the page at cursor, or nil when req is not one.
func withCursor[P any, PP interface {
	*P
	mcp.Params
}](req mcp.Request, cursor string, set func(PP, string)) mcp.Request {
	q, ok := req.(*mcp.ServerRequest[PP])
	if !ok || q == nil {
		return nil
	}
	cp := *q
	p := PP(new(P))
	if q.Params != nil {
		*p = *q.Params
	}
	set(p, cursor)
	cp.Params = p
	return &cp
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
