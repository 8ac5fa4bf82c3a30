package mcpredact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Rewriter rewrites the JSON text of a value, or a message, and returns
// its input unchanged (the same bytes) when there is nothing to rewrite.
// The root package rewrites with the values of injected vault secrets
// (consent/vault.Scrubber), which are known by value, not by pattern.
type Rewriter interface {
	Bytes([]byte) []byte
	String(string) string
}

// RewriteResult returns res with w applied to the JSON it marshals to,
// decoded back into a new value of res's type; res itself when w changes
// nothing. An error means the result could not be rewritten: withhold it.
func RewriteResult(w Rewriter, res mcp.Result) (mcp.Result, error) {
	if w == nil || isNil(res) {
		return res, nil
	}
	out, err := rewriteValue(w, res)
	if err != nil {
		return nil, err
	}
	return out.(mcp.Result), nil
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
	data := []byte(we.Data)
	if len(data) > 0 {
		data = w.Bytes(data)
		if !json.Valid(data) {
			data = nil
		}
	}
	if msg == we.Message && bytes.Equal(data, we.Data) {
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
	out := w.Bytes(raw)
	if bytes.Equal(out, raw) {
		return v, nil
	}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("%w: %T is not a pointer, no copy can be made", ErrUnscannable, v)
	}
	nv := reflect.New(t.Elem())
	if err := json.Unmarshal(out, nv.Interface()); err != nil {
		return nil, fmt.Errorf("%w: the rewritten %T does not decode: %v", ErrUnscannable, v, err)
	}
	return nv.Interface(), nil
}
