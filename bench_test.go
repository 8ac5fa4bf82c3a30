package gatehouse_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

const benchPolicySrc = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: bench}
spec:
  protected_paths: [~/.ssh, .env]
  tool_rules:
    - tool: fetch
      rate_limit: 100000000/second
      allow_args:
        url: "^https://github\\.com/[a-z0-9_-]+/[a-z0-9_.-]+$"
  dlp:
    patterns:
      - {name: AWS Key, regex: "(AKIA|ASIA)[A-Z0-9]{16}"}
      - {name: GitHub Token, regex: "gh[pousr]_[A-Za-z0-9]{36}"}
`

// result1K is a 1 KiB tool result without secrets.
var result1K = strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 19)[:1024]

// benchCall measures a tools/call round trip over in-memory transports,
// with or without the guard (policy with one regex rule and a rate limit,
// audit to a buffered file, DLP over the 1 KiB result).
func benchCall(b *testing.B, guarded bool) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: result1K}}}, nil
	})
	if guarded {
		f, err := os.Create(filepath.Join(b.TempDir(), "audit.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		b.Cleanup(func() { bw.Flush(); f.Close() })
		w, err := audit.New(bw, nil)
		if err != nil {
			b.Fatal(err)
		}
		mustGuard(b, mustPolicy(b, benchPolicySrc), &gatehouse.Options{Audit: w}).Install(s)
	}
	cs, done := connectClient(s, nil)
	defer done()
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": "https://github.com/gatehouse-dev/gatehouse"}}
	if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
		b.Fatalf("call: %v %v", res, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToolCallUnguarded(b *testing.B) { benchCall(b, false) }
func BenchmarkToolCallGuarded(b *testing.B)   { benchCall(b, true) }

// BenchmarkMiddleware is the guard's own cost per tools/call, without
// transport: method check, argument decoding, the tools/call stages, the
// handler stub (run under HandlerTimeout), the result bound and DLP over a
// 1 KiB result. Variants:
//
//	policy-only  no audit, DLP off: the decision path alone
//	no-audit     the default DLP (built-in pack + policy patterns), no audit
//	audit        as no-audit, audit to a buffered in-memory writer
//	audit-file   as no-audit, audit.Open on a file (one write call per event)
//	pinned       as audit-file, with pinning on (the default)
//	ctx-handler  as policy-only, with a handler that derives a context
//	             from its own (as one doing I/O does), which makes the
//	             handler's deadline context and its timer
//
// The calls come on a server session whose tools/list the stub answers
// with the one tool (the guard reads the tool's definition for its input
// schema's defaults, and, when pinning is on, its digest); go-sdk's own
// cost of building that list is in BenchmarkToolCallGuarded. Pinning is off
// but in "pinned"; BenchmarkPinStage measures it alone.
func BenchmarkMiddleware(b *testing.B) {
	for _, name := range []string{"policy-only", "no-audit", "audit", "audit-file", "pinned", "ctx-handler"} {
		b.Run(name, func(b *testing.B) {
			o := &gatehouse.Options{Pins: &gatehouse.PinOptions{Off: true}}
			switch name {
			case "policy-only", "ctx-handler":
				o.DLP = &gatehouse.DLPOptions{Off: true}
			case "audit":
				bw := bufio.NewWriterSize(discard{}, 1<<16)
				w, err := audit.New(bw, nil)
				if err != nil {
					b.Fatal(err)
				}
				o.Audit = w
			case "audit-file", "pinned":
				if name == "pinned" {
					o.Pins = nil
				}
				w, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { w.Close() })
				o.Audit = w
			}
			g := mustGuard(b, mustPolicy(b, benchPolicySrc), o)
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: result1K}}}
			list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}}}`)}}}
			next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return list, nil
				}
				if name == "ctx-handler" {
					child, cancel := context.WithCancel(ctx)
					defer cancel()
					if child.Err() != nil {
						return nil, child.Err()
					}
				}
				return res, nil
			}
			st, _ := mcp.NewInMemoryTransports()
			ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			recv, _ := g.Middleware()
			h := recv(next)
			req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: json.RawMessage(`{"url":"https://github.com/gatehouse-dev/gatehouse"}`)}}
			ctx := context.Background()
			if _, err := h(ctx, "tools/call", req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
