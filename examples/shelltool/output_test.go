package main

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/confine"
)

// guarded is the example as main builds it (guard installed), with a
// HandlerTimeout short enough for a test.
func guarded(t *testing.T, timeout time.Duration) *mcp.ClientSession {
	p, _, work := fixture(t)
	s := newServer(p, &confine.CommandOptions{Dir: work, LexicalOnly: confine.ABI() < 1})
	g, err := gatehouse.New(p, &gatehouse.Options{HandlerTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	g.Install(s)
	return connect(t, s)
}

// TestRedteamOutputIsBoundedWhileItRuns: the tool kept all of a command's
// output in memory (CombinedOutput) and cut it to 64 KiB only afterwards,
// so `head -c 4G /dev/zero` (or `yes` until HandlerTimeout, 5 minutes)
// filled the server's memory. Now output past the cap is not kept and
// the command is stopped by the closed pipe.
//
// What a call allocates besides its output (the guard's checks, confine's
// walk of the work directory: about 14 MiB under -race) is measured on a
// command with 1,000 bytes of output and taken off, so the bound is on
// what the output costs.
func TestRedteamOutputIsBoundedWhileItRuns(t *testing.T) {
	cs := guarded(t, 20*time.Second)
	allocated := func(cmd string) (string, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := runTool(t, cs, cmd)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return out, after.TotalAlloc - before.TotalAlloc
	}
	_, base := allocated("head -c 1000 /dev/zero | tr '\\0' a")
	out, grew := allocated("head -c 64000000 /dev/zero | tr '\\0' a")
	if grew > base && grew-base > 16<<20 {
		t.Errorf("64 MB of output allocated %d MiB in the server, %d MiB more than 1,000 bytes of output", grew>>20, (grew-base)>>20)
	}
	if !strings.HasSuffix(out, "[output truncated]") || len(out) > maxOutput+100 || !strings.HasPrefix(out, "aaaa") {
		t.Errorf("got %d bytes ending %q", len(out), out[max(0, len(out)-40):])
	}
}

// TestRedteamEndlessOutputEndsTheCommand: a command that writes forever
// ran until HandlerTimeout, its output growing in memory all along; now it
// ends when its output reaches the cap.
func TestRedteamEndlessOutputEndsTheCommand(t *testing.T) {
	cs := guarded(t, 8*time.Second)
	start := time.Now()
	out, err := runTool(t, cs, "while :; do echo line; done")
	if err != nil || !strings.HasSuffix(out, "[output truncated]") || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v, %d bytes", time.Since(start), err, len(out))
	}
	// Near misses: output under the cap comes back whole, with the exit
	// status; a background child does not hold the call.
	for cmd, want := range map[string]string{
		"printf 'a%.0s' $(seq 1000)":     strings.Repeat("a", 1000),
		"echo out; echo err >&2; exit 3": "out\nerr\n\n[exit status 3]",
		"sleep 30 & echo started":        "started",
	} {
		start := time.Now()
		out, err := runTool(t, cs, cmd)
		if err != nil || out != want || time.Since(start) > 5*time.Second {
			t.Errorf("%q after %v: %q %v", cmd, time.Since(start), out, err)
		}
	}
}
