package gatehouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
)

func TestAsker(t *testing.T) {
	var seen atomic.Value
	cases := []struct {
		name   string
		answer func(ctx context.Context) (gatehouse.Answer, error)
		code   string // "" = runs
		reason string
		ran    string
	}{
		{"approve", func(context.Context) (gatehouse.Answer, error) { return gatehouse.Answer{Approved: true}, nil }, "", "", `args {"env":"staging"}`},
		{"deny", func(context.Context) (gatehouse.Answer, error) {
			return gatehouse.Answer{Reason: "not on a Friday"}, nil
		}, "-32004", "not on a Friday", ""},
		{"timeout", func(ctx context.Context) (gatehouse.Answer, error) {
			<-ctx.Done()
			return gatehouse.Answer{}, ctx.Err()
		}, "-32005", "in time", ""},
		{"late approval after the deadline", func(ctx context.Context) (gatehouse.Answer, error) {
			<-ctx.Done()
			return gatehouse.Answer{Approved: true}, nil
		}, "-32005", "", ""},
		{"channel failure", func(context.Context) (gatehouse.Answer, error) { return gatehouse.Answer{}, errors.New("webhook 500") }, "-32004", "could not be obtained", ""},
		{"modified args", func(context.Context) (gatehouse.Answer, error) {
			return gatehouse.Answer{Approved: true, Args: map[string]any{"env": "prod"}}, nil
		}, "", "", `args {"env":"prod"}`},
		{"modified args the policy refuses", func(context.Context) (gatehouse.Answer, error) {
			return gatehouse.Answer{Approved: true, Args: map[string]any{"env": "~/.ssh/id_rsa"}}, nil
		}, "-32007", "approved modification is not allowed", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, basePolicy, &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: 50 * time.Millisecond, Asker: gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
				seen.Store(r)
				return tc.answer(ctx)
			})}})
			c := dialRaw(t, f.ct, "2025-06-18")
			res := c.callTool(1, "deploy", map[string]any{"env": "staging"})
			e := rpcErr(res)
			if tc.code == "" {
				if e != nil || resultText(res) != tc.ran {
					t.Fatalf("want the tool to run with %s: %v", tc.ran, res)
				}
			} else {
				if fmt.Sprint(e["code"]) != tc.code || !strings.Contains(fmt.Sprint(e["data"]), tc.reason) || f.runs.Load() != 0 {
					t.Fatalf("want %s (%s) and no run: %v, runs %d", tc.code, tc.reason, res, f.runs.Load())
				}
			}
			r := seen.Load().(gatehouse.AskRequest)
			if r.Tool != "deploy" || r.Agent != "client:raw-agent" || r.Args["env"] != "staging" || r.Rule.Action.String() != "ask" {
				t.Errorf("ask request %+v", r)
			}
		})
	}
}

// TestIdentity: the bearer token's user wins over the client name; without
// either, the configured default.
func TestIdentity(t *testing.T) {
	f := newFixture(t, basePolicy, &gatehouse.Options{DefaultAgent: "fallback"})
	c := dialRaw(t, f.ct, newProtocol) // sessionless: client info per request
	c.callTool(1, "echo", nil)
	ev := f.toolEvents(t)
	if len(ev) != 1 || ev[0]["agent"] != "client:raw-agent" {
		t.Fatalf("client identity: %v", ev)
	}
}

// TestAddToolElicitation asks through MCP elicitation on both protocol
// versions go-sdk v1.8 speaks: 2026-07-28 (the client retries with the
// answer) and 2025-06-18 (go-sdk's server elicits for the client).
func TestAddToolElicitation(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		for _, answer := range []string{"accept", "decline"} {
			t.Run(proto+"/"+answer, func(t *testing.T) {
				var runs atomic.Int64
				var asked atomic.Int64
				g := mustGuard(t, mustPolicy(t, basePolicy), nil)
				s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
				type in struct {
					Env string `json:"env"`
				}
				gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
					runs.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed " + a.Env}}}, nil, nil
				})
				g.Install(s)
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.Connect(context.Background(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Close()
				client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked.Add(1)
						if !strings.Contains(req.Params.Message, `"deploy"`) || !strings.Contains(req.Params.Message, "staging") {
							t.Errorf("question %q does not show the call", req.Params.Message)
						}
						if answer == "accept" {
							return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
						}
						return &mcp.ElicitResult{Action: "decline"}, nil
					},
				})
				cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: proto})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
				if asked.Load() != 1 {
					t.Fatalf("asked %d times", asked.Load())
				}
				if answer == "accept" {
					if err != nil || res.IsError || runs.Load() != 1 {
						t.Fatalf("accepted: %v %v runs=%d", res, err, runs.Load())
					}
					return
				}
				// go-sdk clients turn -32004 into a closed-connection error
				// (DESIGN §4); what matters here is that the tool did not run.
				if err == nil || runs.Load() != 0 {
					t.Fatalf("declined: %v %v runs=%d", res, err, runs.Load())
				}
			})
		}
	}
}

// TestElicitationStateCannotBeForged drives the 2026-07-28 round trip by
// hand: a forged, altered, reused or expired state never runs the tool.
func TestElicitationStateCannotBeForged(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var clock atomic.Value
	clock.Store(now)
	var runs atomic.Int64
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Clock: func() time.Time { return clock.Load().(time.Time) }})
	ct := serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
		})
	})
	c := dialRaw(t, ct, newProtocol)
	first := c.callTool(1, "deploy", map[string]any{"env": "staging"})
	r, _ := first["result"].(map[string]any)
	state, _ := r["requestState"].(string)
	if r["resultType"] != "input_required" || state == "" || r["inputRequests"] == nil {
		t.Fatalf("first round: %v", first)
	}
	yes := map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}
	retry := func(id any, args map[string]any, st string, responses map[string]any) map[string]any {
		return c.request(id, "tools/call", map[string]any{"name": "deploy", "arguments": args, "requestState": st, "inputResponses": responses})
	}
	body, sig, _ := strings.Cut(state, ".")
	for name, tc := range map[string]struct {
		args  map[string]any
		state string
		resp  map[string]any
		code  string
	}{
		"forged signature":   {map[string]any{"env": "staging"}, body + "." + strings.Repeat("A", len(sig)), yes, "-32004"},
		"other arguments":    {map[string]any{"env": "prod"}, state, yes, "-32004"},
		"no state":           {map[string]any{"env": "staging"}, "", yes, "-32004"},
		"garbage state":      {map[string]any{"env": "staging"}, "x.y", yes, "-32004"},
		"declined":           {map[string]any{"env": "staging"}, state, map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "decline"}}, "-32004"},
		"accept without yes": {map[string]any{"env": "staging"}, state, map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": map[string]any{"approve": false}}}, "-32004"},
	} {
		res := retry(name, tc.args, tc.state, tc.resp)
		if e := rpcErr(res); fmt.Sprint(e["code"]) != tc.code || runs.Load() != 0 {
			t.Errorf("%s: %v runs=%d", name, res, runs.Load())
		}
	}
	if res := retry("ok", map[string]any{"env": "staging"}, state, yes); rpcErr(res) != nil || runs.Load() != 1 {
		t.Fatalf("valid approval: %v runs=%d", res, runs.Load())
	}
	if res := retry("replay", map[string]any{"env": "staging"}, state, yes); fmt.Sprint(rpcErr(res)["code"]) != "-32004" || runs.Load() != 1 {
		t.Errorf("replayed approval: %v runs=%d", res, runs.Load())
	}
	second := c.callTool(5, "deploy", map[string]any{"env": "staging"})
	st2 := second["result"].(map[string]any)["requestState"].(string)
	clock.Store(now.Add(6 * time.Minute))
	if res := retry("late", map[string]any{"env": "staging"}, st2, yes); fmt.Sprint(rpcErr(res)["code"]) != "-32005" || runs.Load() != 1 {
		t.Errorf("expired approval: %v runs=%d", res, runs.Load())
	}
	// A tool registered with AddTool on a server without the guard refuses.
	bare := serve(t, nil, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return nil, nil, nil
		})
	})
	res := dialRaw(t, bare, "2025-06-18").callTool(1, "deploy", map[string]any{})
	if e := rpcErr(res); e == nil || !strings.Contains(fmt.Sprint(e["data"]), "guard is not installed") || runs.Load() != 1 {
		t.Errorf("unguarded AddTool: %v", res)
	}
}

// TestElicitationAcrossReplicas: two guards with one ElicitKey and one
// nonce store (consent/redisnonce in production) accept an approval made on
// either, and run it once.
func TestElicitationAcrossReplicas(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	nonces, err := consent.NewMemoryNonceStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	replica := func() *rawConn {
		g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Elicitation: &gatehouse.ElicitOptions{Key: key, Nonces: nonces}})
		return dialRaw(t, serve(t, g, func(s *mcp.Server) {
			gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
		}), newProtocol)
	}
	a, b := replica(), replica()
	args := map[string]any{"env": "staging"}
	state := a.callTool(1, "deploy", args)["result"].(map[string]any)["requestState"].(string)
	yes := map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}
	retry := map[string]any{"name": "deploy", "arguments": args, "requestState": state, "inputResponses": yes}
	if res := b.request(2, "tools/call", retry); rpcErr(res) != nil || runs.Load() != 1 {
		t.Fatalf("approval made on a, used on b: %v", res)
	}
	if res := a.request(3, "tools/call", retry); rpcErr(res) == nil || runs.Load() != 1 {
		t.Fatalf("the same approval replayed on a: %v", res)
	}
}
