package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDLPRedactsHandlerErrors: a raw tool handler's error (e.g. a *url.Error that carries an API key in
// the query string) goes to the agent as a JSON-RPC error message: DLP never
// sees it.
func TestDLPRedactsHandlerErrors(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	f.ct = serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New(`Get "https://api.example.com/v1?key=` + fakeKey + `": dial tcp: connection refused`)
		})
	})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "echo", map[string]any{})
	if strings.Contains(fmt.Sprint(res), fakeKey) {
		t.Fatalf("secret reached the agent unredacted: %v", res)
	}
}

// ResourceLink.Name is not redacted (URI, Title, Description are).
func TestDLPRedactsResourceLinkName(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	f.ct = serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///x", Name: fakeKey}}}, nil
		})
	})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "echo", map[string]any{})
	if strings.Contains(fmt.Sprint(res), fakeKey) {
		t.Fatalf("secret reached the agent unredacted: %v", res)
	}
}

// A blob that is not entirely valid UTF-8 is never scanned: one stray byte
// (a binary file, a Latin-1 .env) lets a plain-ASCII secret through.
func TestDLPRedactsBinaryBlobs(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	f.ct = serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			blob := []byte("AWS_KEY=" + fakeKey + "\n# caf\xe9\n")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///srv/app/.env", Blob: blob}}}}, nil
		})
	})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "echo", map[string]any{})
	raw, _ := json.Marshal(res)
	var blob []byte
	var out struct {
		Result struct {
			Content []struct {
				Resource struct{ Blob []byte } `json:"resource"`
			} `json:"content"`
		} `json:"result"`
	}
	json.Unmarshal(raw, &out)
	if len(out.Result.Content) > 0 {
		blob = out.Result.Content[0].Resource.Blob
	}
	if strings.Contains(string(blob), fakeKey) {
		t.Fatalf("secret reached the agent unredacted in a blob: %q", blob)
	}
}

// Protected paths are checked only for tools/call: an allowed resources/read
// of a protected file is served.
func TestProtectedPathsOnResourcesAndPrompts(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_methods: [initialize, notifications/initialized, resources/read, resources/templates/list]
  protected_paths: [~/.ssh]
`), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///{+path}", Name: "files"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "PRIVATE KEY of " + req.Params.URI}}}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	res := c.request(1, "resources/read", map[string]any{"uri": "file:///home/agent/.ssh/id_rsa"})
	if e := rpcErr(res); e == nil || fmt.Sprint(e["code"]) != "-32007" {
		t.Fatalf("protected file served through resources/read: %v", res)
	}
	if res := c.request(2, "resources/read", map[string]any{"uri": "file:///home/agent/notes.txt"}); rpcErr(res) != nil {
		t.Fatalf("an unprotected file: %v", res)
	}
}

// TestProtectedPathsInPromptArguments: prompts/get arguments are checked too.
func TestProtectedPathsInPromptArguments(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_methods: [initialize, notifications/initialized, prompts/get]
  protected_paths: [/etc/shadow]
`), nil)
	ran := 0
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "file"}}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			ran++
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "x"}}}}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	res := c.request(1, "prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"file": "cat /etc/shadow"}})
	if e := rpcErr(res); e == nil || fmt.Sprint(e["code"]) != "-32007" || ran != 0 {
		t.Fatalf("prompt with a protected path: %v (ran %d)", res, ran)
	}
}

// TestDLPRedactsJSONRPCErrorData: a handler's own *jsonrpc.Error keeps its
// code, with message and data redacted.
func TestDLPRedactsJSONRPCErrorData(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	f.ct = serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32050, Message: "upstream said " + fakeKey, Data: json.RawMessage(`{"token":"` + fakeKey + `"}`)}
		})
	})
	res := dialRaw(t, f.ct, "2025-06-18").callTool(1, "echo", map[string]any{})
	e := rpcErr(res)
	if e == nil || fmt.Sprint(e["code"]) != "-32050" || strings.Contains(fmt.Sprint(res), fakeKey) || !strings.Contains(fmt.Sprint(e), "[REDACTED:AWS Key]") {
		t.Fatalf("%v", res)
	}
	if !strings.Contains(f.log.String(), "DLP_TRIGGERED") {
		t.Error("the redaction was not audited")
	}
}

// TestDLPRedactsCompletions: completion/complete values are results too.
func TestDLPRedactsCompletions(t *testing.T) {
	p := mustPolicy(t, strings.Replace(basePolicy, "spec:\n", "spec:\n  allowed_methods: ['*']\n", 1))
	g := mustGuard(t, p, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"plain", "AWS_KEY=" + fakeKey}}}, nil
		},
	})
	s.AddPrompt(&mcp.Prompt{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "a"}}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	g.Install(s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	res := dialRaw(t, ct, "2025-06-18").request(1, "completion/complete", map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "p"}, "argument": map[string]any{"name": "a", "value": ""},
	})
	if rpcErr(res) != nil || strings.Contains(fmt.Sprint(res), fakeKey) || !strings.Contains(fmt.Sprint(res), "plain") {
		t.Fatalf("%v", res)
	}
}
