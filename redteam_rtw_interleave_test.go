package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtw: a session's log messages of one logger were one stream, so
// two calls of a tool that streams a command's output under one logger
// (the model runs kubectl twice at once) shared its kept end: a line of the
// other call's output between two lines of a Secret's data block ended the
// block there, and its next entries went out in the clear. Each call's
// messages are now a stream of their own.

// rtwTwoCalls runs a call that logs lines and one that logs other, one of
// other's after each of lines', at once in one session under one logger,
// and returns what the client received of each call's lines, joined.
func rtwTwoCalls(t *testing.T, lines []string, other string) (first, second string) {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, strings.Replace(wirePol, "[leak]", "[kubectl]", 1)), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "kube", Version: "1"}, nil)
	turn, done := make(chan struct{}), make(chan struct{})
	var sent sync.WaitGroup
	s.AddTool(&mcp.Tool{Name: "kubectl", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Get string }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		// The client tells the calls apart by level, which is no part of
		// a stream.
		level := map[string]mcp.LoggingLevel{"secrets": "info", "pods": "notice"}[args.Get]
		log := func(line string) error {
			sent.Add(1)
			return req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "kubectl", Data: line})
		}
		if args.Get == "pods" {
			for range turn {
				if err := log(other); err != nil {
					return nil, err
				}
				done <- struct{}{}
			}
		} else {
			defer close(turn)
			for _, l := range lines {
				if err := log(l); err != nil {
					return nil, err
				}
				turn <- struct{}{}
				<-done
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	g.Install(s)
	var mu sync.Mutex
	got := map[string]*strings.Builder{"secrets": {}, "pods": {}}
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			text, _ := r.Params.Data.(string)
			got[map[mcp.LoggingLevel]string{"info": "secrets", "notice": "pods"}[r.Params.Level]].WriteString(text)
			sent.Done()
		},
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	var calls sync.WaitGroup
	for _, get := range []string{"pods", "secrets"} {
		calls.Go(func() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "kubectl", Arguments: map[string]any{"get": get}}); err != nil {
				t.Error(err)
			}
		})
	}
	calls.Wait()
	sent.Wait()
	mu.Lock()
	defer mu.Unlock()
	return got["secrets"].String(), got["pods"].String()
}

func TestRedTeamRTW_InterleavedCallsOneLogger(t *testing.T) {
	for _, style := range []string{"plain", "blank lines", "block scalar"} {
		doc, vals := rtwManifest(style, 600)
		lines := strings.SplitAfter(doc, "\n")
		secrets, pods := rtwTwoCalls(t, lines, "web-7d4b9c-xk2lp   1/1   Running   0   3d\n")
		if v, leaked := rtwLeaked(secrets, vals); leaked {
			t.Errorf("%s: %s reached the client:\n%s", style, v, secrets)
		}
		if want := strings.Repeat("web-7d4b9c-xk2lp   1/1   Running   0   3d\n", len(lines)); pods != want {
			t.Errorf("%s: the other call's lines were changed:\n%s", style, pods)
		}
	}
}

// Near miss and continuity: a stream that goes on across calls that follow
// each other (a command's output logged a chunk a call) is still joined
// from one call's last message to the next call's first, and two calls
// at once whose lines hold no secret reach the client as sent.
func TestRedTeamRTW_StreamAcrossCalls(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, strings.Replace(wirePol, "[leak]", "[tail]", 1)), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "kube", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "tail", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Chunk string }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "tail", Data: args.Chunk}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	g.Install(s)
	got := make(chan string, 4)
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params.Data.(string) },
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, chunk := range []string{"export GITHUB_TOKEN=" + wireGH[:20], wireGH[20:] + "\nbuild ok\n"} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tail", Arguments: map[string]any{"chunk": chunk}}); err != nil {
			t.Fatal(err)
		}
		out = append(out, <-got)
	}
	if strings.Contains(out[1], wireGH[20:]) || !strings.HasSuffix(out[1], "\nbuild ok\n") {
		t.Errorf("the second call's share of the token: %q", out[1])
	}
	lines := []string{"NAME   READY   STATUS\n", "  api-0   1/1   Running\n", "\n", "  # restarted\n"}
	if secrets, pods := rtwTwoCalls(t, lines, "web-0 1/1 Running\n"); secrets != strings.Join(lines, "") || pods != strings.Repeat("web-0 1/1 Running\n", len(lines)) {
		t.Errorf("changed: %q, %q", secrets, pods)
	}
}
