package gatehouse

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// filterResult applies DLP to results: it redacts secrets in every byte a
// result carries (AIP §3.6, DESIGN §3 items 8 and 13): every string at any
// depth, _meta included, base64 data decoded, content items scanned joined
// (internal/mcpredact). Each rule that fired is audited. Results are copied
// before any change: the handler's values are never mutated. A result that
// cannot be scanned is withheld.
func (g *Guard) filterResult(ctx context.Context, method, tool, agent string, res mcp.Result) (mcp.Result, error) {
	out, d := g.filteredResult(ctx, method, tool, agent, res)
	if d != nil {
		return nil, rpcError(*d, "")
	}
	return out, nil
}

// filteredResult is filterResult's work: the result to send, or the
// refusal that withholds it (audited), which a tools/call answers as its
// other refusals are (DenyAsToolResult).
func (g *Guard) filteredResult(ctx context.Context, method, tool, agent string, res mcp.Result) (mcp.Result, *policy.Decision) {
	withhold := func(reason string, audit bool) (mcp.Result, *policy.Decision) {
		d := internal(method, tool, reason)
		if audit {
			g.auditDecision(ctx, d, agent, nil)
		}
		return nil, &d
	}
	if sc := g.injected.scrubber(); sc != nil {
		var err error
		if res, err = mcpredact.RewriteResult(sc, res); err != nil {
			return withhold("The result could not be checked for injected vault secrets, so it was withheld", true)
		}
	}
	if g.dlp == nil {
		return res, nil
	}
	out, findings, err := mcpredact.Result(g.dlp, res, nil)
	if errors.Is(err, mcpredact.ErrInexactNumber) {
		return withhold("Secrets were found in the result, and its redacted copy would change a number nested in it, so it was withheld", true)
	}
	if err != nil {
		return withhold("The result could not be checked for secrets, so it was withheld", true)
	}
	if len(findings) > 0 && method == methodChallengeCreate {
		// The displayText a passkey signs for, redacted, would hide what
		// the user approves (prompthide.go): a Describe function may join
		// argument values into text the arguments alone never were.
		d := policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: "No approval is asked for a call the user cannot see: " + hiddenBySecretScan(findings), Method: method}
		g.auditDecision(ctx, d, agent, nil)
		return nil, &d
	}
	if len(findings) > 0 {
		if err := g.auditDLP(ctx, method, tool, agent, findings); err != nil {
			return withhold("The audit log could not record a redaction, so the result was withheld", false)
		}
	}
	return out, nil
}

// redactError redacts a handler's error before it reaches the agent: a
// JSON-RPC error's message and data, or any other error's text (a Go
// *url.Error carries the URL, query-string keys included). Findings are
// audited like a result's.
func (g *Guard) redactError(ctx context.Context, method, tool, agent string, err error) error {
	if sc := g.injected.scrubber(); sc != nil {
		err = mcpredact.RewriteError(sc, err)
	}
	if g.dlp == nil {
		return err
	}
	out, findings := mcpredact.Error(g.dlp, err)
	if len(findings) > 0 {
		if aerr := g.auditDLP(ctx, method, tool, agent, findings); aerr != nil {
			return rpcError(internal(method, tool, "The audit log could not record a redaction, so the error was withheld"), "")
		}
	}
	return out
}
