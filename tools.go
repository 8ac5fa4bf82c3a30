package gatehouse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// elicitMarker is the _meta key AddTool puts on its tools, with the
// Guard's token as value: the index finds AddTool's tools on each server
// by it, and tools/list results leave it out.
const elicitMarker = "io.github.gatehouse-dev/elicit"

// Bounds of a tools/list walk.
const (
	maxIndexPages    = 1000
	maxIndexTools    = 100_000
	collisionMessage = "Several tools of this server have names that normalize to %q (%s), so the policy cannot tell which one is called; the call was denied. Rename the tools so that their normalized names differ"
)

// served is the Guard's state for one server it is installed on, held by
// that server's middleware (so a server the application drops is not kept
// alive by the Guard).
type served struct {
	index toolIndex
	info  serverInfo
	guard *Guard // the Guard whose middleware holds this state
}

// watch is the sending middleware that tells the index when the server
// announces a changed tool list.
func (s *served) watch(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			s.index.invalidate()
		}
		res, err := next(ctx, method, req)
		if err == nil {
			if werr := s.midCall(ctx, method); werr != nil {
				return nil, werr
			}
		}
		return res, err
	}
}

// toolIndex knows the exact names of a server's tools, grouped by their
// normalized name, so that a call is authorized for exactly the tool go-sdk
// dispatches: when two tools normalize to the same name, calls to either
// are denied. It also knows which tools AddTool registered with this
// Guard (by their marker, so a plain tool that replaced one never asks
// through elicitation) and each tool's definition as last listed, digested
// only where a digest is needed (a tool not pinned yet, an elicitation's
// binding): on go-sdk's stateless HTTP handler every request is a new
// session, so the list is read for every call.
//
// It reads the tools through the server's own tools/list handler (the
// middleware's next): at Install; whenever a call names a tool it has not
// seen; when the server announces a changed tool list; when a request
// comes from a session it has not read the list for; and before every ask
// through elicitation.
type toolIndex struct {
	token  string              // the Guard's elicitation marker
	server string              // the server's name and version, read at Install
	impl   *mcp.Implementation // the server's own, read at Install

	mu      sync.Mutex
	next    mcp.MethodHandler
	byNorm  map[string][]string  // normalized name -> exact names, sorted
	exact   map[string]*mcp.Tool // exact name -> definition as last listed
	elicit  map[string]bool      // exact names AddTool registered with this Guard
	dirty   bool
	session *mcp.ServerSession // the session of the last refresh
	last    []listedTool       // the last refresh's walk
	spare   []listedTool       // a buffer for the next walk
	// spareLen: how much of spare's array an older walk filled; what a
	// shorter walk leaves of it is cleared, so that definitions no longer
	// listed are not kept alive.
	spareLen int
	// allPinned: every tool of last is pinned (pinAllLocked), or pinning
	// is off; pins are never removed, so the same walk needs no new look.
	allPinned bool

	book     *pinBook           // the Guard's accepted digests (pinning.go)
	pinned   map[string]string  // normalized name -> pinned definition digest (pinning.go)
	lastJSON map[string]encoded // pinned name -> last encoding seen and its digest
}

func (x *toolIndex) setNext(next mcp.MethodHandler) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.next = next
}

// invalidate makes the next call read the list again.
func (x *toolIndex) invalidate() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dirty = true
}

// load reads the tools of s through a session of its own, at Install, and
// reports colliding names as an error.
func (x *toolIndex) load(s *mcp.Server) error {
	ctx := context.Background()
	_, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return fmt.Errorf("gatehouse: listing the server's tools: %w", err)
	}
	defer ss.Close()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.next == nil {
		return fmt.Errorf("gatehouse: the guard's middleware is not installed")
	}
	res, err := x.next(ctx, "initialize", &mcp.ServerRequest[*mcp.InitializeParams]{Session: ss, Params: &mcp.InitializeParams{
		ProtocolVersion: "2025-06-18", ClientInfo: &mcp.Implementation{Name: "gatehouse-index"}, Capabilities: &mcp.ClientCapabilities{}}})
	if ir, ok := res.(*mcp.InitializeResult); err == nil && ok && ir.ServerInfo != nil {
		x.server = ir.ServerInfo.Name + "\x00" + ir.ServerInfo.Version
		x.impl = ir.ServerInfo
	}
	if err := x.refreshLocked(ctx, ss); err != nil {
		return err
	}
	for norm, names := range x.byNorm {
		if len(names) > 1 {
			return fmt.Errorf("gatehouse: Install: tools %s all normalize to %q: the policy cannot tell them apart; rename them", strings.Join(quoteAll(names), ", "), norm)
		}
	}
	return nil
}

// check reports whether raw (normalized: tool) names exactly one tool of
// the server; when it names one of several colliding tools, or a spelling
// that is not registered while another is, it returns the denial. known
// says whether the server has a tool named exactly raw, as read now.
func (x *toolIndex) check(ctx context.Context, req *mcp.CallToolRequest, raw, tool string) (d policy.Decision, known, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ss, _ := req.GetSession().(*mcp.ServerSession)
	_, known = x.exact[raw]
	if (!known || x.dirty || ss != x.session) && x.next != nil && ss != nil {
		if err := x.refreshLocked(ctx, ss); err != nil {
			return internal(policy.MethodToolsCall, tool, "The server's tools could not be listed, so the call was denied"), known, false // as last read
		}
		_, known = x.exact[raw]
	}
	names := x.byNorm[tool]
	if len(names) > 1 && known {
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: fmt.Sprintf(collisionMessage, tool, strings.Join(quoteAll(names), ", ")), Method: policy.MethodToolsCall, Tool: tool}, known, false
	}
	if len(names) > 0 && !known {
		// go-sdk would answer "unknown tool"; say so before anything is
		// charged or asked.
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: CodeInvalidParams, Message: messageInvalidParams,
			Reason: fmt.Sprintf("No tool is registered under this exact name; the server's tool is %s", quoteAll(names[:1])[0]), Method: policy.MethodToolsCall, Tool: tool}, known, false
	}
	return policy.Decision{}, known, true
}

// elicits reads the list again and reports whether the tool registered
// under the exact name raw is one AddTool registered with this Guard, with
// what an approval of it binds: the server's name and version and the
// digest of the tool's definition.
func (x *toolIndex) elicits(ctx context.Context, req *mcp.CallToolRequest, raw string) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if x.next == nil || ss == nil || x.refreshLocked(ctx, ss) != nil {
		return "", false
	}
	// What an approval binds: this server, and the tool as defined now.
	return x.server + "\x00" + definitionDigest(x.exact[raw]), x.elicit[raw]
}

// refreshLocked lists the server's tools through next, page by page. A
// walk that lists the very same tools as the last one (the same
// definitions, names and markers, in the same order: a server's list read
// on another session) keeps the maps built from it.
func (x *toolIndex) refreshLocked(ctx context.Context, ss *mcp.ServerSession) error {
	if x.next == nil {
		return fmt.Errorf("gatehouse: the guard's middleware is not installed")
	}
	walk := x.spare[:0]
	err := eachListedTool(ctx, x.next, ss, func(t *mcp.Tool) (bool, error) {
		walk = append(walk, listedTool{t: t, name: t.Name, elicit: t.Meta[elicitMarker] == x.token})
		if len(walk) > maxIndexTools {
			return false, fmt.Errorf("gatehouse: the server lists more than %d tools", maxIndexTools)
		}
		return true, nil
	})
	if err != nil {
		clear(walk[:max(len(walk), x.spareLen)])
		x.spare, x.spareLen = walk[:0], 0
		return err
	}
	if len(walk) < x.spareLen {
		clear(walk[len(walk):x.spareLen]) // the older walk's tail
	}
	if x.exact == nil || !slices.Equal(walk, x.last) {
		x.buildLocked(walk)
		x.allPinned = false
	}
	x.spare, x.spareLen, x.last = x.last[:0], len(x.last), walk
	x.dirty, x.session = false, ss
	if !x.allPinned {
		x.allPinned = x.pinAllLocked(walk)
	}
	return nil
}

// listedTool is one tool of a tools/list walk, as compared with the next.
type listedTool struct {
	t      *mcp.Tool
	name   string
	elicit bool // AddTool's marker of this Guard
}

// buildLocked makes the index's maps from a walk; of a name listed twice
// the first counts. x.mu is held.
func (x *toolIndex) buildLocked(walk []listedTool) {
	n := len(walk)
	byNorm, exact, elicit := make(map[string][]string, n), make(map[string]*mcp.Tool, n), make(map[string]bool, n)
	for _, e := range walk {
		if _, dup := exact[e.name]; dup {
			continue
		}
		exact[e.name], elicit[e.name] = e.t, e.elicit
		k := normalizeTool(e.name)
		byNorm[k] = append(byNorm[k], e.name)
	}
	for _, names := range byNorm {
		sort.Strings(names)
	}
	x.byNorm, x.exact, x.elicit = byNorm, exact, elicit
}

// listRequest is a tools/list request and its params in one allocation.
type listRequest struct {
	req    mcp.ListToolsRequest
	params mcp.ListToolsParams
}

// eachListedTool calls fn with each tool the server lists on ss, read
// through next (the handler below the Guard) page by page, until fn
// reports no more or an error, or the list ends; at most maxIndexPages
// pages.
func eachListedTool(ctx context.Context, next mcp.MethodHandler, ss *mcp.ServerSession, fn func(*mcp.Tool) (more bool, err error)) error {
	cursor := ""
	for page := 0; page < maxIndexPages; page++ {
		q := &listRequest{} // one allocation for the request and its params
		q.req.Session, q.req.Params, q.params.Cursor = ss, &q.params, cursor
		res, err := next(ctx, "tools/list", &q.req)
		if err != nil {
			return fmt.Errorf("gatehouse: listing the server's tools: %w", err)
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return fmt.Errorf("gatehouse: listing the server's tools: got %T", res)
		}
		if lr == nil {
			return errors.New("gatehouse: listing the server's tools: got a nil *mcp.ListToolsResult")
		}
		for _, t := range lr.Tools {
			if t == nil {
				continue
			}
			if more, err := fn(t); err != nil || !more {
				return err
			}
		}
		if cursor = lr.NextCursor; cursor == "" {
			return nil
		}
	}
	return fmt.Errorf("gatehouse: the server's tool list has more than %d pages", maxIndexPages)
}

// definitionDigest is ToolDigest, or "" for no tool or a definition that
// cannot be digested (never pinned; the pin stage refuses calls to it).
func definitionDigest(t *mcp.Tool) string {
	if t == nil {
		return ""
	}
	d, err := ToolDigest(t)
	if err != nil {
		return ""
	}
	return d
}

// withoutMarker returns tools with AddTool's marker left out of their
// _meta (copies; the server's tools are not changed).
func withoutMarker(tools []*mcp.Tool) []*mcp.Tool {
	out := tools
	for i, t := range tools {
		if t == nil || t.Meta[elicitMarker] == nil {
			continue
		}
		if &out[0] == &tools[0] {
			out = append([]*mcp.Tool(nil), tools...)
		}
		c := *t
		c.Meta = mcp.Meta{}
		for k, v := range t.Meta {
			if k != elicitMarker {
				c.Meta[k] = v
			}
		}
		if len(c.Meta) == 0 {
			c.Meta = nil
		}
		out[i] = &c
	}
	return out
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", clipName(n))
	}
	return out
}
