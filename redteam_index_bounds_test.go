package gatehouse_test

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The red team of the tool index's walk reuse (0f083e4), continued from
// redteam_index_test.go: what the index keeps alive, and its bound.

// TestIndexKeepsNoUnlistedDefinitions: definitions a server no longer
// lists (a long list that shrank, a walk that failed) are not kept alive
// by the index's walk buffers once later walks have been read.
func TestIndexKeepsNoUnlistedDefinitions(t *testing.T) {
	r := newIdxRig(t, 2)
	alpha := idxTool("alpha", "a")
	var gone []weak.Pointer[mcp.Tool]
	long := func() []*mcp.Tool {
		l := []*mcp.Tool{alpha}
		for i := range 300 {
			tool := idxTool(fmt.Sprintf("t%d", i), "x")
			gone = append(gone, weak.Make(tool))
			l = append(l, tool)
		}
		return l
	}
	r.page = 100
	r.set(0, long()...)
	r.set(1, long()...)
	for i := range 4 {
		if code := r.call(t, i%2, "alpha"); code != 0 {
			t.Fatalf("alpha: %d", code)
		}
	}
	r.set(0, alpha)
	r.set(1, long()...) // never read whole: its second page fails
	r.edit(func() { r.fail[r.ss[1]] = 1 })
	if code := r.call(t, 0, "alpha"); code != 0 {
		t.Fatalf("alpha: %d", code)
	}
	if code := r.call(t, 1, "alpha"); code == 0 {
		t.Fatal("alpha ran on a session whose list could not be read")
	}
	r.set(1, alpha)
	for i := range 4 {
		if code := r.call(t, i%2, "alpha"); code != 0 {
			t.Fatalf("alpha: %d", code)
		}
	}
	runtime.GC()
	kept := 0
	for _, w := range gone {
		if w.Value() != nil {
			kept++
		}
	}
	runtime.KeepAlive(r) // the guard and its index live on
	if kept > 0 {
		t.Fatalf("%d of %d definitions no longer listed are still kept", kept, len(gone))
	}
}

// TestIndexListOverBoundRefusesThenRecovers: a session whose list has more
// tools than the index holds (100,000) refuses every call, fail closed,
// even one to a tool listed first; once the list is back under the bound,
// calls run again and the other session's list was never taken for it.
func TestIndexListOverBoundRefusesThenRecovers(t *testing.T) {
	r := newIdxRig(t, 2)
	alpha := idxTool("alpha", "a")
	huge := make([]*mcp.Tool, 0, 100_001)
	huge = append(huge, alpha)
	for i := range 100_000 {
		huge = append(huge, &mcp.Tool{Name: "t" + strconv.Itoa(i), InputSchema: map[string]any{"type": "object"}})
	}
	r.set(0, alpha, idxTool("secret", "s"))
	r.set(1, huge...)
	for range 2 {
		if code := r.call(t, 0, "alpha"); code != 0 {
			t.Fatalf("alpha on 0: %d", code)
		}
		if code := r.call(t, 1, "alpha"); code == 0 {
			t.Fatal("alpha ran on a session listing more tools than the index holds")
		}
	}
	if code := r.call(t, 1, "secret"); code == 0 {
		t.Fatal("secret, listed only on session 0, ran on session 1")
	}
	r.set(1, huge[:100_000]...)
	if code := r.call(t, 1, "alpha"); code != 0 {
		t.Fatalf("alpha on 1 with 100,000 tools: %d", code)
	}
}
