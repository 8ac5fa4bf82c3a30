package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// The red team of the scope masking (611d637), continued from
// redteam_scopemask_test.go: ScopeChallenges' 403, and the cost of a call
// short of scopes.

// TestRedTeamScopeMask_ChallengeEchoesGoSDKsID: the 403 challenge stands
// in for go-sdk's response, so it carries the id go-sdk's response would:
// go-sdk reads an id as an int64 or a string (1e0 and 7.0 answer as 1 and
// 7, 1.5 as 1, 2^53+1 as 2^53, "\u0041" as "A"). On 611d637 the challenge
// echoed the request's bytes, an id go-sdk would never answer with, so a
// client matching responses by go-sdk's ids (or by value after its own
// decoding) could not pair the challenge with its request. Near misses:
// plain ids; ids go-sdk refuses (an array, an object, true) get go-sdk's
// 400 and no challenge.
func TestRedTeamScopeMask_ChallengeEchoesGoSDKsID(t *testing.T) {
	ss := newScopeRig(t, scopeRig{})
	for _, id := range []string{`7`, `"x"`, `0`, `-1`, `1e0`, `7.0`, `1.5`, `9007199254740993`, `"\u0041"`, `[1]`, `{}`, `true`} {
		body := strings.Replace(newCallBody("deploy", map[string]any{"env": "dev"}), `"id":7`, `"id":`+id, 1)
		short, shortBody := ss.post(t, ss.as.issue("mcp:tools"), newHeaders("deploy"), body)
		scoped, scopedBody := ss.post(t, ss.as.issue("mcp:tools", "deploy:write"), newHeaders("deploy"), body)
		if scoped.StatusCode != http.StatusOK {
			if short.StatusCode != scoped.StatusCode || short.Header.Get("WWW-Authenticate") != "" {
				t.Errorf("id %s: %d %s, want go-sdk's %d %s", id, short.StatusCode, shortBody, scoped.StatusCode, scopedBody)
			}
			continue
		}
		var a, b struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(shortBody), &a) != nil || json.Unmarshal([]byte(scopedBody), &b) != nil || short.StatusCode != http.StatusForbidden ||
			string(a.ID) != string(b.ID) {
			t.Errorf("id %s: the challenge (%d) answers id %s, go-sdk answers %s", id, short.StatusCode, a.ID, b.ID)
		}
	}
	if n := ss.runs.Load(); n != 9 {
		t.Fatalf("tools ran %d times, want 9 (the scoped calls go-sdk reads)", n)
	}
}

// TestRedTeamScopeMask_ChallengesDoNotCrossRequests: the challenge slot is
// the HTTP request's own: under concurrent calls through one stateless
// handler, each scope-short call (and only it) is answered 403 and never
// runs, and each call with the scopes runs and is answered 200 with its
// own result, in both of go-sdk's response modes (run with -race).
func TestRedTeamScopeMask_ChallengesDoNotCrossRequests(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		ss := newScopeRig(t, scopeRig{jsonResponse: jsonResponse})
		short, full := ss.as.issue("mcp:tools"), ss.as.issue("mcp:tools", "deploy:write")
		const n = 24
		var wg sync.WaitGroup
		errs := make(chan string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				env := fmt.Sprintf("env%d", i)
				tok := full
				if i%2 == 1 {
					tok = short
				}
				resp, body := ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": env}))
				ran := strings.Contains(body, "deploy ran for "+env+`"`)
				if i%2 == 1 && (resp.StatusCode != http.StatusForbidden || strings.Contains(body, "deploy ran")) ||
					i%2 == 0 && (resp.StatusCode != http.StatusOK || !ran) {
					errs <- fmt.Sprintf("call %d: %d %s", i, resp.StatusCode, body)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("JSONResponse=%v: %s", jsonResponse, e)
		}
		if got := ss.runs.Load(); got != n/2 {
			t.Errorf("JSONResponse=%v: %d runs, want %d", jsonResponse, got, n/2)
		}
	}
}

// BenchmarkRedTeamScopeMask is the guard's cost of a tools/call whose token
// lacks the call's scope (the token has none), on a server that lists n
// tools: to a listed tool the policy allows, and to a tool the server
// does not have (which the policy allows by name).
func BenchmarkRedTeamScopeMask(b *testing.B) {
	for _, n := range []int{1, 1000} {
		for _, target := range []string{"listed", "missing"} {
			b.Run(fmt.Sprintf("tools=%d/%s", n, target), func(b *testing.B) {
				sp, err := scope.Parse([]byte(scopeDoc))
				if err != nil {
					b.Fatal(err)
				}
				o := &gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true}, Scopes: &gatehouse.ScopeOptions{Policy: sp}}
				g := mustGuard(b, mustPolicy(b, hiddenPolicy), o)
				list := &mcp.ListToolsResult{}
				for i := range n - 1 {
					list.Tools = append(list.Tools, &mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: strings.Repeat("d", 200),
						InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
				}
				list.Tools = append(list.Tools, &mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)})
				next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "tools/list" {
						return list, nil
					}
					return &mcp.CallToolResult{}, nil
				}
				st, _ := mcp.NewInMemoryTransports()
				ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				recv, _ := g.Middleware()
				h := recv(next)
				name := "deploy"
				if target == "missing" {
					name = "ghost_op"
				}
				req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(`{"env":"dev"}`)},
					Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}
				ctx := context.Background()
				if _, err := h(ctx, "tools/call", req); err == nil {
					b.Fatal("the call was not refused")
				}
				b.ReportAllocs()
				for b.Loop() {
					h(ctx, "tools/call", req)
				}
			})
		}
	}
}
