package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/internal/aipvectors"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestAIPConformanceOverTheWire runs all 65 AIP v1alpha1 vectors through a
// real go-sdk server guarded by gatehouse, spoken to in raw JSON-RPC over
// in-memory transports, and compares what comes back: decision, code,
// message, error data, and the whole envelope where the vector gives one.
func TestAIPConformanceOverTheWire(t *testing.T) {
	cases, err := aipvectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 65 {
		t.Fatalf("%d vectors, want 65", len(cases))
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			if c.Policy == nil {
				noPolicy(t, c)
				return
			}
			p := mustPolicy(t, *c.Policy)
			var asker gatehouse.Asker
			switch c.Input.Context["user_response"] {
			case "deny":
				asker = gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
					return gatehouse.Answer{Approved: false}, nil
				})
			case "timeout":
				asker = gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
					<-ctx.Done() // a human who never answers
					return gatehouse.Answer{}, ctx.Err()
				})
			}
			o := &gatehouse.Options{}
			if c.File == "full/dlp.yaml" {
				// The vectors specify redaction by the policy's own patterns;
				// the default adds the built-in pack, which redacts more (all
				// of a private key, not only its header line).
				o.DLP = &gatehouse.DLPOptions{NoBuiltin: true}
			}
			if asker != nil {
				o.Ask = &gatehouse.AskOptions{Asker: asker, Timeout: 50_000_000}
			}
			g := mustGuard(t, p, o)
			if c.File == "full/dlp.yaml" {
				dlpOverTheWire(t, c, g)
				return
			}
			runs := 0
			tool := c.Input.Tool
			ct := serve(t, g, func(s *mcp.Server) {
				if tool != "" {
					textTool(s, tool, func(map[string]any) string { return "ran" }, &runs)
				}
				vectorMethods(t, s, &runs)
			})
			var id any = 7
			if c.Input.RequestID != nil {
				id = c.Input.RequestID
			}
			if exact, ok := sdkRouted[c.Input.Method]; ok {
				caseVariantMethod(t, c, p, ct, exact, &runs)
				return
			}
			var res map[string]any
			switch {
			case c.Input.Method == "initialize":
				// The vector's request is the handshake itself.
				res = connectRaw(t, ct).request(id, "initialize", initializeParams("2025-06-18"))
				checkWire(t, c, res, runs)
				return
			case p.EvaluateMethod("initialize").Outcome != policy.Allow:
				// The policy refuses initialize: only the sessionless protocol
				// (2026-07-28, no handshake) can reach the method under test.
				conn := dialRaw(t, ct, newProtocol)
				res = conn.request(id, c.Input.Method, vectorParams(c.Input.Method))
				checkWire(t, c, res, runs)
				return
			}
			conn := dialRaw(t, ct, "2025-06-18")
			if c.Input.Method == "tools/call" {
				args := c.Input.Args
				if args == nil {
					args = map[string]any{}
				}
				if n, ok := c.Input.Context["previous_calls"].(int); ok {
					for i := range n {
						if r := conn.callTool(fmt.Sprint("prev-", i), tool, args); rpcErr(r) != nil {
							t.Fatalf("previous call %d denied: %v", i+1, rpcErr(r))
						}
					}
				}
				res = conn.callTool(id, tool, args)
			} else {
				res = conn.request(id, c.Input.Method, vectorParams(c.Input.Method))
			}
			checkWire(t, c, res, runs)
		})
	}
}

// sdkRouted are the vectors' case variants of tools/call. go-sdk routes
// methods by their exact name and answers an unknown one with -32601
// before any middleware runs, so these requests never reach a handler,
// guarded or not.
var sdkRouted = map[string]string{"TOOLS/CALL": "tools/call", "Tools/Call": "tools/call"}

// caseVariantMethod checks both halves of such a vector: the policy
// normalizes the method and allows the call (what the vector asserts), and
// over the wire the variant reaches no tool at all.
func caseVariantMethod(t *testing.T, c aipvectors.Case, p *policy.Policy, ct mcp.Transport, exact string, runs *int) {
	t.Helper()
	d := p.Evaluate(policy.Request{Method: c.Input.Method, Tool: c.Input.Tool, Args: map[string]any{}})
	if d.Outcome.String() != c.Expected.Decision || d.Method != exact {
		t.Fatalf("policy: %+v, want %s on %s", d, c.Expected.Decision, exact)
	}
	conn := dialRaw(t, ct, "2025-06-18")
	res := conn.request(1, c.Input.Method, map[string]any{"name": c.Input.Tool, "arguments": map[string]any{}})
	if e := rpcErr(res); e == nil || fmt.Sprint(e["code"]) != "-32601" || *runs != 0 {
		t.Fatalf("wire: %v, runs %d; want go-sdk's -32601 and no run", res, *runs)
	}
	res = conn.callTool(2, c.Input.Tool, map[string]any{})
	if rpcErr(res) != nil || *runs != 1 {
		t.Fatalf("the same call as %s: %v, runs %d", exact, res, *runs)
	}
}

// customMethod is the params and result of the vectors' custom methods.
type customMethod struct {
	mcp.ParamsBase
}

type customResult struct {
	mcp.ResultBase
	OK bool `json:"ok"`
}

// vectorMethods registers what the method vectors call besides tools: two
// custom methods and a resource and a prompt.
func vectorMethods(t *testing.T, s *mcp.Server, runs *int) {
	for _, m := range []string{"dangerous/method", "any/method"} {
		if err := mcp.AddReceivingCustomMethod(s, m, func(ctx context.Context, ss *mcp.ServerSession, p *customMethod) (*customResult, error) {
			*runs++
			return &customResult{OK: true}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		*runs++
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://r", Text: "r"}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		*runs++
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "p"}}}}, nil
	})
}

func vectorParams(method string) map[string]any {
	switch method {
	case "resources/read":
		return map[string]any{"uri": "test://r"}
	case "prompts/get":
		return map[string]any{"name": "p"}
	}
	return map[string]any{}
}

// noPolicy: with no policy, gatehouse refuses to build a guard at all, so
// no server runs unguarded (auth-050 expects every tool blocked); the
// evaluator itself blocks with the vector's code.
func noPolicy(t *testing.T, c aipvectors.Case) {
	if _, err := gatehouse.New(nil, nil); err == nil {
		t.Fatal("New(nil) built a guard")
	}
	var none *policy.Policy
	d := none.Evaluate(policy.Request{Method: c.Input.Method, Tool: c.Input.Tool})
	if d.Outcome.String() != c.Expected.Decision || d.Code != *c.Expected.ErrorCode {
		t.Fatalf("nil policy: %+v", d)
	}
}

func checkWire(t *testing.T, c aipvectors.Case, res map[string]any, runs int) {
	t.Helper()
	exp := c.Expected
	e := rpcErr(res)
	if exp.Decision == "ALLOW" {
		if e != nil {
			t.Fatalf("want ALLOW, got error %v", e)
		}
		if c.Input.Method == "tools/call" && (runs != 1 || resultText(res) != "ran") {
			t.Fatalf("want the tool to run once, runs=%d result=%v", runs, res["result"])
		}
		return
	}
	if e == nil {
		t.Fatalf("want %s, got result %v", exp.Decision, res["result"])
	}
	if runs != 0 && c.Input.Context["previous_calls"] == nil {
		t.Errorf("a denied call reached the tool (%d runs)", runs)
	}
	code := fmt.Sprint(e["code"])
	if exp.ErrorCode != nil && code != fmt.Sprint(*exp.ErrorCode) {
		t.Errorf("code %s, want %d (error %v)", code, *exp.ErrorCode, e)
	}
	if exp.ErrorMessage != "" && e["message"] != exp.ErrorMessage {
		t.Errorf("message %v, want %q", e["message"], exp.ErrorMessage)
	}
	data, _ := e["data"].(map[string]any)
	for k, v := range exp.ErrorData {
		if data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, data[k], v)
		}
	}
	if _, ok := data["reason"].(string); !ok {
		t.Errorf("data.reason missing: %v", data)
	}
	if rf := exp.ResponseFormat; rf != nil {
		for k, want := range rf {
			got := res[k]
			if !sameJSON(t, got, want) {
				if k == "error" && !subset(t, got, want) {
					t.Errorf("response %s = %v, want %v", k, got, want)
				} else if k != "error" {
					t.Errorf("response %s = %v, want %v", k, got, want)
				}
			}
		}
	}
}

// sameJSON compares two values by their JSON text (numbers as the wire has them).
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("marshal: %v %v", err1, err2)
	}
	var va, vb any
	json.Unmarshal(ja, &va)
	json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

// subset reports whether every member of want is in got with the same value.
func subset(t *testing.T, got, want any) bool {
	t.Helper()
	wm, ok := want.(map[string]any)
	if !ok {
		return sameJSON(t, got, want)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !subset(t, gm[k], v) {
			return false
		}
	}
	return true
}

// dlpOverTheWire: a tool returns the vector's content; what reaches the
// client must be the vector's output.
func dlpOverTheWire(t *testing.T, c aipvectors.Case, g *gatehouse.Guard) {
	t.Helper()
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "any_tool", func(map[string]any) string { return c.Input.Content }, nil)
	})
	conn := dialRaw(t, ct, "2025-06-18")
	res := conn.callTool(1, "any_tool", map[string]any{})
	if e := rpcErr(res); e != nil {
		t.Fatalf("error %v", e)
	}
	got := resultText(res)
	if c.Expected.Output != nil && got != *c.Expected.Output {
		t.Errorf("output %q, want %q", got, *c.Expected.Output)
	}
	if c.Expected.Redacted != nil && *c.Expected.Redacted != (got != c.Input.Content) {
		t.Errorf("redacted = %v, want %v", got != c.Input.Content, *c.Expected.Redacted)
	}
	if strings.Contains(got, "[REDACTED:") != (c.Expected.Redacted != nil && *c.Expected.Redacted) {
		t.Errorf("marker presence wrong in %q", got)
	}
}
