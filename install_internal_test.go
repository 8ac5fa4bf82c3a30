package gatehouse

import (
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInstalledServersAreNotKept: the Guard's record of the servers it is
// installed on (installOnce) holds them weakly and forgets each once it is
// collected, so servers built and installed per request neither stay
// alive nor grow the record.
func TestInstalledServersAreNotKept(t *testing.T) {
	g := fetchGuard(t)
	for range 200 {
		g.Install(mcp.NewServer(&mcp.Implementation{Name: "per-request", Version: "1"}, nil))
	}
	kept := mcp.NewServer(&mcp.Implementation{Name: "kept", Version: "1"}, nil)
	g.Install(kept)
	n := 0
	for range 50 { // cleanups run on their own goroutine after a collection
		runtime.GC()
		n = 0
		g.installed.Range(func(any, any) bool { n++; return true })
		if n == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n != 1 {
		t.Fatalf("the Guard still records %d servers, want 1 (the one alive)", n)
	}
	runtime.KeepAlive(kept)
}
