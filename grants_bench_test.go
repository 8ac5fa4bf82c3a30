package gatehouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// BenchmarkToolCallGranted: a tools/call round trip (in-memory transports,
// default DLP, no audit) of an ask answered by a live grant: the lookup
// (a fresh read of the tool list, canonical arguments, an atomic use of
// the memory store) instead of a human.
func BenchmarkToolCallGranted(b *testing.B) {
	asked := 0
	g := mustGuard(b, mustPolicy(b, grantPolicy), &gatehouse.Options{
		Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
			asked++
			return gatehouse.Answer{Approved: true, Scope: "hour"}, nil
		})},
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {{ID: "hour", Duration: time.Hour}}}, ForUnauthenticated: true},
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	textTool(s, "deploy", func(map[string]any) string { return result1K }, nil)
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}}
	if _, err := cs.CallTool(ctx, params); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
	if asked != 1 {
		b.Fatalf("asked %d times, want once", asked)
	}
}
