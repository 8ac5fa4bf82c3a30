package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team, issue 15: a tool that streams a command's output as it reads
// it sends chunks whose boundaries fall anywhere; a key split across two
// log messages (or two progress messages) was scanned in halves and
// reached the client whole. Now the second message loses its share: the
// client gets at most the first part.

func streamServer(t *testing.T, chunks []string) (*mcp.ClientSession, func() []string) {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "stream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		for _, c := range chunks {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "stdout", Data: c}); err != nil {
				return nil, err
			}
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "other", Data: "unrelated"}); err != nil {
				return nil, err
			}
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: c}); err != nil {
					return nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	g.Install(s)
	var mu sync.Mutex
	var logs, progress []string
	done := make(chan struct{}, 4*len(chunks))
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			if r.Params.Logger == "stdout" {
				logs = append(logs, r.Params.Data.(string))
			}
			done <- struct{}{}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.Message)
			done <- struct{}{}
		},
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	return cs, func() []string {
		for range 3 * len(chunks) {
			<-done
		}
		mu.Lock()
		defer mu.Unlock()
		return []string{strings.Join(logs, ""), strings.Join(progress, "")}
	}
}

func TestRedTeam22_SecretSplitAcrossStreamedMessages(t *testing.T) {
	chunks := []string{"$ cat ~/.aws/credentials\naws_access_key_id = " + wireKey[:11], wireKey[11:] + "\ntoken: " + wireGH[:20], wireGH[20:] + "\n"}
	cs, received := streamServer(t, chunks)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for i, joined := range received() {
		what := []string{"log messages", "progress messages"}[i]
		if strings.Contains(joined, wireKey) || strings.Contains(joined, wireGH) || strings.Contains(joined, wireKey[11:]) || strings.Contains(joined, wireGH[20:]) {
			t.Errorf("%s: the client received a secret's second part: %q", what, joined)
		}
		if strings.Count(joined, "[REDACTED:") < 2 {
			t.Errorf("%s: want a marker for each secret: %q", what, joined)
		}
	}
}

// Near miss: chunks with no secret across their boundary arrive as sent.
func TestRedTeam22_StreamedMessagesUnchanged(t *testing.T) {
	chunks := []string{"build step 1 of 3: AKIA", "EXAMPLE not a key\n", "ghp_ is a prefix; done\n"}
	cs, received := streamServer(t, chunks)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken(7)
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for _, joined := range received() {
		if joined != strings.Join(chunks, "") {
			t.Errorf("changed: %q", joined)
		}
	}
}
