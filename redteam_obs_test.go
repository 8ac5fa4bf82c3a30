package gatehouse_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// as are request params whose SEP-2575 _meta names the client: on protocol
// 2026-07-28 each request says who calls.
func as(name string, p map[string]any) map[string]any {
	if p == nil {
		p = map[string]any{}
	}
	p["_meta"] = map[string]any{"io.modelcontextprotocol/clientInfo": map[string]any{"name": name, "version": "1"}}
	return p
}

// TestRedTeamObsAgentOncePerRequest: the identity read once per request
// (serve) is the one every part of the request sees: the Observer's
// Start, Decision and Limit, the rate limiter's key and the audit line,
// for tools/call, another method, a method refused before the pipeline,
// with clients that change their name from one request to the next on
// one connection (2026-07-28) beside one named at initialize. The same
// test passes on f64fa5d, before the identity was read once.
func TestRedTeamObsAgentOncePerRequest(t *testing.T) {
	rec := &recorder{}
	f := newFixture(t, basePolicy, &gatehouse.Options{Observer: rec})
	c := dialRaw(t, f.ct, newProtocol)
	old := f.agent(t, "raw-agent") // named at initialize, on a server session of its own
	type step struct {
		who, method string
		params      map[string]any
		outcome     string // the decision reported
	}
	steps := []step{
		{"alice", "tools/call", map[string]any{"name": "limited"}, "ALLOW"},
		{"bob", "tools/call", map[string]any{"name": "limited"}, "ALLOW"},
		{"alice", "tools/call", map[string]any{"name": "limited"}, "ALLOW"},
		{"", "tools/call", map[string]any{"name": "limited"}, "ALLOW"}, // raw-agent, initialized
		{"bob", "tools/call", map[string]any{"name": "limited"}, "ALLOW"},
		{"alice", "tools/call", map[string]any{"name": "limited"}, "RATE_LIMITED"},
		{"Ａｌｉｃｅ", "tools/call", map[string]any{"name": "limited"}, "RATE_LIMITED"}, // one key for look-alike spellings
		{"carol", "tools/list", nil, "ALLOW"},
		{"dave", "resources/read", map[string]any{"uri": "file:///home/agent/.ssh/id_rsa"}, "BLOCK"}, // a method the policy refuses
		{"dave", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"p": "~/.ssh/id_rsa"}}, "PROTECTED_PATH"},
		{"erin", "tools/call", map[string]any{"name": "never"}, "BLOCK"},
	}
	want := func(s step) string {
		switch s.who {
		case "":
			return "client:raw-agent"
		case "Ａｌｉｃｅ":
			return "client:alice"
		}
		return "client:" + s.who
	}
	for i, s := range steps {
		if s.who == "" {
			old.request(i+1, s.method, s.params)
			continue
		}
		c.request(i+1, s.method, as(s.who, s.params))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var starts []gatehouse.RequestStart
	for _, s := range rec.starts {
		if s.Method != "initialize" && s.Method != "notifications/initialized" {
			starts = append(starts, s)
		}
	}
	var decisions []gatehouse.DecisionEvent
	for _, d := range rec.decisions {
		if d.Method != "initialize" && d.Method != "notifications/initialized" {
			decisions = append(decisions, d)
		}
	}
	if len(starts) != len(steps) || len(decisions) != len(steps) {
		t.Fatalf("%d starts, %d decisions for %d requests: %+v", len(starts), len(decisions), len(steps), decisions)
	}
	for i, s := range steps {
		w := want(s)
		if starts[i].Agent != w || decisions[i].Agent != w || decisions[i].Outcome != s.outcome {
			t.Errorf("step %d (%s %s): start agent %q, decision %+v; want %q %s", i, s.who, s.method, starts[i].Agent, decisions[i], w, s.outcome)
		}
	}
	if len(rec.limits) != 2 || rec.limits[0].Agent != "client:alice" || rec.limits[1].Agent != "client:alice" {
		t.Errorf("limits %+v", rec.limits)
	}
	var got []string
	for _, e := range f.events(t) {
		if e["method"] == "initialize" || e["method"] == "notifications/initialized" {
			continue
		}
		got = append(got, fmt.Sprintf("%v/%v", e["agent"], e["decision"]))
	}
	var exp []string
	for _, s := range steps {
		o := s.outcome
		if o == "PROTECTED_PATH" {
			o = "BLOCK" // the audit's decision; the Observer says which kind
		}
		exp = append(exp, want(s)+"/"+o)
	}
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Errorf("audit agents\n got %v\nwant %v", got, exp)
	}
}

// TestRedTeamObsElicitationWaitNeverNegative: the wait for an answer by
// elicitation is read from the signed state's time, on the Guard's clock
// (the wall clock, which NTP steps back; or another replica's, sharing
// Elicitation.Key). A clock behind the one that signed made the AskEvent's
// Duration negative, which a histogram of waits cannot take.
func TestRedTeamObsElicitationWaitNeverNegative(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			rec := &recorder{}
			g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Observer: rec, Clock: clock})
			cs := elicitedDeploy(t, g, proto, func() *mcp.ElicitResult {
				mu.Lock()
				now = now.Add(-time.Minute) // the clock is stepped back while the user reads
				mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.asks) != 1 || rec.asks[0].Answer != "approved" || rec.asks[0].Duration < 0 {
				t.Errorf("asks %+v, want one approved with a wait of at least 0", rec.asks)
			}
		})
	}
}
