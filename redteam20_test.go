package gatehouse_test

import (
	"context"
	"encoding/json"
	_ "fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// Red-team corpus for issue 20 (remembered grants, tool-definition
// pinning, AnnotationDefaults): attacks by a malicious client or agent and
// by a tool definition that changes under the guard. Each attack that
// worked has the fix's test here; each that held stays as a near miss.

// rt20 is a guarded server over in-memory transports whose Asker counts
// its questions and chooses the scope the test sets (once per approval:
// the scope is taken by the first approval that reads it).
type rt20 struct {
	t     *testing.T
	g     *gatehouse.Guard
	s     *mcp.Server
	c     *rawConn
	asks  atomic.Int64
	runs  atomic.Int64
	scope atomic.Value // string
	hook  atomic.Value // func(): run inside the Asker, before it answers
}

func newRT20(t *testing.T, src string, o *gatehouse.Options, offers map[string][]grant.Scope, tools ...*mcp.Tool) *rt20 {
	t.Helper()
	r := &rt20{t: t}
	r.scope.Store("")
	r.hook.Store(func() {})
	if o == nil {
		o = &gatehouse.Options{}
	}
	o.Ask = &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
		r.asks.Add(1)
		r.hook.Load().(func())()
		return gatehouse.Answer{Approved: true, Attestation: "human", Scope: r.scope.Swap("").(string)}, nil
	})}
	if o.Grants == nil {
		o.Grants = &gatehouse.GrantOptions{Offers: offers, ForUnauthenticated: true}
	}
	r.g = mustGuard(t, mustPolicy(t, src), o)
	r.s = mcp.NewServer(&mcp.Implementation{Name: "rt20", Version: "1"}, nil)
	for _, tl := range tools {
		r.add(tl)
	}
	r.g.Install(r.s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := r.s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	r.c = dialRaw(t, ct, "2025-06-18")
	return r
}

// add registers tl with a handler that counts its runs and answers with
// the tool's description (so a test sees which definition ran).
func (r *rt20) add(tl *mcp.Tool) {
	desc := tl.Description
	r.s.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r.runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran: " + desc}}}, nil
	})
}

var rt20ID atomic.Int64

// call sends tools/call with raw arguments and reports whether the tool
// ran, whether anyone was asked, and the response.
func (r *rt20) call(tool, raw string) (ran, asked bool, res map[string]any) {
	r.t.Helper()
	runs, asks := r.runs.Load(), r.asks.Load()
	p := map[string]any{"name": tool}
	if raw != "" {
		p["arguments"] = json.RawMessage(raw)
	}
	res = r.c.request(int(rt20ID.Add(1)), "tools/call", p)
	return r.runs.Load() > runs, r.asks.Load() > asks, res
}

func rt20Tool(name, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

var rt20Day = grant.Scope{ID: "day", Duration: 24 * time.Hour}
var rt20DayPatterns = grant.Scope{ID: "day-patterns", Duration: 24 * time.Hour, Patterns: true}

// TestRedTeam20_MonitorModePatternGrant: in monitor mode a value that
// fails an ask rule's allow_args pattern is still asked ("monitor mode
// never turns an ask into a silent allow"), so the policy did not check it
// before the grant was looked at. A grant whose scope takes "the rule's
// patterns" must not answer that ask: it would let any value through
// without a human.
func TestRedTeam20_MonitorModePatternGrant(t *testing.T) {
	src := strings.Replace(grantPolicy, "spec:\n", "spec:\n  mode: monitor\n", 1)
	r := newRT20(t, src, nil, map[string][]grant.Scope{"deploy": {rt20DayPatterns}}, rt20Tool("deploy", "d"))
	r.scope.Store("day-patterns")
	if ran, asked, res := r.call("deploy", `{"env":"staging"}`); !ran || !asked {
		t.Fatalf("approving call: %v", res)
	}
	if ran, asked, res := r.call("deploy", `{"env":"prod"}`); !ran || asked {
		t.Fatalf("near miss: a value the pattern accepts should use the grant: %v", res)
	}
	for _, v := range []string{`"prod; rm -rf /"`, `"../../etc"`, `"STAGING"`, `1`} {
		if ran, asked, res := r.call("deploy", `{"env":`+v+`}`); ran && !asked {
			t.Errorf("env %s, which the rule's pattern refuses, ran on a pattern grant without asking: %v", v, res)
		}
	}
}
