package gatehouse_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team, issue 15 (and, separately, of issue 13's pipeline):
// Guard.Middleware, for servers that compose their middleware themselves,
// returned as "sending" only the tool-list watcher, not the DLP sending
// middleware Install adds, so a server composed that way sent log
// messages, progress and sampling requests unredacted.
func TestRedTeam22_ComposedMiddlewareRedactsOutgoing(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "composed", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "env: " + wireKey}); err != nil {
			return nil, err
		}
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "p1", Progress: 1, Message: "using " + wireKey}); err != nil {
			return nil, err
		}
		_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize " + wireGH}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	recv, send := g.Middleware()
	s.AddSendingMiddleware(send)
	s.AddReceivingMiddleware(recv)
	var mu sync.Mutex
	var got []any
	keep := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, v)
	}
	logged, progressed := make(chan struct{}, 1), make(chan struct{}, 1)
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			keep(r.Params)
			logged <- struct{}{}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			keep(r.Params)
			progressed <- struct{}{}
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			keep(r.Params)
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
		},
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	p.SetProgressToken("p1")
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	<-logged
	<-progressed
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("the client received %d messages, want a log message, a progress notification and a sampling request", len(got))
	}
	for _, v := range got {
		clean(t, "composed server", v)
	}
}
