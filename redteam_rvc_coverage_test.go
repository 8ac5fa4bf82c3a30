package gatehouse_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team rvc: coverage of message kinds and fields. Every server-to-client
// path a tool handler or a server author can reach, with the README's setup
// (a Guard with nil Options: the built-in pack, detect_encoding off), checked
// on the bytes the client's connection reads: no planted secret may arrive
// in any string of any message, nor base64-decoded, nor percent-decoded.
// Each case is run twice: with the secret, and with an ordinary text (ids,
// hashes, a UUID) that must arrive unchanged.

// rvcSecret holds an AWS key, a GitHub token, a password assignment and a
// PEM private key; its first bytes are the AWS key, so its base64 starts
// with the key's.
var rvcSecret = wireKey + " " + wireGH + "\npassword=Hunter2Sup3rS3cret\n" + strings.Join(rtKeyLines, "\n")

// rvcNeedles are the fragments whose arrival is a leak.
var rvcNeedles = []string{wireKey[4:], wireGH[4:], "Hunter2Sup3rS3cret", rtKeyLines[1][20:40], rtKeyLines[2][20:40], rtKeyLines[3][20:40]}

// rvcBenign is ordinary text a server sends: it must arrive unchanged.
const rvcBenign = "build 4f9c2e1d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d id 123e4567-e89b-12d3-a456-426614174000 sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok"

// rvcRecorder keeps every message the client's connection reads.
type rvcRecorder struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (r *rvcRecorder) add(raw []byte) {
	r.mu.Lock()
	r.msgs = append(r.msgs, raw)
	r.mu.Unlock()
}

func (r *rvcRecorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

func (r *rvcRecorder) since(m int) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.msgs[m:]...)
}

type rvcTransport struct {
	mcp.Transport
	r *rvcRecorder
}

func (t rvcTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rvcConn{c, t.r}, nil
}

type rvcConn struct {
	mcp.Connection
	r *rvcRecorder
}

func (c rvcConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		if raw, eerr := jsonrpc.EncodeMessage(m); eerr == nil {
			c.r.add(raw)
		}
	}
	return m, err
}

// rvcStrings returns every string and object key of the messages, each
// also base64-decoded and percent-decoded where it decodes.
func rvcStrings(t *testing.T, msgs [][]byte) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	add := func(s string) {
		out = append(out, s)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			out = append(out, string(b))
		}
		if b, err := base64.URLEncoding.DecodeString(s); err == nil {
			out = append(out, string(b))
		}
		if u, err := url.PathUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
		if u, err := url.QueryUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
	}
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			add(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				add(k)
				walk(e)
			}
		}
	}
	for _, raw := range msgs {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("the client read a message that is not JSON: %s", raw)
		}
		walk(v)
	}
	return out
}

// rvcLeaks returns the needles found in msgs, with the string they were in.
func rvcLeaks(t *testing.T, msgs [][]byte, joined bool) []string {
	t.Helper()
	strs := rvcStrings(t, msgs)
	if joined {
		// A secret split across messages: the strings read one after
		// another, as the client's model reads them.
		strs = append(strs, strings.Join(strs, ""))
	}
	var out []string
	for _, s := range strs {
		for _, n := range rvcNeedles {
			if strings.Contains(s, n) {
				out = append(out, fmt.Sprintf("%q in %.120q", n[:6], s))
			}
		}
	}
	return out
}

// rvcRig is a guarded server whose handlers send v on every path.
type rvcRig struct {
	s    *mcp.Server
	ss   *mcp.ServerSession
	cs   *mcp.ClientSession
	rec  *rvcRecorder
	late chan struct{} // a log message arrived on the client
	v    string
}

const rvcPolicy = "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: rvc}\nspec:\n  allowed_tools: [emit]\n  allowed_methods: ['*']\n"

func newRVCRig(t *testing.T, v, proto string) *rvcRig {
	t.Helper()
	rig := &rvcRig{rec: new(rvcRecorder), late: make(chan struct{}, 16), v: v}
	g := mustGuard(t, mustPolicy(t, rvcPolicy), nil) // the README's setup: DLP on by default
	s := mcp.NewServer(&mcp.Implementation{Name: "rvc", Version: "1", Title: "server " + v}, &mcp.ServerOptions{
		Instructions:       "instructions: " + v,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{v}}, Meta: mcp.Meta{"m": v}}, nil
		},
	})
	rig.s = s
	s.AddTool(&mcp.Tool{Name: "emit", Title: "emit " + v, Description: "description " + v, Meta: mcp.Meta{"m": v},
		Annotations: &mcp.ToolAnnotations{Title: "annotation " + v},
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"case": map[string]any{"type": "string", "description": v, "default": v}}}},
		rig.emit)
	s.AddResource(&mcp.Resource{URI: "file:///r", Name: "r", Description: "resource " + v, Meta: mcp.Meta{"m": v}}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: "file:///r", MIMEType: "text/plain", Text: v, Meta: mcp.Meta{"m": v}},
			{URI: "file:///r", MIMEType: "application/octet-stream", Blob: []byte(v)},
		}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///fails", Name: "fails"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("could not read: " + v)
	})
	s.AddResource(&mcp.Resource{URI: "file:///rpcfails", Name: "rpcfails"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		data, _ := json.Marshal(map[string]any{"detail": v})
		return nil, &jsonrpc.Error{Code: -32001, Message: "could not read: " + v, Data: data}
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t", Description: "template " + v}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///t/1", Text: v}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p", Description: "prompt " + v, Arguments: []*mcp.PromptArgument{{Name: "a", Description: v}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: v, Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: v}},
			{Role: "assistant", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e", Blob: []byte(v)}}},
		}}, nil
	})
	g.Install(s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	rig.ss = ss
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, rvcClientOptions(rig.late)).Connect(context.Background(), rvcTransport{ct, rig.rec}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	rig.cs = cs
	if proto < newProtocol {
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
	}
	return rig
}

// rvcConnect connects a client to s in memory through a transport whose
// recorder keeps every message the client reads; both sessions close when
// the test ends.
func rvcConnect(t *testing.T, s *mcp.Server) (*mcp.ClientSession, *rvcRecorder) {
	t.Helper()
	rec := new(rvcRecorder)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), rvcTransport{ct, rec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

// rvcList returns what id says of each item a client's list iterator
// gives, in order, failing the test on an error.
func rvcList[T any](t *testing.T, items iter.Seq2[T, error], id func(T) string) []string {
	t.Helper()
	var out []string
	for it, err := range items {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id(it))
	}
	return out
}

func rvcClientOptions(late chan struct{}) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
			Sampling:    &mcp.SamplingCapabilities{},
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "fine"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if req.Params.Logger == "late" {
				late <- struct{}{}
			}
		},
	}
}

// emit is the tool: it sends its rig's value on the path its "case" names.
func (rig *rvcRig) emit(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{ Case string }
	json.Unmarshal(req.Params.Arguments, &args)
	v, ss := rig.v, req.Session
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	ok := &mcp.CallToolResult{Content: text("ok")}
	png := []byte("\x89PNG\r\n\x1a\n")
	half := len(wireGH) / 2
	first, second := v, v
	if v == rvcSecret {
		first, second = "token "+wireGH[:half], wireGH[half:]+" end"
	}
	log := func(p *mcp.LoggingMessageParams) (*mcp.CallToolResult, error) {
		if p.Level == "" {
			p.Level = "info"
		}
		return ok, ss.Log(ctx, p)
	}
	switch args.Case {
	case "text":
		return &mcp.CallToolResult{Content: text(v)}, nil
	case "text meta":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok", Meta: mcp.Meta{"m": v}}}}, nil
	case "text annotations":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok", Annotations: &mcp.Annotations{LastModified: v}}}}, nil
	case "image data":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte(v), MIMEType: "image/png"}}}, nil
	case "image mimeType":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png; x=" + v}}}, nil
	case "audio data":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: []byte(v), MIMEType: "audio/wav"}}}, nil
	case "audio meta":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: png, MIMEType: "audio/wav", Meta: mcp.Meta{"m": map[string]any{"deep": []any{v}}}}}}, nil
	case "resource_link":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "https://x.example/?q=" + url.QueryEscape(v), Name: v, Title: v, Description: v, MIMEType: "text/plain", Icons: []mcp.Icon{{Source: "https://x.example/i.png?" + v}}}}}, nil
	case "embedded text":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e", Text: v, Meta: mcp.Meta{"m": v}}, Meta: mcp.Meta{"m": v}}}}, nil
	case "embedded blob":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e", MIMEType: "application/octet-stream", Blob: []byte(v)}}}}, nil
	case "embedded uri":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "https://x.example/?q=" + url.QueryEscape(v), Text: "ok"}}}}, nil
	case "structuredContent":
		return &mcp.CallToolResult{Content: text("ok"), StructuredContent: map[string]any{"out": map[string]any{"env": []any{v}}, v[:20]: 1}}, nil
	case "result meta":
		return &mcp.CallToolResult{Content: text("ok"), Meta: mcp.Meta{"m": v}}, nil
	case "isError":
		return &mcp.CallToolResult{Content: text(v), IsError: true}, nil
	case "go error":
		return nil, errors.New("failed: " + v)
	case "jsonrpc error":
		data, _ := json.Marshal(map[string]any{"detail": v})
		return nil, &jsonrpc.Error{Code: -32001, Message: "failed: " + v, Data: data}
	case "wrapped jsonrpc error":
		return nil, fmt.Errorf("wrapped %s: %w", v, &jsonrpc.Error{Code: -32001, Message: v})
	case "split blocks":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: first}, &mcp.TextContent{Text: second}}}, nil
	case "log string":
		return log(&mcp.LoggingMessageParams{Data: v})
	case "log object":
		return log(&mcp.LoggingMessageParams{Data: map[string]any{"env": map[string]any{"list": []any{1, v}}, v[:20]: true}})
	case "log logger":
		return log(&mcp.LoggingMessageParams{Data: "x", Logger: v})
	case "log meta":
		return log(&mcp.LoggingMessageParams{Data: "x", Meta: mcp.Meta{"m": v}})
	case "log error level":
		return log(&mcp.LoggingMessageParams{Data: v, Level: "emergency"})
	case "log split":
		if _, err := log(&mcp.LoggingMessageParams{Data: first}); err != nil {
			return nil, err
		}
		return log(&mcp.LoggingMessageParams{Data: second})
	case "progress message":
		return ok, ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: v, Progress: 1})
	case "progress token":
		return ok, ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: v, Message: "m", Progress: 1, Meta: mcp.Meta{"m": v}})
	case "sampling":
		_, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, SystemPrompt: v, Metadata: map[string]any{"m": v},
			ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: v}}},
			Messages:         []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: v}}, {Role: "user", Content: &mcp.ImageContent{Data: []byte(v), MIMEType: "image/png"}}}})
		return ok, err
	case "elicit form":
		_, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: v, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"a": map[string]any{"type": "string", "title": v, "description": v, "default": v},
			"b": map[string]any{"type": "string", "enum": []any{v}},
		}}})
		return ok, err
	case "elicit url":
		_, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "open", URL: "https://x.example/?q=" + url.QueryEscape(v), ElicitationID: "e1"})
		return ok, err
	case "roots":
		_, err := ss.ListRoots(ctx, &mcp.ListRootsParams{Meta: mcp.Meta{"m": v}})
		return ok, err
	case "ping":
		return ok, ss.Ping(ctx, &mcp.PingParams{Meta: mcp.Meta{"m": v}})
	case "resource updated":
		return ok, rig.s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "file:///r", Meta: mcp.Meta{"m": v}})
	case "input requests", "request state":
		if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
			return ok, nil // the retry with the client's answers
		}
		res := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"e": &mcp.ElicitParams{Message: "m", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "description": v}}}},
		}, RequestState: "s1"}
		if args.Case == "input requests" {
			res.InputRequests["e"].(*mcp.ElicitParams).Message = v
			res.InputRequests["s"] = &mcp.CreateMessageParams{MaxTokens: 10, SystemPrompt: v, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: v}}}}
		} else {
			res.RequestState = base64.StdEncoding.EncodeToString([]byte(`{"step": 2, "fetched": ` + jsonQuote(v) + `}`))
		}
		return res, nil
	case "late log":
		go func() {
			<-ctx.Done() // the call has returned
			ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Logger: "late", Data: v})
		}()
		return ok, nil
	}
	return nil, fmt.Errorf("unknown case %q", args.Case)
}

// rvcCases are the client's actions, each reaching one path.
var rvcCases = map[string]func(context.Context, *rvcRig) error{}

func init() {
	call := func(name string) func(context.Context, *rvcRig) error {
		return func(ctx context.Context, rig *rvcRig) error {
			p := &mcp.CallToolParams{Name: "emit", Arguments: map[string]any{"case": name}}
			p.SetProgressToken("tok-1")
			_, err := rig.cs.CallTool(ctx, p)
			return err
		}
	}
	for _, c := range []string{"text", "text meta", "text annotations", "image data", "image mimeType", "audio data", "audio meta",
		"resource_link", "embedded text", "embedded blob", "embedded uri", "structuredContent", "result meta", "isError",
		"go error", "jsonrpc error", "wrapped jsonrpc error", "split blocks",
		"log string", "log object", "log logger", "log meta", "log error level", "log split",
		"progress message", "progress token", "sampling", "elicit form", "elicit url", "roots", "ping",
		"input requests", "request state"} {
		rvcCases["call/"+c] = call(c)
	}
	rvcCases["call/resource updated"] = func(ctx context.Context, rig *rvcRig) error {
		if err := rig.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///r"}); err != nil {
			return err
		}
		return call("resource updated")(ctx, rig)
	}
	rvcCases["call/late log"] = func(ctx context.Context, rig *rvcRig) error {
		if err := call("late log")(ctx, rig); err != nil {
			return err
		}
		<-rig.late
		return nil
	}
	rvcCases["initialize"] = func(context.Context, *rvcRig) error { return nil } // recorded at connect
	rvcCases["tools/list"] = func(ctx context.Context, rig *rvcRig) error { _, err := rig.cs.ListTools(ctx, nil); return err }
	rvcCases["resources/list"] = func(ctx context.Context, rig *rvcRig) error { _, err := rig.cs.ListResources(ctx, nil); return err }
	rvcCases["resources/templates/list"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.cs.ListResourceTemplates(ctx, nil)
		return err
	}
	rvcCases["resources/read"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///r"})
		return err
	}
	rvcCases["resources/read template"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///t/1"})
		return err
	}
	rvcCases["resources/read error"] = func(ctx context.Context, rig *rvcRig) error {
		rig.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///fails"})
		_, err := rig.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///rpcfails"})
		if err == nil {
			return errors.New("no error")
		}
		return nil
	}
	rvcCases["prompts/list"] = func(ctx context.Context, rig *rvcRig) error { _, err := rig.cs.ListPrompts(ctx, nil); return err }
	rvcCases["prompts/get"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"})
		return err
	}
	rvcCases["completion/complete"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "x"}})
		return err
	}
	rvcCases["outside a call: sampling"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, SystemPrompt: rig.v, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: rig.v}}}})
		return err
	}
	rvcCases["outside a call: log"] = func(ctx context.Context, rig *rvcRig) error {
		err := rig.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "late", Data: rig.v})
		<-rig.late
		return err
	}
	rvcCases["outside a call: elicit"] = func(ctx context.Context, rig *rvcRig) error {
		_, err := rig.ss.Elicit(ctx, &mcp.ElicitParams{Message: rig.v, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "description": rig.v}}}})
		return err
	}
}

// rvcSessionOnly reports whether a case's messages need a session
// (protocols before 2026-07-28): server-to-client requests during a call,
// logging, subscriptions, messages outside a call.
func rvcSessionOnly(name string) bool {
	for _, p := range []string{"call/log", "call/sampling", "call/elicit", "call/roots", "call/ping", "call/resource updated", "call/late log", "outside a call"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rvcErrorCases are the cases whose call fails by design.
var rvcErrorCases = map[string]bool{"call/go error": true, "call/jsonrpc error": true, "call/wrapped jsonrpc error": true}

func TestRedTeamRVC_EveryPathRedacted(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		t.Run(proto, func(t *testing.T) { rvcEveryPath(t, proto) })
	}
}

func rvcEveryPath(t *testing.T, proto string) {
	leaky := newRVCRig(t, rvcSecret, proto)
	benign := newRVCRig(t, rvcBenign, proto)
	initLeaks := rvcLeaks(t, leaky.rec.since(0), false)
	if !strings.Contains(strings.Join(rvcStrings(t, benign.rec.since(0)), "\n"), rvcBenign) {
		t.Errorf("initialize: the ordinary text did not arrive unchanged")
	}
	for name, do := range rvcCases {
		if proto >= newProtocol && rvcSessionOnly(name) {
			continue // go-sdk sends none of these on the sessionless protocol
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if name == "initialize" {
				if len(initLeaks) > 0 {
					t.Errorf("leaked: %s", strings.Join(initLeaks, "; "))
				}
				return
			}
			m := leaky.rec.mark()
			err := do(ctx, leaky)
			if err != nil && !rvcErrorCases[name] {
				t.Logf("secret run: %v", err) // a withheld message is an error to its sender
			}
			if l := rvcLeaks(t, leaky.rec.since(m), true); len(l) > 0 {
				t.Errorf("leaked: %s", strings.Join(l, "; "))
			}
			m = benign.rec.mark()
			if err := do(ctx, benign); err != nil && !rvcErrorCases[name] {
				t.Errorf("ordinary text: %v", err)
			}
			got := strings.Join(rvcStrings(t, benign.rec.since(m)), "\n")
			if !strings.Contains(got, rvcBenign) {
				t.Errorf("the ordinary text did not arrive unchanged: %.600s", got)
			}
			if strings.Contains(got, "REDACTED") {
				t.Errorf("the ordinary text was redacted: %.600s", got)
			}
		})
	}
}

// rvcGuardOff is the opt-out: with DLP off, the secret arrives (the test's
// own check that it sees what the client reads).
func TestRedTeamRVC_OptOutSendsAsIs(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rvcPolicy), &gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true}})
	s := mcp.NewServer(&mcp.Implementation{Name: "rvc", Version: "1"}, nil)
	textTool(s, "emit", func(map[string]any) string { return rvcSecret }, nil)
	g.Install(s)
	cs, rec := rvcConnect(t, s)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "emit", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if len(rvcLeaks(t, rec.since(0), false)) == 0 {
		t.Fatal("with DLP off the recorder saw no secret: the check does not see what the client reads")
	}
}

// A list's nextCursor is go-sdk's base64 of the last item's id (a
// resource's URI, a template's URI template, a prompt's or a tool's
// name): a URI with a credential in it is redacted in the list and was
// sent whole, base64-encoded, in the cursor.
func TestRedTeamRVC_ListCursors(t *testing.T) {
	const dbURL = "postgres://admin:Xy7kLm9Qz2wR@db.example:5432/app"
	g := mustGuard(t, mustPolicy(t, strings.Replace(rvcPolicy, "[emit]", "[emit, a_tool, z_tool, "+wireKey+"]", 1)), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rvc", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	read := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("no")
	}
	for _, u := range []string{"file:///a", dbURL, "file:///b?x=1", "zz:///z"} {
		s.AddResource(&mcp.Resource{URI: u, Name: "r"}, read)
	}
	for _, u := range []string{"file:///t/{a}", dbURL + "/{table}", "zz:///{z}"} {
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: u, Name: "t"}, read)
	}
	// An AWS key is a valid tool and prompt name.
	for _, n := range []string{"a_tool", wireKey, "emit", "z_tool"} {
		textTool(s, n, func(map[string]any) string { return "ok" }, nil)
		s.AddPrompt(&mcp.Prompt{Name: n}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("no")
		})
	}
	g.Install(s)
	cs, rec := rvcConnect(t, s)
	ctx := context.Background()
	prompts := rvcList(t, cs.Prompts(ctx, nil), func(x *mcp.Prompt) string { return x.Name })
	if len(prompts) != 4 || prompts[1] != "a_tool" || prompts[2] != "emit" || prompts[3] != "z_tool" {
		t.Errorf("prompts listed: %q", prompts)
	}
	tools := rvcList(t, cs.Tools(ctx, nil), func(x *mcp.Tool) string { return x.Name })
	if len(tools) != 4 || tools[1] != "a_tool" || tools[2] != "emit" || tools[3] != "z_tool" {
		t.Errorf("tools listed: %q", tools)
	}
	uris := rvcList(t, cs.Resources(ctx, nil), func(x *mcp.Resource) string { return x.URI })
	templates := rvcList(t, cs.ResourceTemplates(ctx, nil), func(x *mcp.ResourceTemplate) string { return x.URITemplate })
	// Every item is listed (the one with the credential redacted), in
	// the server's order: the guard joins pages, it drops none.
	if len(uris) != 4 || uris[0] != "file:///a" || uris[1] != "file:///b?x=1" || uris[3] != "zz:///z" {
		t.Errorf("resources listed: %q", uris)
	}
	if len(templates) != 3 || templates[0] != "file:///t/{a}" || templates[2] != "zz:///{z}" {
		t.Errorf("templates listed: %q", templates)
	}
	for _, str := range rvcStrings(t, rec.since(0)) {
		if strings.Contains(str, "Xy7kLm9Qz2wR") || strings.Contains(str, wireKey[4:]) {
			t.Errorf("the database password reached the client: %q", str)
		}
	}
}

// Accepted leftover (red team rvc): a secret a server encodes itself in a
// text (base64 of an AWS key in a log line) is redacted only with the
// policy's dlp.detect_encoding on; the default reads the encodings a field
// or a URL has by definition, and every percent-encoded run (image and audio data, resource blobs, URLs, requestState, list
// cursors), not every run of base64 in prose, which costs a decode of
// every 16-byte run and redacts ids that decode to text. `gatehouse dlp
// scan` warns about these.
func TestRedTeamRVC_EncodedInTextIsOptIn(t *testing.T) {
	text := "state=" + base64.StdEncoding.EncodeToString([]byte(wireKey)) + " q=password%3DHunter2Sup3rS3cret"
	for _, on := range []bool{false, true} {
		pol := rvcPolicy
		if on {
			pol += "  dlp:\n    detect_encoding: true\n    patterns:\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n"
		}
		g := mustGuard(t, mustPolicy(t, pol), nil)
		s := mcp.NewServer(&mcp.Implementation{Name: "rvc", Version: "1"}, nil)
		textTool(s, "emit", func(map[string]any) string { return text }, nil)
		g.Install(s)
		_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "emit", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Content[0].(*mcp.TextContent).Text
		if on && strings.Contains(got, "Hunter2") || on && strings.Contains(got, "QUtJQVo3") {
			t.Errorf("detect_encoding on: not redacted: %q", got)
		}
		// A percent-encoded run is read decoded by default wherever it
		// is (red team rve: a URL without a scheme, a path, a link in
		// prose); base64 in prose stays opt-in.
		if !on && (!strings.HasPrefix(got, "state=QUtJQVo3") || strings.Contains(got, "Hunter2")) {
			t.Errorf("default: the accepted leftover changed (update this test and the report): %q", got)
		}
	}
}
