package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team of the stream joining (rtg): only a log message whose data is
// a string was joined with the end of its stream. A server that logs
// structured records ({"stream": "stdout", "line": ...}, as slog or a
// command runner does) sent a key split across two records whole.

// structLogs runs a tool that logs each chunk as mk makes it, and returns
// the data of the log messages the client received, as JSON.
func structLogs(t *testing.T, chunks []string, mk func(string) any) string {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "stream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, c := range chunks {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "runner", Data: mk(c)}); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	g.Install(s)
	var mu sync.Mutex
	var got []string
	done := make(chan struct{}, len(chunks))
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			mu.Lock()
			got = append(got, string(b))
			mu.Unlock()
			done <- struct{}{}
		},
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	for range chunks {
		<-done
	}
	mu.Lock()
	defer mu.Unlock()
	return strings.Join(got, "\n")
}

type logRecord struct {
	Stream string `json:"stream"`
	Line   string `json:"line"`
	Seq    int    `json:"seq"`
}

func TestRedTeamRTG_SecretSplitAcrossStructuredLogs(t *testing.T) {
	chunks := []string{"aws_access_key_id = " + wireKey[:11], wireKey[11:] + " token " + wireGH[:20], wireGH[20:] + " done"}
	for name, mk := range map[string]func(string) any{
		"map":    func(c string) any { return map[string]any{"stream": "stdout", "line": c, "seq": 1} },
		"struct": func(c string) any { return logRecord{Stream: "stdout", Line: c, Seq: 1} },
		"array":  func(c string) any { return []any{"stdout", c} },
		"nested": func(c string) any { return map[string]any{"proc": map[string]any{"out": c}} },
	} {
		t.Run(name, func(t *testing.T) {
			got := structLogs(t, chunks, mk)
			for _, part := range []string{wireKey[11:], wireGH[20:]} {
				if strings.Contains(got, part) {
					t.Errorf("the second part of a secret reached the client: %s", got)
				}
			}
		})
	}
}

// Near miss: structured records with nothing across their boundaries
// arrive as written; a redacted one keeps its numbers and other members.
func TestRedTeamRTG_StructuredLogsKeepTheirData(t *testing.T) {
	chunks := []string{"build step 1 of 3: AKIA", "EXAMPLE not a key", "ghp_ is a prefix; done"}
	got := structLogs(t, chunks, func(c string) any {
		return map[string]any{"line": c, "n": json.Number("9007199254740993"), "tags": []any{"ci", c}}
	})
	for _, c := range chunks {
		if !strings.Contains(got, `"line":"`+c+`"`) {
			t.Errorf("%q changed: %s", c, got)
		}
	}
	got = structLogs(t, []string{"key " + wireKey[:8], wireKey[8:] + " end"}, func(c string) any {
		return map[string]any{"line": c, "n": json.Number("12345"), "ok": true}
	})
	if strings.Contains(got, wireKey[8:]) || strings.Count(got, `"n":12345,`) != 2 || strings.Count(got, `"ok":true`) != 2 || !strings.Contains(got, " end") {
		t.Errorf("want the key's second part redacted and the rest as written: %q", got)
	}
}
