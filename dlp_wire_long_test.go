package gatehouse_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Long tool results go through the DLP's interleaved scan (texts from a few
// hundred bytes on, in blocks of 16 KiB): through a real go-sdk client and
// server, planted keys at offsets that step across every stream and block
// edge of texts around those sizes, and a key split across two long items,
// are all redacted and each counted once in the audit log.
func TestRedTeamDLPPerf_WireLongResults(t *testing.T) {
	filler := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2000)
	for _, size := range []int{129, 300, 4096, 16<<10 - 3, 16<<10 + 5, 32<<10 + 1, 49<<10 + 77} {
		text := []byte(filler[:size])
		planted, last := 0, -1
		for at := 7; at+len(wireKey)+2 <= size; at += max(23, size/37) {
			if at > last {
				copy(text[at:], " "+wireKey+" ")
				planted++
				last = at + len(wireKey) + 2
			}
		}
		half := filler[:size/2] + " " + wireGH[:9]
		rest := wireGH[9:] + " " + filler[size/2:size]
		w := newWireServer(t, "2025-06-18", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: string(text)},
				&mcp.TextContent{Text: half},
				&mcp.TextContent{Text: rest},
			}}, nil
		})
		res := callLeak(t, w)
		clean(t, "long result", res)
		got := res.Content[0].(*mcp.TextContent).Text
		if n := strings.Count(got, awsMarker); n != planted {
			t.Errorf("%d bytes: %d of %d keys redacted", size, n, planted)
		}
		if n := dlpEvents(t, w.log)["tools/call"]; n != planted+1 {
			t.Errorf("%d bytes: audited %d redactions, want %d", size, n, planted+1)
		}
	}
}
