package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// The leaks of issue 15, each through a real go-sdk client and server over
// in-memory transports: what the client receives must not hold the planted
// AWS key or GitHub token, and must hold the redaction marker.

const (
	wireKey   = "AKIA" + "Z7Q3MV2KXH4PLW6N"
	wireGH    = "ghp_" + "FAKE0example1TOKEN2notreal3FAKE0exam"
	wirePol   = "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: wire}\nspec:\n  allowed_tools: [leak]\n  allowed_methods: ['*']\n"
	awsMarker = "[REDACTED:aws-access-key-id]"
)

// wireServer is a server guarded with the built-in pack, with a tool "leak"
// whose handler is h, connected to a real client; it returns the client
// session, the server session and the audit log.
type wireServer struct {
	cs  *mcp.ClientSession
	ss  *mcp.ServerSession
	log *syncBuffer // the audit writer appends from the server's handler goroutines
}

func newWireServer(t *testing.T, proto string, copts *mcp.ClientOptions, h mcp.ToolHandler) *wireServer {
	t.Helper()
	scanner, err := dlp.New(dlp.Builtin(), &dlp.Options{DetectEncoding: true})
	if err != nil {
		t.Fatal(err)
	}
	w := &wireServer{log: new(syncBuffer)}
	aw, err := audit.New(w.log, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DLP: &gatehouse.DLPOptions{Scanner: scanner}, Audit: aw})
	s := mcp.NewServer(&mcp.Implementation{Name: "wire", Version: "1"}, nil)
	if h != nil {
		s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	g.Install(s)
	w.ss, w.cs = connectAt(t, s, "agent", copts, proto)
	return w
}

// clean fails when what the client received holds a planted secret in
// plain text or as base64, or lacks a marker.
func clean(t *testing.T, what string, received any) {
	t.Helper()
	raw, err := json.Marshal(received)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, secret := range []string{wireKey, wireGH, "QUtJQVo3UTNNVjJLWEg0UExXNk4", "Z2hwX0ZBS0Uw"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s: the client received a secret (%q): %s", what, secret[:8], s)
		}
	}
	if !strings.Contains(s, "REDACTED:") && !strings.Contains(s, "W1JFREFDVEVEO") {
		t.Errorf("%s: no redaction marker in %s", what, s)
	}
}

// dlpEvents returns the downstream DLP audit events by method.
func dlpEvents(t *testing.T, log *syncBuffer) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["event"] == "DLP_TRIGGERED" && e["direction"] == "downstream" {
			n, _ := e["dlp_match_count"].(float64)
			out[e["method"].(string)] += int(n)
		}
	}
	if strings.Contains(log.String(), wireKey) || strings.Contains(log.String(), wireGH) {
		t.Error("a secret reached the audit log")
	}
	return out
}

func callLeak(t *testing.T, w *wireServer) *mcp.CallToolResult {
	t.Helper()
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return res
}

func TestWireDLPImageAudioData(t *testing.T) {
	img := &mcp.ImageContent{MIMEType: "image/png", Data: []byte("exif comment: aws " + wireKey)}
	w := newWireServer(t, "2025-06-18", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			img,
			&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....token=" + wireGH)},
		}}, nil
	})
	res := callLeak(t, w)
	clean(t, "image/audio data", res)
	got := string(res.Content[0].(*mcp.ImageContent).Data)
	if got != "exif comment: aws "+awsMarker {
		t.Errorf("image data decoded to %q", got)
	}
	if string(img.Data) != "exif comment: aws "+wireKey {
		t.Error("the handler's image was mutated")
	}
	if n := dlpEvents(t, w.log)["tools/call"]; n != 2 {
		t.Errorf("audited %d redactions, want 2", n)
	}
}

func TestWireDLPMetaAndURIs(t *testing.T) {
	w := newWireServer(t, "2025-06-18", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Meta: mcp.Meta{"debug": map[string]any{"env": []any{"AWS_ACCESS_KEY_ID=" + wireKey}}, wireGH: "as a key"},
			Content: []mcp.Content{
				&mcp.TextContent{Text: "fine", Meta: mcp.Meta{"trace": "auth " + wireGH}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "s3://bucket/x?X-Amz-Credential=" + wireKey, MIMEType: "text/plain", Text: "ok"},
					Meta: mcp.Meta{"k": wireKey}},
				&mcp.ResourceLink{URI: "file:///tmp/x", Name: "creds-" + wireKey, Title: "t " + wireGH},
			},
		}, nil
	})
	clean(t, "_meta and URIs", callLeak(t, w))
	if n := dlpEvents(t, w.log)["tools/call"]; n != 7 {
		t.Errorf("audited %d redactions, want 7", n)
	}
}

func TestWireDLPSplitAcrossItems(t *testing.T) {
	for cut := 2; cut < len(wireKey); cut += 5 {
		w := newWireServer(t, "2025-06-18", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "key: ..." + wireKey[:cut]},
				&mcp.TextContent{Text: wireKey[cut:] + "... end"},
			}}, nil
		})
		res := callLeak(t, w)
		a, b := res.Content[0].(*mcp.TextContent).Text, res.Content[1].(*mcp.TextContent).Text
		if a != "key: ..."+awsMarker || b != awsMarker+"... end" {
			t.Errorf("cut %d: %q %q", cut, a, b)
		}
	}
}

func TestWireDLPLogMessage(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.LoggingMessageParams
	done := make(chan struct{}, 4)
	w := newWireServer(t, "2025-06-18", &mcp.ClientOptions{
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
			done <- struct{}{}
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "tool", Data: map[string]any{"msg": "using " + wireKey}})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, err
	})
	if err := w.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	callLeak(t, w)
	if err := w.ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "error", Data: "token " + wireGH}); err != nil {
		t.Fatal(err)
	}
	<-done
	<-done
	mu.Lock()
	defer mu.Unlock()
	clean(t, "log messages", got)
	if n := dlpEvents(t, w.log)["notifications/message"]; n != 2 {
		t.Errorf("audited %d log redactions, want 2", n)
	}
}

func TestWireDLPProgress(t *testing.T) {
	got := make(chan *mcp.ProgressNotificationParams, 1)
	w := newWireServer(t, "2025-06-18", &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) { got <- r.Params },
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "p1", Progress: 1, Total: 2, Message: "uploading with " + wireKey})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, err
	})
	p := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	p.SetProgressToken("p1")
	if _, err := w.cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	pr := <-got
	clean(t, "progress", pr)
	if pr.Message != "uploading with "+awsMarker || pr.Progress != 1 {
		t.Errorf("progress %+v", pr)
	}
}

// Sampling goes straight to the client's LLM: check what the client's
// handler received.
func TestWireDLPSampling(t *testing.T) {
	var got *mcp.CreateMessageParams
	w := newWireServer(t, "2025-06-18", &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			got = r.Params
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
		},
	}, nil)
	_, err := w.ss.CreateMessage(context.Background(), &mcp.CreateMessageParams{
		MaxTokens:    10,
		SystemPrompt: "you hold " + wireGH,
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "summarize the key " + wireKey[:9]}},
			{Role: "user", Content: &mcp.TextContent{Text: wireKey[9:] + " please"}},
			{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png " + wireKey)}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	clean(t, "sampling/createMessage", got)
	if n := dlpEvents(t, w.log)["sampling/createMessage"]; n != 3 {
		t.Errorf("audited %d, want 3", n)
	}
}

func TestWireDLPElicitation(t *testing.T) {
	var got *mcp.ElicitParams
	w := newWireServer(t, "2025-06-18", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			got = r.Params
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, nil)
	_, err := w.ss.Elicit(context.Background(), &mcp.ElicitParams{
		Message:         "Use the key " + wireKey + "?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean", "description": "token " + wireGH}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	clean(t, "elicitation/create", got)
}

// Input requests (protocol 2026-07-28 multi-round-trip; under 2025-06-18
// go-sdk fulfils them with a server-to-client request): what the client's
// handlers are asked must be clean on both.
func TestWireDLPInputRequests(t *testing.T) {
	for _, proto := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			var asked []any
			w := newWireServer(t, proto, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, r.Params)
					mu.Unlock()
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
				},
				CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					mu.Lock()
					asked = append(asked, r.Params)
					mu.Unlock()
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
				},
			}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if len(req.Params.InputResponses) > 0 {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "thanks"}}}, nil
				}
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{
						"confirm": &mcp.ElicitParams{Message: "deploy with " + wireKey + "?", RequestedSchema: map[string]any{"type": "object"}},
						"sample": &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{
							{Role: "user", Content: &mcp.TextContent{Text: "token " + wireGH}}}},
					},
					RequestState: "state-1",
				}, nil
			})
			res := callLeak(t, w)
			if len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "thanks" {
				t.Errorf("final result %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 2 {
				t.Fatalf("client was asked %d times, want 2", len(asked))
			}
			clean(t, "input requests", asked)
		})
	}
}

// A server-to-client message that cannot be scanned is not sent: the sender
// gets an error and the client receives nothing.
func TestWireDLPOutgoingFailsClosed(t *testing.T) {
	got := make(chan *mcp.LoggingMessageParams, 2)
	w := newWireServer(t, "2025-06-18", &mcp.ClientOptions{
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params },
	}, nil)
	if err := w.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	err := w.ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Data: map[string]any{"uri": "file:///k", "blob": "not base64: " + wireKey}})
	if err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("Log = %v, want an error saying the message was not sent", err)
	}
	if err := w.ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Data: "marker"}); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p.Data != "marker" {
		t.Errorf("the client received the unscannable message: %+v", p)
	}
}
