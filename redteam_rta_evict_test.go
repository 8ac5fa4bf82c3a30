package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rta: the server remembers the kept end of at most 1024
// streams, and a stream is a session's progress token (or logger name)
// as well as a call's. Progress tokens are the client's: one session that
// made a thousand calls, each with a token of its own, filled the table
// with its own session streams and pushed out the stream of another
// session in the middle of a Secret's data block, whose next entries went
// out in the clear. A session now has at most a quarter of the table:
// past it, its own streams are forgotten first.

// rtaEvictServer returns a client session that streams a Secret's lines
// (a line per message, the tool waiting on next before each data entry),
// flooders sessions that call "tick", which sends one progress message,
// and what the first got.
func rtaEvictServer(t *testing.T, lines []string, next chan struct{}, flooders int) (victim *mcp.ClientSession, flood []*mcp.ClientSession, received func() string) {
	t.Helper()
	pol := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: evict}\nspec:\n  allowed_tools: [leak, tick]\n  allowed_methods: ['*']\n"
	g := mustGuard(t, mustPolicy(t, pol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "evict", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range lines {
			if strings.HasPrefix(l, "  ") {
				<-next
			}
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "kubectl", Data: l}); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "tick", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: "step 1 of 1"}); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	g.Install(s)
	var mu sync.Mutex
	var logs []string
	_, victim = connectAt(t, s, "victim", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, r.Params.Data.(string))
		},
	}, "2025-11-25")
	if err := victim.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	for range flooders {
		_, cs := connectAt(t, s, "flooder", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {}}, "2025-11-25")
		flood = append(flood, cs)
	}
	return victim, flood, func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(logs, "")
	}
}

// rtaFlood makes n calls of tick from each of flood in turn, each with
// its own progress token.
func rtaFlood(t *testing.T, flood []*mcp.ClientSession, n int) {
	t.Helper()
	for i := range n {
		p := &mcp.CallToolParams{Name: "tick", Arguments: map[string]any{}}
		p.SetProgressToken(fmt.Sprintf("flood-%d", i))
		if _, err := flood[i%len(flood)].CallTool(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
}

// rtaFloodLeaks streams a Secret's data block from one session while
// flooders sessions make 1100 calls in all, and fails if an entry reached
// the client.
func rtaFloodLeaks(t *testing.T, flooders int) {
	vals := []string{rtzB64(21, 40) + "==", rtzB64(22, 40) + "==", rtzB64(23, 40) + "=="}
	lines := []string{"apiVersion: v1", "kind: Secret", "metadata: {name: db}", "type: Opaque", "data:"}
	for i, v := range vals {
		lines = append(lines, fmt.Sprintf("  key%d: %s", i, v))
	}
	next := make(chan struct{})
	victim, flood, received := rtaEvictServer(t, lines, next, flooders)
	done := make(chan error, 1)
	go func() {
		_, err := victim.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}})
		done <- err
	}()
	step := func() {
		select {
		case next <- struct{}{}:
		case err := <-done:
			t.Fatalf("the victim's call ended early: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the victim's tool did not take its next line")
		}
	}
	step() // the first entry goes out with the block open
	rtaFlood(t, flood, 1100)
	step()
	step()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := received()
	for _, v := range vals {
		if strings.Contains(got, v) {
			t.Errorf("%.20s... reached the victim's client after the flood:\n%s", v, got)
		}
	}
}

func TestRedTeamRTA_FloodOfTokensKeepsOtherSessionsStream(t *testing.T) {
	rtaFloodLeaks(t, 1)
}

// Many sessions, a stream each: a stream inside a Secret's data block is
// forgotten last.
func TestRedTeamRTA_FloodOfSessionsKeepsStreamInBlock(t *testing.T) {
	rtaFloodLeaks(t, 1100)
}
