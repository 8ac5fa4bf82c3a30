package mcpredact

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Rewriter rewrites a string, returning it unchanged when there is nothing
// to rewrite. The root package rewrites with the values of injected vault
// secrets (consent/vault.Scrubber), which are known by value, not by
// pattern.
type Rewriter interface {
	String(string) string
}

// RewriteResult returns res with w applied to every string of the JSON it
// marshals to (object member names included), at any depth, decoded back
// into a new value of res's type; res itself when w changes nothing. The
// strings are rewritten decoded, not the JSON text: a text that carries
// JSON (a tool echoing the request it sent) holds a value JSON-escaped
// once, which the text of the result escapes once more. An error means the
// result could not be rewritten: withhold it.
func RewriteResult(w Rewriter, res mcp.Result) (mcp.Result, error) {
	if w == nil || isNil(res) || plainTextUnchanged(w, res) {
		return res, nil
	}
	out, err := rewriteValue(w, res)
	if err != nil {
		return nil, err
	}
	return out.(mcp.Result), nil
}

// plainTextUnchanged is the fast path of the common result, as for
// [Result]: a tool result of text items and nothing else, none of whose
// texts w changes, goes out as it is, without being encoded and walked.
func plainTextUnchanged(w Rewriter, res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r.Meta != nil || r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" || len(r.Content) == 0 {
		return false
	}
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil || w.String(t.Text) != t.Text {
			return false
		}
	}
	if pw, ok := w.(PartsRewriter); ok && len(r.Content) > 1 {
		texts := make([]string, len(r.Content))
		for i, c := range r.Content {
			texts[i] = c.(*mcp.TextContent).Text
		}
		return slices.Equal(pw.Parts(texts), texts) // nothing cut across items
	}
	return true
}

// RewriteOutgoing is [RewriteResult] for the params of a request or
// notification the server sends (see [Outgoing]).
func RewriteOutgoing(w Rewriter, method string, req mcp.Request) (mcp.Request, error) {
	if w == nil || isNil(req) {
		return req, nil
	}
	params := req.GetParams()
	if isNil(params) {
		return req, nil
	}
	np, err := rewriteValue(w, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if np == params {
		return req, nil
	}
	out, err := withParams(req, np)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return out, nil
}

// RewriteError applies w to a handler error as go-sdk would send it: a
// *jsonrpc.Error's message and data (data that is no longer JSON is
// dropped), any other error's text (go-sdk sends only the text and the code
// of a wrapped *jsonrpc.Error). An error w does not change is returned as
// it is.
func RewriteError(w Rewriter, err error) error {
	if w == nil || err == nil {
		return err
	}
	we, ok := err.(*jsonrpc.Error)
	if !ok {
		msg := err.Error()
		if clean := w.String(msg); clean != msg {
			var code int64
			if errors.As(err, &we) {
				code = we.Code
			}
			if code != 0 {
				return &jsonrpc.Error{Code: code, Message: clean}
			}
			return errors.New(clean)
		}
		return err
	}
	msg := w.String(we.Message)
	data, changed := json.RawMessage(we.Data), false
	if len(data) > 0 {
		tree, derr := decodeTree(data)
		if derr != nil {
			data, changed = nil, true // not JSON: never passed on unchecked
		} else if tree, changed = rewriteTree(w, tree); changed {
			data, _ = json.Marshal(tree)
		}
	}
	if msg == we.Message && !changed {
		return err
	}
	return &jsonrpc.Error{Code: we.Code, Message: msg, Data: data}
}

// rewriteValue is RewriteResult for v, a pointer to a go-sdk value.
func rewriteValue(w Rewriter, v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %T does not marshal: %v", ErrUnscannable, v, err)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrUnscannable, v, err)
	}
	tree, changed := rewriteTree(w, tree)
	if !changed {
		return v, nil
	}
	return rebuild(v, tree)
}

// rewriteTree applies w to every string and member name of a decoded JSON
// value, in place, and reports whether anything changed. A number is
// rewritten as its JSON text: one that w changes becomes the rewritten
// text, a string (a handler that parsed an injected secret of digits and
// returned it as a number sent it whole when numbers were left alone; a
// typed field that cannot hold the string withholds the message).
func rewriteTree(w Rewriter, v any) (any, bool) {
	switch x := v.(type) {
	case string:
		out := w.String(x)
		return out, out != x
	case json.Number:
		if out := w.String(string(x)); out != string(x) {
			return out, true
		}
		return x, false
	case []any:
		changed := false
		if pw, ok := w.(PartsRewriter); ok {
			changed = rewriteParts(pw, x)
		}
		for i, e := range x {
			var c bool
			x[i], c = rewriteTree(w, e)
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		var renamed map[string]any
		for k, e := range x {
			ne, c := rewriteTree(w, e)
			x[k], changed = ne, changed || c
			if nk := w.String(k); nk != k {
				if renamed == nil {
					renamed = map[string]any{}
				}
				renamed[nk] = ne
			}
		}
		if renamed == nil {
			return x, changed
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if w.String(k) == k {
				out[k] = e
			}
		}
		for k, e := range renamed {
			out[k] = e
		}
		return out, true
	}
	return v, false
}
