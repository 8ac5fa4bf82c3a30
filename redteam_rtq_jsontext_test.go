package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtq: the named scan (rtm) read member names only in structured
// content. A go-sdk tool with a typed output (mcp.AddTool[In, Out]) sends
// its output twice, as structured content and as a TextContent holding the
// same JSON; most tools return JSON as text only. In text, only the text
// rules read a name, so {"Passwort": ...}, {"Name": "DB_PASS", "Value":
// ...}, {"privKey": ...} and an env array's DB_PASS=... reached the
// client in the text copy while the structured copy was redacted.

type rtqOut struct {
	DB       map[string]any `json:"db"`
	Env      []any          `json:"env"`
	Passwort string         `json:"Passwort"`
}

// rtqServer is a guarded server whose tool "leak" returns a typed output
// (typed) or the JSON of rtmDoc as text.
func rtqServer(t *testing.T, typed bool) *mcp.Server {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rtq", Version: "1"}, nil)
	defer g.Install(s)
	if !typed {
		s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			doc, _ := json.MarshalIndent(rtmDoc, "", "  ")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(doc)}}}, nil
		})
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "leak"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, rtqOut, error) {
		return nil, rtqOut{
			DB:       map[string]any{"host": "db.internal", "pw": rtmPw, "signing": map[string]any{"privKey": rtkKey}},
			Env:      []any{map[string]any{"Name": "DB_PASS", "Value": rtmPw}, "REDIS_PASS=" + rtmPw},
			Passwort: rtmPw,
		}, nil
	})
	return s
}

func TestRedTeamRTQ_NamedSecretsInJSONText(t *testing.T) {
	for name, typed := range map[string]bool{"typed output": true, "JSON text": false} {
		_, cs := connectAt(t, rtqServer(t, typed), "agent", nil, "")
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if got.IsError {
			t.Fatalf("%s: %+v", name, got.Content)
		}
		var texts []string
		for _, c := range got.Content {
			texts = append(texts, c.(*mcp.TextContent).Text)
		}
		text := strings.Join(texts, "\n")
		rtmNoSecret(t, name+": text content", text)
		if !json.Valid([]byte(text)) {
			t.Errorf("%s: the redacted text is no longer JSON: %s", name, text)
		}
		if got.StructuredContent != nil {
			b, _ := json.Marshal(got.StructuredContent)
			rtmNoSecret(t, name+": structured content", string(b))
		}
	}
}

// A credential's name in Cyrillic, or in a table's header apart from its
// value, reached a real client from structured content (red team rtq;
// internal/mcpredact has every spelling and the near misses).
func TestRedTeamRTQ_NamesApartReachNoClient(t *testing.T) {
	doc := map[string]any{
		"db":      map[string]any{"host": "db.internal", "пароль": rtmPw},
		"columns": []any{"user", "password"},
		"rows":    []any{[]any{"admin", rtmPw}},
		"pairs":   []any{[]any{"api_key", rtkKey}},
	}
	_, cs := connectAt(t, rtServer(t, map[string]*mcp.CallToolResult{
		"structured": {Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: doc},
	}), "agent", nil, "")
	got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": "structured"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got.StructuredContent)
	rtmNoSecret(t, "structured content", string(b))
}
