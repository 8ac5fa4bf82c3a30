package mcpredact_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

const key = "AKIA" + "Z7Q3MV2KXH4PLW6N"

// scanner returns the tests' scanner: built once (a Scanner is immutable
// and safe for concurrent use), since building one per text cost the
// package's tests minutes under -race.
func scanner(t testing.TB) *dlp.Scanner {
	t.Helper()
	s, err := sharedScanner()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var sharedScanner = sync.OnceValues(func() (*dlp.Scanner, error) {
	return dlp.New(dlp.Builtin(), &dlp.Options{DetectEncoding: true})
})

func wire(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// Every result type go-sdk servers return comes back redacted, of the same
// type, with the secret gone from its wire form and the handler's value
// untouched.
func TestResultEveryType(t *testing.T) {
	s := scanner(t)
	results := []mcp.Result{
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: key}}, StructuredContent: map[string]any{"k": key}},
		&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a", Blob: []byte("x " + key)}}},
		&mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: key}}}},
		&mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{key}}},
		&mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "file:///" + key, Name: "r"}}},
		&mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "t", Description: "uses " + key, InputSchema: map[string]any{"type": "object"}}}},
		&mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "p", Description: key}}},
		&mcp.InitializeResult{ProtocolVersion: "2025-06-18", Instructions: "key " + key, ServerInfo: &mcp.Implementation{Name: "s", Version: "1"}},
	}
	for _, r := range results {
		before := wire(t, r)
		out, f, err := mcpredact.Result(s, r, nil)
		if err != nil {
			t.Errorf("%T: %v", r, err)
			continue
		}
		w := wire(t, out)
		if rr, ok := out.(*mcp.ReadResourceResult); ok {
			w += string(rr.Contents[0].Blob)
		}
		if strings.Contains(w, key) || !strings.Contains(w, "[REDACTED:aws-access-key-id]") {
			t.Errorf("%T: %s", r, w)
		}
		if len(f) != 1 || f[0].Rule != "aws-access-key-id" || f[0].Count < 1 {
			t.Errorf("%T: findings %+v", r, f)
		}
		if wire(t, r) != before {
			t.Errorf("%T: the original was mutated", r)
		}
	}
}

// Nothing found: the very same value comes back, no findings.
func TestResultCleanIsIdentity(t *testing.T) {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}}
	out, f, err := mcpredact.Result(scanner(t), r, nil)
	if err != nil || f != nil || out != mcp.Result(r) {
		t.Errorf("%v %v %v", out, f, err)
	}
	if out, f, err := mcpredact.Result(nil, r, nil); out != mcp.Result(r) || f != nil || err != nil {
		t.Error("nil scanner")
	}
	var nilRes *mcp.CallToolResult
	if out, _, err := mcpredact.Result(scanner(t), nilRes, nil); out != mcp.Result(nilRes) || err != nil {
		t.Error("nil result")
	}
}

// A base64 payload that does not decode is withheld by default, scanned as
// text with ScanAsText.
func TestOutgoingUndecodable(t *testing.T) {
	s := scanner(t)
	req := &mcp.ServerRequest[*mcp.LoggingMessageParams]{Params: &mcp.LoggingMessageParams{
		Level: "info", Data: map[string]any{"uri": "file:///x", "blob": "not base64 at all! " + key}}}
	if _, _, err := mcpredact.Outgoing(s, "notifications/message", req); !errors.Is(err, mcpredact.ErrUndecodable) {
		t.Errorf("err = %v, want ErrUndecodable", err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, Meta: mcp.Meta{"r": map[string]any{"uri": "u", "blob": "%%%"}}}
	if _, _, err := mcpredact.Result(s, res, nil); !errors.Is(err, mcpredact.ErrUndecodable) {
		t.Errorf("result: err = %v", err)
	}
	res.Meta["r"].(map[string]any)["blob"] = "%%% " + key
	out, f, err := mcpredact.Result(s, res, &mcpredact.Options{Undecodable: mcpredact.ScanAsText})
	if err != nil || len(f) != 1 || strings.Contains(wire(t, out), key) {
		t.Errorf("ScanAsText: %v %v %s", f, err, wire(t, out))
	}
}

// Outgoing copies the request with redacted params of any type, keeps the
// session, and leaves the sender's params alone.
func TestOutgoingCopies(t *testing.T) {
	s := scanner(t)
	p := &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 3, Message: "at " + key}
	req := &mcp.ServerRequest[*mcp.ProgressNotificationParams]{Params: p}
	out, f, err := mcpredact.Outgoing(s, "notifications/progress", req)
	if err != nil || len(f) != 1 {
		t.Fatalf("%v %v", f, err)
	}
	got := out.(*mcp.ServerRequest[*mcp.ProgressNotificationParams]).Params
	if got.Message != "at [REDACTED:aws-access-key-id]" || got.Progress != 3 || p.Message != "at "+key {
		t.Errorf("%+v / original %+v", got, p)
	}
	clean := &mcp.ServerRequest[*mcp.ProgressNotificationParams]{Params: &mcp.ProgressNotificationParams{Message: "fine"}}
	if out, f, err := mcpredact.Outgoing(s, "notifications/progress", clean); out != mcp.Request(clean) || f != nil || err != nil {
		t.Error("clean request was copied")
	}
}

// Errors: a JSON-RPC error's message and data, any other error's text;
// data that is not JSON is dropped.
func TestError(t *testing.T) {
	s := scanner(t)
	e := &jsonrpc.Error{Code: -32000, Message: "failed with " + key, Data: json.RawMessage(`{"k":"` + key + `","n":1}`)}
	out, f := mcpredact.Error(s, e)
	we, ok := out.(*jsonrpc.Error)
	if !ok || we.Code != -32000 || strings.Contains(we.Message+string(we.Data), key) || len(f) != 1 || f[0].Count != 2 {
		t.Errorf("%#v %v", out, f)
	}
	bad := &jsonrpc.Error{Code: 1, Message: key, Data: json.RawMessage(`{not json`)}
	if out, _ := mcpredact.Error(s, bad); out.(*jsonrpc.Error).Data != nil {
		t.Error("invalid data passed on")
	}
	plain := errors.New("get https://x.example/?key=" + key + ": refused")
	if out, f := mcpredact.Error(s, plain); strings.Contains(out.Error(), key) || len(f) != 1 {
		t.Errorf("%v", out)
	}
	fine := errors.New("no secret here")
	if out, f := mcpredact.Error(s, fine); out != fine || f != nil {
		t.Error("clean error replaced")
	}
}

// A secret written literally into a base64 payload (not encoded) is found
// too, and the payload stays valid base64.
func TestPayloadLiteral(t *testing.T) {
	s := scanner(t)
	r := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a", Blob: []byte("plain")}}}
	raw := strings.Replace(wire(t, r), base64.StdEncoding.EncodeToString([]byte("plain")), key+"+AAA", 1)
	var tampered mcp.ReadResourceResult
	if err := json.Unmarshal([]byte(raw), &tampered); err != nil {
		t.Fatal(err)
	}
	out, f, err := mcpredact.Result(s, &tampered, nil)
	if err != nil || len(f) == 0 || strings.Contains(wire(t, out), key) {
		t.Errorf("%v %v %s", f, err, wire(t, out))
	}
}

func TestSize(t *testing.T) {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1000)}, &mcp.ImageContent{Data: make([]byte, 300)}},
		Meta: mcp.Meta{"k": strings.Repeat("y", 50)}}
	if n := mcpredact.Size(r); n < 1000+400+51 || n > 1600 {
		t.Errorf("Size = %d", n)
	}
	if mcpredact.Size(nil) != 0 {
		t.Error("nil")
	}
}

// Other spellings an author (or an attacker controlling a tool's output)
// could use to carry a key past the redaction; each must fail.
func TestAttackSpellings(t *testing.T) {
	s := scanner(t)
	b64 := func(x string) []byte { return []byte(base64.StdEncoding.EncodeToString([]byte(x))) }
	cases := map[string]mcp.Result{
		"image data holding base64 of the key": &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: b64("k=" + key)}}},
		"zero-width space in the key, in _meta": &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}},
			Meta: mcp.Meta{"note": "AKIA\u200b" + key[4:]}},
		"fullwidth key in audio data":                   &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("\uff21\uff2b\uff29\uff21" + key[4:])}}},
		"key in an annotation-free resource link title": &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///x", Name: "n", Title: key}}},
		"key split across text and embedded resource text": &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "head " + key[:10]}, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///r", Text: key[10:] + " tail"}}}},
		"key in structured content key name":    &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{key: 1}},
		"key in a number-like structured value": &mcp.CallToolResult{StructuredContent: map[string]any{"ids": []any{"a", map[string]any{"deep": []any{key}}}}},
		"key split across prompt messages": &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "use " + key[:7]}}, {Role: "user", Content: &mcp.TextContent{Text: key[7:]}}}},
		"key in the second of two images (type joined as a column)": &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{MIMEType: "image/png", Data: b64("nothing")}, &mcp.ImageContent{MIMEType: "image/png", Data: b64("k=" + key)}}},
		"key split across an array of lines":  &mcp.CallToolResult{StructuredContent: map[string]any{"lines": []any{"x " + key[:6], key[6:] + " y"}}},
		"key in resource blob next to binary": &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///b", Blob: append([]byte{0, 1, 2, 0xff}, []byte(" "+key+" ")...)}}},
	}
	for name, r := range cases {
		out, f, err := mcpredact.Result(s, r, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		w := wire(t, out)
		decoded := w
		for _, part := range strings.Split(w, `"`) {
			if d, err := base64.StdEncoding.DecodeString(part); err == nil {
				decoded += string(d)
				if dd, err := base64.StdEncoding.DecodeString(string(d)); err == nil {
					decoded += string(dd)
				}
			}
		}
		if len(f) == 0 || strings.Contains(decoded, key[4:]) {
			t.Errorf("%s: survived (findings %v): %s", name, f, w)
		}
	}
}
