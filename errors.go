package gatehouse

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// JSON-RPC codes the guard uses besides AIP §5's (which policy defines).
const (
	CodeInvalidParams = -32602 // JSON-RPC: arguments are not a JSON object
	CodeInternalError = -32603 // fail closed: a limiter, budget, audit or panic failure
)

const (
	messageInvalidParams = "Invalid params"
	messageInternalError = "Internal error"
)

// maxEchoedName bounds the tool or method name echoed back in error data.
const maxEchoedName = 256

// rpcError is the one place decisions become JSON-RPC errors (AIP §5.1):
// code and message from the decision, data {tool, reason} for tool calls and
// {method, reason} for method denials. A decision without a code is a bug
// upstream; it still denies, as Forbidden.
func rpcError(d policy.Decision, rawTool string) *jsonrpc.Error {
	code, msg := d.Code, d.Message
	if code == 0 {
		code, msg = policy.CodeForbidden, policy.MessageForbidden
	}
	data := map[string]string{"reason": d.Reason}
	switch {
	case code == policy.CodeMethodNotAllowed:
		data["method"] = clipName(d.Method)
	case rawTool != "":
		data["tool"] = clipName(rawTool)
	case d.Tool != "":
		data["tool"] = d.Tool
	}
	raw, err := json.Marshal(data)
	if err != nil { // cannot happen for map[string]string; keep the error anyway
		raw = nil
	}
	return &jsonrpc.Error{Code: int64(code), Message: msg, Data: raw}
}

// toolError is the DenyAsToolResult form of a denial: a tool result with
// IsError set, which the model reads.
func toolError(d policy.Decision) *mcp.CallToolResult {
	msg := d.Message
	if msg == "" {
		msg = policy.MessageForbidden
	}
	text := "gatehouse: " + msg
	if d.Reason != "" {
		text += ": " + d.Reason
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// internal is a fail-closed denial for a failure of the guard's own parts.
func internal(method, tool, reason string) policy.Decision {
	return policy.Decision{
		Outcome: policy.Block, Violation: true, Code: CodeInternalError, Message: messageInternalError,
		Reason: reason, Method: method, Tool: tool,
	}
}

func invalidParams(tool, reason string) policy.Decision {
	return policy.Decision{
		Outcome: policy.Block, Violation: true, Code: CodeInvalidParams, Message: messageInvalidParams,
		Reason: reason, Method: policy.MethodToolsCall, Tool: tool,
	}
}

func clipName(s string) string {
	if len(s) <= maxEchoedName {
		return s
	}
	cut := maxEchoedName
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut]
}
