package gatehouse

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

const auditDown = "The audit log could not record this decision, so the request was denied"

// serve is the middleware body: every request, in order: recover, method
// authorization (AIP §4.2), then tools/call through the pipeline, or any
// other method through the protected-path check, the audit, the handler and
// the result filters.
func (g *Guard) serve(ctx context.Context, method string, req mcp.Request, srv *served, next mcp.MethodHandler) (res mcp.Result, err error) {
	var o *observed
	defer func() { g.end(ctx, o, res, err) }()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, g.recovered(ctx, method, req, r)
		}
	}()
	agent := identity(req, g.o.DefaultAgent) // once per request: it may decode _meta
	ctx, o = g.begin(ctx, method, req, agent)
	md := g.p.EvaluateMethod(method)
	if g.o.Approval != nil && approvalMethods[md.Method] {
		ctx, md = g.authorizeApprovalMethod(ctx, md, agent)
		if md.Outcome == policy.Allow {
			md = g.precheckChallenge(md, req, srv)
			ctx, md = g.pinChallenge(ctx, md, req, srv)
			md = g.precheckChallengeAgent(ctx, md, req, agent)
		}
	}
	if md.Outcome != policy.Allow {
		return g.denyMethod(ctx, md, agent)
	}
	if md.Method == policy.MethodToolsCall {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return g.denyMethod(ctx, invalidParams("", "tools/call without params"), agent)
		}
		return g.toolCall(ctx, method, call, md, srv, next, agent)
	}
	return g.otherMethod(ctx, method, md, req, srv, next, agent)
}

// otherMethod serves a request other than tools/call.
func (g *Guard) otherMethod(ctx context.Context, method string, md policy.Decision, req mcp.Request, srv *served, next mcp.MethodHandler, agent string) (mcp.Result, error) {
	if d, hit := g.p.ProtectedArgs(md.Method, fileArgs(req)); hit {
		return g.denyMethod(ctx, d, agent)
	}
	if err := g.auditDecision(ctx, md, agent, nil); err != nil {
		g.log.ErrorContext(ctx, "gatehouse: audit write failed; the request was denied", "method", md.Method, "error", err)
		g.observeMethod(ctx, internal(md.Method, "", auditDown), agent, "audit")
		return nil, rpcError(internal(md.Method, "", auditDown), "")
	}
	g.observeAuditedMethod(ctx, md, agent)
	var res mcp.Result
	var err error
	if contentMethods[md.Method] {
		res, err = g.boundedMethod(ctx, method, md, req, next, agent)
	} else {
		res, err = next(ctx, method, req)
	}
	if err != nil {
		return nil, g.redactError(ctx, md.Method, "", agent, err)
	}
	if res == nil {
		return nil, nil
	}
	if !listings[md.Method] {
		if d, over := g.oversized(md.Method, "", res); over {
			g.auditFailure(ctx, d, agent)
			return nil, rpcError(d, "")
		}
	}
	switch r := res.(type) {
	case *mcp.InitializeResult:
		g.advertise(r)
		g.noteServerInfo(&srv.info, r.ServerInfo)
	case *mcp.DiscoverResult:
		g.advertise(r)
	case *mcp.ListToolsResult:
		res = g.filteredToolsPage(ctx, method, req, srv, next, r, agent)
	case *mcp.ListResourcesResult, *mcp.ListResourceTemplatesResult, *mcp.ListPromptsResult:
		res = g.cleanCursorPage(ctx, method, req, next, r)
	}
	return g.filterResult(ctx, md.Method, "", agent, res)
}

// listings are the methods whose results the server builds from its own
// registrations (and the handshake), not from a handler's content: the
// only results MaxResultBytes leaves unbounded.
var listings = map[string]bool{
	"initialize": true, "server/discover": true, "ping": true, "tools/list": true,
	"prompts/list": true, "resources/list": true, "resources/templates/list": true,
}

// denyMethod audits the denial of a request before the tools/call pipeline
// (a method the policy refuses, a protected path, malformed params), logs a
// refused method by name, and returns the denial.
func (g *Guard) denyMethod(ctx context.Context, d policy.Decision, agent string) (mcp.Result, error) {
	if d.Code == policy.CodeMethodNotAllowed {
		// Clients show a bare "Method not allowed": say which one here too.
		g.log.WarnContext(ctx, "gatehouse: method denied by policy", "method", clipName(d.Method))
	}
	g.observeMethod(ctx, d, agent, "")
	if err := g.auditDecision(ctx, d, agent, nil); err != nil {
		g.log.ErrorContext(ctx, "gatehouse: audit write failed", "method", d.Method, "error", err)
	}
	if g.o.DenyAsToolResult && d.Method == policy.MethodToolsCall {
		return toolError(d), nil
	}
	return nil, rpcError(d, "")
}

// recovered turns a panic in the guard or an inner middleware into a
// denial, audited; the panic value may hold anything, so only its type and
// the stack are logged.
func (g *Guard) recovered(ctx context.Context, method string, req mcp.Request, r any) error {
	g.log.ErrorContext(ctx, "gatehouse: recovered a panic; the request was denied", "method", method, "panic_type", fmt.Sprintf("%T", r), "stack", string(debug.Stack()))
	tool := ""
	if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
		tool = normalizeTool(call.Params.Name)
	}
	d := internal(normalizeTool(method), tool, "The server failed while handling this request; it was denied")
	g.observeRecovered(ctx, d, req)
	g.auditFailure(ctx, d, identity(req, g.o.DefaultAgent))
	return rpcError(d, "")
}

// fileArgs are the arguments of requests other than tools/call that can
// name files, for the protected-path check: the URI of resources/read and
// resources/subscribe, the arguments of prompts/get, and the argument and
// context values of completion/complete.
func fileArgs(req mcp.Request) map[string]any {
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			return map[string]any{"uri": r.Params.URI}
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			return map[string]any{"uri": r.Params.URI}
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			args := make(map[string]any, len(r.Params.Arguments))
			for k, v := range r.Params.Arguments {
				args[k] = v
			}
			return args
		}
	case *mcp.CompleteRequest:
		return completeArgs(r)
	}
	return nil
}

func completeArgs(r *mcp.CompleteRequest) map[string]any {
	if r.Params == nil {
		return nil
	}
	args := map[string]any{"argument.name": r.Params.Argument.Name, "argument.value": r.Params.Argument.Value}
	if r.Params.Ref != nil {
		args["ref.uri"] = r.Params.Ref.URI
	}
	if r.Params.Context != nil {
		for k, v := range r.Params.Context.Arguments {
			args["context."+k] = v
		}
	}
	return args
}
