package mcpredact

import (
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Outgoing redacts the params of a request or notification the server sends
// to the client (notifications/message, notifications/progress,
// sampling/createMessage, elicitation/create, resource updates, and any
// other method: params of any type are walked as their JSON), returning a
// copy of req with redacted params, or req itself when nothing is found. An
// error means the params could not be scanned or copied: the caller must not
// send them.
func Outgoing(s *dlp.Scanner, method string, req mcp.Request) (mcp.Request, []dlp.Finding, error) {
	if s == nil || isNil(req) {
		return req, nil, nil
	}
	params := req.GetParams()
	if isNil(params) {
		return req, nil, nil
	}
	np, f, err := redactValue(s, params, Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	if len(f) == 0 {
		return req, nil, nil
	}
	out, err := withParams(req, np)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	return out, f, nil
}

// withParams returns a shallow copy of req (a pointer to a go-sdk request
// struct such as *mcp.ServerRequest[P]) whose Params field is params.
func withParams(req mcp.Request, params any) (mcp.Request, error) {
	rv := reflect.ValueOf(req)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: request %T cannot be copied", ErrUnscannable, req)
	}
	cp := reflect.New(rv.Elem().Type())
	cp.Elem().Set(rv.Elem())
	f := cp.Elem().FieldByName("Params")
	pv := reflect.ValueOf(params)
	if !f.IsValid() || !f.CanSet() || !pv.Type().AssignableTo(f.Type()) {
		return nil, fmt.Errorf("%w: request %T has no settable Params of type %T", ErrUnscannable, req, params)
	}
	f.Set(pv)
	out, ok := cp.Interface().(mcp.Request)
	if !ok {
		return nil, fmt.Errorf("%w: copy of %T is not a request", ErrUnscannable, req)
	}
	return out, nil
}
