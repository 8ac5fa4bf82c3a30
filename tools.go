package gatehouse

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// served is a Guard's state for one server: the tools registered on it
// with AddTool (by exact name: another server's tool, or another spelling,
// never asks through this one's elicitation), and the index of its tools.
type served struct {
	mu     sync.Mutex
	elicit map[string]bool // exact names registered with AddTool
	index  toolIndex
}

func (s *served) addElicit(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elicit[name] = true
}

// elicits reports whether the tool go-sdk dispatches for the exact name
// raw was registered with AddTool on this server.
func (s *served) elicits(raw string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.elicit[raw]
}

// Bounds of a tools/list walk.
const (
	maxIndexPages    = 1000
	maxIndexTools    = 100_000
	collisionMessage = "Several tools of this server have names that normalize to %q (%s), so the policy cannot tell which one is called; the call was denied. Rename the tools so that their normalized names differ"
)

// toolIndex knows the exact names of a server's tools, grouped by their
// normalized name, so that a call is authorized for exactly the tool go-sdk
// dispatches: when two tools normalize to the same name, calls to either
// are denied. It reads the names through the server's own tools/list
// handler (the middleware's next), at Install and again whenever a call
// names a tool it has not seen: a tool added later under a colliding name
// is found by the first call to it, before it can run.
type toolIndex struct {
	mu     sync.Mutex
	next   mcp.MethodHandler
	byNorm map[string][]string // normalized name -> exact names, sorted
	exact  map[string]bool
}

func (x *toolIndex) setNext(next mcp.MethodHandler) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.next = next
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
// the server; when it names one of several colliding tools it returns the
// denial.
func (x *toolIndex) check(ctx context.Context, req *mcp.CallToolRequest, raw, tool string) (policy.Decision, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.exact[raw] && x.next != nil {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			if err := x.refreshLocked(ctx, ss); err != nil {
				return internal(policy.MethodToolsCall, tool, "The server's tools could not be listed, so the call was denied"), false
			}
		}
	}
	names := x.byNorm[tool]
	if len(names) > 1 && x.exact[raw] {
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: fmt.Sprintf(collisionMessage, tool, strings.Join(quoteAll(names), ", ")), Method: policy.MethodToolsCall, Tool: tool}, false
	}
	if len(names) > 0 && !x.exact[raw] {
		// A spelling that is not registered while another is: go-sdk would
		// answer "unknown tool"; say so before anything is charged or asked.
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: CodeInvalidParams, Message: messageInvalidParams,
			Reason: fmt.Sprintf("No tool is registered under this exact name; the server's tool is %s", quoteAll(names[:1])[0]), Method: policy.MethodToolsCall, Tool: tool}, false
	}
	return policy.Decision{}, true
}

// refreshLocked lists the server's tools through next, page by page.
func (x *toolIndex) refreshLocked(ctx context.Context, ss *mcp.ServerSession) error {
	if x.next == nil {
		return fmt.Errorf("gatehouse: the guard's middleware is not installed")
	}
	byNorm, exact := map[string][]string{}, map[string]bool{}
	cursor := ""
	for page := 0; page < maxIndexPages; page++ {
		res, err := x.next(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return fmt.Errorf("gatehouse: listing the server's tools: %w", err)
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return fmt.Errorf("gatehouse: listing the server's tools: got %T", res)
		}
		for _, t := range lr.Tools {
			if t == nil || exact[t.Name] {
				continue
			}
			exact[t.Name] = true
			n := normalizeTool(t.Name)
			byNorm[n] = append(byNorm[n], t.Name)
		}
		if len(exact) > maxIndexTools {
			return fmt.Errorf("gatehouse: the server lists more than %d tools", maxIndexTools)
		}
		if cursor = lr.NextCursor; cursor == "" {
			for _, names := range byNorm {
				sort.Strings(names)
			}
			x.byNorm, x.exact = byNorm, exact
			return nil
		}
	}
	return fmt.Errorf("gatehouse: the server's tool list has more than %d pages", maxIndexPages)
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", clipName(n))
	}
	return out
}
