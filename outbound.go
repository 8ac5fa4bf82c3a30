package gatehouse

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// sendingMiddleware redacts every request and notification the server sends
// to the client (log messages, progress, sampling, elicitation, resource
// updates and any method go-sdk adds) with the guard's DLP scanner, and
// audits each rule that fired as a downstream DLP event (DESIGN §3 item 13).
// A message that cannot be scanned, or whose redaction cannot be audited,
// is not sent: the sender gets an error and the client gets nothing. A
// secret split across two streamed messages (outstream.go) loses the share
// in the second.
func (g *Guard) sendingMiddleware() mcp.Middleware {
	st := new(streams)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			sc := g.injected.scrubber()
			if g.dlp == nil && sc == nil {
				return next(ctx, method, req)
			}
			// The stream join sees the text as the tool wrote it (both
			// the secrets and the vault values it redacts are found in
			// it, outstream.go); the vault's values are then scrubbed
			// from every other string.
			c, _ := callFrom(ctx)
			req, joined, err := st.join(g.dlp, sc, c, req)
			if err == nil && sc != nil {
				if req, err = mcpredact.RewriteOutgoing(sc, method, req); err != nil {
					g.log.WarnContext(ctx, "gatehouse: outgoing message withheld", "method", method, "reason", "could not be checked for injected vault secrets")
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "gatehouse: the " + method + " message could not be checked for injected vault secrets, so it was not sent"}
				}
			}
			if err == nil && g.dlp == nil {
				return next(ctx, method, req)
			}
			var out mcp.Request
			var findings []dlp.Finding
			if err == nil {
				out, findings, err = mcpredact.Outgoing(g.dlp, method, req)
				findings = append(joined, findings...)
			}
			if err != nil {
				g.log.WarnContext(ctx, "gatehouse: outgoing message withheld", "method", method, "reason", "could not be checked for secrets")
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "gatehouse: the " + method + " message could not be checked for secrets, so it was not sent"}
			}
			if len(findings) > 0 && method == "elicitation/create" && isApprovalPrompt(ctx) {
				// An approval question with a redacted span would hide
				// what it asks about (prompthide.go): not sent.
				g.log.WarnContext(ctx, "gatehouse: elicitation withheld", "reason", "the secret scanner would redact part of the question")
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "gatehouse: the elicitation/create question holds text the secret scanner would redact, so it was not sent: the user could not see what they are asked about"}
			}
			if len(findings) > 0 {
				if err := g.auditDLP(ctx, method, "", "", findings); err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "gatehouse: the audit log could not record a redaction, so the " + method + " message was not sent"}
				}
			}
			return next(ctx, method, out)
		}
	}
}
