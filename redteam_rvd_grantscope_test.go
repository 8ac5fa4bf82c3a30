package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// Red team rvd: a grant made from one approval must not cover calls the
// human was not told about. A scope with Patterns lets the arguments the
// policy rule constrains with allow_args take any value their pattern
// accepts, but the human read only "with arguments the policy's patterns
// allow" (or the server author's Title, "Remember for today"), never which
// argument nor which values: approving deploy {"env":"staging"} with such
// a scope let {"env":"prod"} run unasked, a value the human never saw.
// Now each offered scope's text names the arguments it frees and their
// patterns, for this call.

var rvdScopes = []grant.Scope{
	{ID: "day-patterns", Duration: 24 * time.Hour, Patterns: true},
	{ID: "today", Title: "Remember for today", Duration: 24 * time.Hour, Patterns: true},
	{ID: "day", Duration: 24 * time.Hour},
}

// TestRedTeamRVD_PatternScopeNamesWhatItCovers: the Asker (AskRequest.Scopes)
// and AddTool's form (the "remember" field) show, per scope, the
// arguments that take any value their pattern accepts, with the patterns;
// an exact scope still says "with exactly these arguments".
func TestRedTeamRVD_PatternScopeNamesWhatItCovers(t *testing.T) {
	const pattern = `^(staging|prod)$`
	wants := map[string][]string{ // scope id -> what its text must say
		"day-patterns": {`"env"`, pattern},
		"today":        {"Remember for today", `"env"`, pattern},
		"day":          {"with exactly these arguments"},
	}
	check := func(t *testing.T, where string, texts map[string]string) {
		t.Helper()
		for id, want := range wants {
			for _, w := range want {
				if !strings.Contains(texts[id], w) {
					t.Errorf("%s: scope %q reads %q: the human is not told %q", where, id, texts[id], w)
				}
			}
		}
		if strings.Contains(texts["day"], pattern) {
			t.Errorf("%s: the exact scope names a pattern: %q", where, texts["day"])
		}
	}

	t.Run("asker", func(t *testing.T) {
		var mu sync.Mutex
		texts := map[string]string{}
		asker := gatehouse.AskerFunc(func(_ context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, s := range r.Scopes {
				texts[s.ID] = s.Describe()
			}
			return gatehouse.Answer{Approved: true, Attestation: "human", Scope: "day-patterns"}, nil
		})
		g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: asker},
			Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": rvdScopes}, ForUnauthenticated: true}})
		var runs int
		c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "deploy", func(map[string]any) string { return "deployed" }, &runs) }), "2025-06-18")
		if res := c.callTool(1, "deploy", map[string]any{"env": "staging"}); rpcErr(res) != nil {
			t.Fatalf("approving call: %v", res)
		}
		// What the scope covers: a value the human never saw, unasked.
		if res := c.callTool(2, "deploy", map[string]any{"env": "prod"}); rpcErr(res) != nil {
			t.Fatalf("the grant's near miss: %v", res)
		}
		mu.Lock()
		defer mu.Unlock()
		check(t, "AskRequest.Scopes", texts)
	})

	t.Run("elicitation form", func(t *testing.T) {
		g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": rvdScopes}, ForUnauthenticated: true}})
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		g.Install(s)
		var desc string
		_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				b, _ := json.Marshal(req.Params.RequestedSchema)
				var sch struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				}
				_ = json.Unmarshal(b, &sch)
				desc = sch.Properties[gatehouse.ScopeInputField].Description
				return &mcp.ElicitResult{Action: "decline"}, nil
			},
		}, newProtocol)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
		// The form lists every scope in one description: split it by id.
		texts := map[string]string{}
		for _, id := range []string{"day-patterns", "today", "day"} {
			i := strings.Index(desc, `"`+id+`" (`)
			if i < 0 {
				t.Fatalf("the form does not offer %q: %q", id, desc)
			}
			rest := desc[i+len(id)+4:]
			if j := strings.Index(rest, `; "`); j >= 0 {
				rest = rest[:j]
			}
			texts[id] = rest
		}
		check(t, "the form's remember field", texts)
	})
}
