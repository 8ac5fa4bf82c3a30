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

// Red team rvc: an error is a message kind like a result. A handler's
// error text (a Go error from a tool, a resource or a prompt, a JSON-RPC
// error's message and data) is what the client's model reads, as it
// reads a result's text, and a handler that fails often puts the document
// it failed on into its error. The readings of a result's text (JSON with
// its names, YAML, tables, configuration lines) must read the error's
// text too: each text below is redacted as a tool's result text, so it
// must be as an error.

// rvcErrTexts hold a credential only a reading of the text's shape finds
// (the text rules alone see no secret in them), each with the fragment
// whose arrival is a leak.
var rvcErrTexts = []struct{ name, text, needle string }{
	{"JSON passphrase", `{"db": {"password": "correct horse battery staple"}}`, "horse battery"},
	{"YAML env list", "env:\n  - name: DB_PASSWORD\n    value: Tr0ub4dor3xq\n", "Tr0ub4dor3xq"},
	{"CSV column", "name,secret\nprod,Tr0ub4dor3xq9\n", "Tr0ub4dor3xq9"},
	{"JSON after a prefix", "config rejected: {\"auth\": {\"password\": \"swordfish tangerine crowbar\"}}", "swordfish tangerine"},
}

// rvcErrNearMisses are ordinary errors: they must arrive unchanged.
var rvcErrNearMisses = []string{
	`{"error": "not found", "id": "123e4567-e89b-12d3-a456-426614174000", "sha": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"}`,
	"env:\n  - name: LOG_LEVEL\n    value: debug\n",
	"name,commit\nprod,4f9c2e1d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d\n",
	"open /srv/app/config.yaml: no such file or directory",
}

func TestRedTeamRVC_ErrorTextReadAsResultText(t *testing.T) {
	texts := map[string]string{}
	for _, c := range rvcErrTexts {
		texts[c.name] = c.text
	}
	for i, n := range rvcErrNearMisses {
		texts[fmt.Sprint("near miss ", i)] = n
	}
	g := mustGuard(t, mustPolicy(t, rvcPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rvc", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "emit", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Name, Kind string }
		json.Unmarshal(req.Params.Arguments, &a)
		text := texts[a.Name]
		switch a.Kind {
		case "result":
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		case "go error":
			return nil, errors.New(text)
		case "jsonrpc message":
			return nil, &jsonrpc.Error{Code: -32001, Message: text}
		case "jsonrpc data":
			data, _ := json.Marshal(map[string]any{"body": text})
			return nil, &jsonrpc.Error{Code: -32001, Message: "failed", Data: data}
		}
		return nil, errors.New("unknown kind")
	})
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, errors.New(texts[req.Params.Arguments["name"]])
	})
	g.Install(s)
	cs, rec := rvcConnect(t, s)
	ctx := context.Background()
	for name, text := range texts {
		for _, kind := range []string{"result", "go error", "jsonrpc message", "jsonrpc data", "prompt error"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				m := rec.mark()
				if kind == "prompt error" {
					cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p", Arguments: map[string]string{"name": name}})
				} else {
					cs.CallTool(ctx, &mcp.CallToolParams{Name: "emit", Arguments: map[string]any{"name": name, "kind": kind}})
				}
				got := strings.Join(rvcStrings(t, rec.since(m)), "\n")
				if strings.HasPrefix(name, "near miss") {
					if !strings.Contains(got, text) && !strings.Contains(got, jsonString(text)) {
						t.Errorf("an ordinary error did not arrive unchanged: %q\ngot: %.400s", text, got)
					}
					return
				}
				for _, c := range rvcErrTexts {
					if c.name == name && strings.Contains(got, c.needle) {
						t.Errorf("leaked %q: %.400s", c.needle, got)
					}
				}
			})
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
