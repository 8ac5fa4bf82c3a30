package gatehouse

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// filterResult applies DLP to results: it redacts secrets in every text
// a tool call, resource read or prompt returns (AIP §3.6, DESIGN §3 item 8),
// auditing each rule that fired. Results are copied before any change: the
// handler's values are never mutated.
func (g *Guard) filterResult(ctx context.Context, method, tool, agent string, res mcp.Result) (mcp.Result, error) {
	if g.dlp == nil {
		return res, nil
	}
	red := redactor{s: g.dlp}
	switch r := res.(type) {
	case *mcp.CallToolResult:
		res = red.callTool(r)
	case *mcp.ReadResourceResult:
		res = red.readResource(r)
	case *mcp.GetPromptResult:
		res = red.getPrompt(r)
	case *mcp.CompleteResult:
		res = red.complete(r)
	}
	if red.err != nil {
		d := internal(method, tool, "The result could not be checked for secrets, so it was withheld")
		g.auditDecision(ctx, d, agent, nil)
		return nil, rpcError(d, "")
	}
	if len(red.findings) > 0 {
		if err := g.auditDLP(ctx, method, tool, agent, red.findings); err != nil {
			d := internal(method, tool, "The audit log could not record a redaction, so the result was withheld")
			return nil, rpcError(d, "")
		}
	}
	return res, nil
}

// redactor collects findings across the parts of one result.
type redactor struct {
	s        *dlp.Scanner
	findings []dlp.Finding
	err      error
}

func (x *redactor) text(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	out, f := x.s.Redact(s)
	if len(f) == 0 {
		return s, false
	}
	x.findings = append(x.findings, f...)
	return out, true
}

func (x *redactor) callTool(r *mcp.CallToolResult) *mcp.CallToolResult {
	content, changed := x.contents(r.Content)
	var structured any
	structChanged := false
	if r.StructuredContent != nil {
		raw, err := json.Marshal(r.StructuredContent)
		if err != nil {
			x.err = err
			return r
		}
		out, f, err := x.s.RedactJSON(raw)
		if err != nil {
			x.err = err
			return r
		}
		if len(f) > 0 {
			x.findings = append(x.findings, f...)
			structured, structChanged = json.RawMessage(out), true
		}
	}
	if !changed && !structChanged {
		return r
	}
	c := *r
	c.Content = content
	if structChanged {
		c.StructuredContent = structured
	}
	return &c
}

func (x *redactor) contents(in []mcp.Content) ([]mcp.Content, bool) {
	var out []mcp.Content
	for i, item := range in {
		n, changed := x.content(item)
		if changed && out == nil {
			out = append(make([]mcp.Content, 0, len(in)), in[:i]...)
		}
		if out != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		return in, false
	}
	return out, true
}

func (x *redactor) content(item mcp.Content) (mcp.Content, bool) {
	switch c := item.(type) {
	case *mcp.TextContent:
		if t, ok := x.text(c.Text); ok {
			n := *c
			n.Text = t
			return &n, true
		}
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			if rc, ok := x.resource(c.Resource); ok {
				n := *c
				n.Resource = rc
				return &n, true
			}
		}
	case *mcp.ResourceLink:
		uri, a := x.text(c.URI)
		desc, b := x.text(c.Description)
		title, d := x.text(c.Title)
		name, e := x.text(c.Name)
		if a || b || d || e {
			n := *c
			n.URI, n.Description, n.Title, n.Name = uri, desc, title, name
			return &n, true
		}
	}
	return item, false
}

// resource redacts a resource's text and its blob, whatever the blob's
// encoding (a secret in a Latin-1 .env or next to binary is still a secret;
// a false positive in binary data costs a corrupted blob, not a leak).
func (x *redactor) resource(rc *mcp.ResourceContents) (*mcp.ResourceContents, bool) {
	text, a := x.text(rc.Text)
	blob, b := rc.Blob, false
	if len(rc.Blob) > 0 {
		var t string
		if t, b = x.text(string(rc.Blob)); b {
			blob = []byte(t)
		}
	}
	if !a && !b {
		return rc, false
	}
	n := *rc
	n.Text, n.Blob = text, blob
	return &n, true
}

func (x *redactor) readResource(r *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	var out []*mcp.ResourceContents
	for i, rc := range r.Contents {
		if rc == nil {
			continue
		}
		n, changed := x.resource(rc)
		if changed && out == nil {
			out = append(make([]*mcp.ResourceContents, 0, len(r.Contents)), r.Contents[:i]...)
		}
		if out != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		return r
	}
	c := *r
	c.Contents = out
	return &c
}

func (x *redactor) getPrompt(r *mcp.GetPromptResult) *mcp.GetPromptResult {
	var out []*mcp.PromptMessage
	for i, m := range r.Messages {
		if m == nil {
			continue
		}
		n, changed := x.content(m.Content)
		if changed && out == nil {
			out = append(make([]*mcp.PromptMessage, 0, len(r.Messages)), r.Messages[:i]...)
		}
		if out != nil {
			if changed {
				pm := *m
				pm.Content = n
				m = &pm
			}
			out = append(out, m)
		}
	}
	desc, dchanged := x.text(r.Description)
	if out == nil && !dchanged {
		return r
	}
	c := *r
	if out != nil {
		c.Messages = out
	}
	c.Description = desc
	return &c
}

// complete redacts completion values (completion/complete can suggest
// the contents of files and variables).
func (x *redactor) complete(r *mcp.CompleteResult) *mcp.CompleteResult {
	var vals []string
	for i, v := range r.Completion.Values {
		n, changed := x.text(v)
		if changed && vals == nil {
			vals = append(make([]string, 0, len(r.Completion.Values)), r.Completion.Values[:i]...)
		}
		if vals != nil {
			vals = append(vals, n)
		}
	}
	if vals == nil {
		return r
	}
	c := *r
	c.Completion.Values = vals
	return &c
}

// redactError redacts a handler's error before it reaches the agent: a
// JSON-RPC error's message and data, or any other error's text (a Go
// *url.Error carries the URL, query-string keys included). Findings are
// audited like a result's.
func (g *Guard) redactError(ctx context.Context, method, tool, agent string, err error) error {
	if g.dlp == nil {
		return err
	}
	x := redactor{s: g.dlp}
	var out error = err
	if we, ok := err.(*jsonrpc.Error); ok {
		msg, a := x.text(we.Message)
		data, b := we.Data, false
		if len(we.Data) > 0 {
			if red, f, rerr := g.dlp.RedactJSON(we.Data); rerr == nil && len(f) > 0 {
				x.findings = append(x.findings, f...)
				data, b = red, true
			} else if rerr != nil {
				data, b = nil, true // unscannable data is dropped, never passed on
			}
		}
		if a || b {
			out = &jsonrpc.Error{Code: we.Code, Message: msg, Data: data}
		}
	} else if msg, changed := x.text(err.Error()); changed {
		out = errors.New(msg)
	}
	if len(x.findings) > 0 {
		if aerr := g.auditDLP(ctx, method, tool, agent, x.findings); aerr != nil {
			return rpcError(internal(method, tool, "The audit log could not record a redaction, so the error was withheld"), "")
		}
	}
	return out
}
