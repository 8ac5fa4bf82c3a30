package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team of the named scan (rtm), through a real go-sdk client: a
// credential whose member name no rule spells (pw, privKey, Passwort, a
// fullwidth password, Name/Value pairs, an env array's DB_PASS=...) reached
// the client from structured content, from a log message's data and from
// an error's data. internal/mcpredact/redteam_rtm_names_test.go has every
// spelling and the near misses.

const rtmPw = "Fake-Pa55word!"

var rtmDoc = map[string]any{
	"db":       map[string]any{"host": "db.internal", "pw": rtmPw},
	"signing":  map[string]any{"privKey": rtkKey},
	"env":      []any{map[string]any{"Name": "DB_PASS", "Value": rtmPw}, "REDIS_PASS=" + rtmPw},
	"ｐａｓｓｗｏｒｄ": rtmPw,
	"Passwort": map[string]any{"value": rtmPw},
}

func rtmNoSecret(t *testing.T, where, got string) {
	t.Helper()
	if strings.Contains(got, rtmPw) || strings.Contains(got, rtkKey) {
		t.Errorf("%s: a secret reached the client: %s", where, got)
	}
	if !strings.Contains(got, "db.internal") {
		t.Errorf("%s: more than the secrets was redacted: %s", where, got)
	}
}

func TestRedTeamRTM_NamedSecretsReachNoClient(t *testing.T) {
	_, cs := connectAt(t, rtServer(t, map[string]*mcp.CallToolResult{
		"structured": {Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: rtmDoc},
	}), "agent", nil, "")
	got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": "structured"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got.StructuredContent)
	rtmNoSecret(t, "structured content", string(b))

	rtmNoSecret(t, "log data", structLogs(t, []string{"one"}, func(string) any { return rtmDoc }))
}

func TestRedTeamRTM_NamedSecretsInErrorData(t *testing.T) {
	data, _ := json.Marshal(rtmDoc)
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rt", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32050, Message: "connect failed", Data: data}
	})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "")
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want the tool's JSON-RPC error, got %v", err)
	}
	rtmNoSecret(t, "error data", string(we.Data))
}
