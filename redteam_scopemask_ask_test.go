package gatehouse_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/scope"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// The red team of the scope masking (611d637), continued from
// redteam_scopemask_test.go: passkey challenges and asks no one can answer.

const challengeMaskPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: challenge-mask}
spec:
  allowed_tools: [delete_file, echo, ghost_op]
`

// passkeyTrustGuard is a guard with passkey approvals (also for
// unauthenticated callers), the scopes sp, challengeMaskPolicy and a
// trust store whose agents are all suspended or all untrusted, and its
// approval server.
func passkeyTrustGuard(t *testing.T, sp *scope.Policy, suspended bool) (*gatehouse.Guard, *approvalmcp.Server) {
	t.Helper()
	_, srv := newApprovalServer(t, nil)
	def := trust.Untrusted
	if suspended {
		def = trust.Suspended
	}
	store, err := trust.NewMemoryStore(&trust.MemoryOptions{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	return mustGuard(t, mustPolicy(t, challengeMaskPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true},
		Scopes: &gatehouse.ScopeOptions{Policy: sp}, Trust: &gatehouse.TrustOptions{Store: store}}), srv
}

// TestRedTeamScopeMask_PasskeyChallengeMasksToo: approval/challenge/create
// asks a passkey for a call, and is refused, as that call's tools/call
// is, when the call cannot run (precheckChallenge, pinChallenge). 611d637
// masked the scope denial of tools/call only: a challenge for a tool the
// server hides from the session, or by a suspended agent, was still
// refused with the scope denial (No approval ... the access token lacks
// the OAuth scope(s) mcp:tools ...), so a client was asked to step up for
// an approval that could never be issued, and a hidden tool was named
// with its scopes where a missing one was not listed. Now the listing and
// the trust level are checked before the scopes: the hidden tool answers
// as the missing one, the suspended agent as suspended (and a suspended
// agent with the scopes is not prompted either). Near miss: a listed tool
// of an agent not suspended still gets the scope denial.
func TestRedTeamScopeMask_PasskeyChallengeMasksToo(t *testing.T) {
	sp, err := scope.Parse([]byte(scopeDoc)) // default: mcp:tools, which no in-memory call has
	if err != nil {
		t.Fatal(err)
	}
	for _, suspended := range []bool{false, true} {
		t.Run(fmt.Sprintf("suspended=%v", suspended), func(t *testing.T) {
			g, srv := passkeyTrustGuard(t, sp, suspended)
			var runs atomic.Int32
			ct := serve(t, g, func(s *mcp.Server) {
				requirePasskeyTools(t, s, srv, &runs, "delete_file", "echo")
				hideFromListing(s, "echo")
			})
			cs, prompts := enrolledApprovalClient(t, ct)
			ctx := context.Background()
			challenge := func(tool string) string {
				err := createChallenge(ctx, cs, tool, `{}`)
				if err == nil {
					return "issued"
				}
				return withData(err).Error()
			}
			hidden, missing, listed := challenge("echo"), challenge("ghost_op"), challenge("delete_file")
			if strings.Contains(hidden, "mcp:tools") || strings.ReplaceAll(hidden, "echo", "TOOL") != strings.ReplaceAll(missing, "ghost_op", "TOOL") {
				t.Errorf("a challenge for a hidden tool answers otherwise than for a missing one:\nhidden  %s\nmissing %s", hidden, missing)
			}
			if suspended {
				if !strings.Contains(listed, "suspended") || strings.Contains(listed, "mcp:tools") {
					t.Errorf("a suspended agent's challenge: %s, want the suspension, no scope", listed)
				}
			} else if !strings.Contains(listed, "mcp:tools") {
				t.Errorf("near miss, a listed tool: %s, want the scope denial", listed)
			}
			if n := len(prompts.Prompts()); n != 0 || runs.Load() != 0 {
				t.Errorf("prompted %d times, ran %d", n, runs.Load())
			}
		})
	}
}

// TestRedTeamScopeMask_NoPasskeyPromptForASuspendedAgent: a suspended
// agent whose token has every scope the call needs (here: no scope is
// needed) asks for a passkey challenge: it is refused as suspended, and
// the user is not prompted to approve a call the trust gate refuses. On
// 611d637 (and before) the challenge was issued. Near miss: an agent not
// suspended gets its challenge.
func TestRedTeamScopeMask_NoPasskeyPromptForASuspendedAgent(t *testing.T) {
	sp, err := scope.New(scope.Config{}) // no scope needed
	if err != nil {
		t.Fatal(err)
	}
	for _, suspended := range []bool{true, false} {
		g, srv := passkeyTrustGuard(t, sp, suspended)
		ct := serve(t, g, func(s *mcp.Server) { requirePasskeyTools(t, s, srv, nil, "delete_file") })
		cs, _ := enrolledApprovalClient(t, ct)
		err = createChallenge(context.Background(), cs, "delete_file", `{}`)
		switch {
		case suspended && (err == nil || !strings.Contains(withData(err).Error(), "suspended")):
			t.Errorf("a suspended agent's challenge: %v, want it refused as suspended", withData(err))
		case !suspended && err != nil:
			t.Errorf("near miss, an agent not suspended: %v", withData(err))
		}
	}
}

const askMaskPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: ask-mask}
spec:
  allowed_tools: [status]
  tool_rules:
    - tool: deploy
      action: ask
`

// TestRedTeamScopeMask_NoStepUpForAnAskNoOneCanAnswer: an ask with no
// Asker, no passkey, no grant offered, from a client that cannot elicit,
// is refused whatever the token (answerStage: -32004, no approver). On
// 611d637 a token short of the call's scopes got the 403 step-up for it:
// the user granted deploy:write (which the token then keeps) only to see
// the call refused. Now it gets the refusal a token with the scopes gets,
// byte for byte; so does the same ask from a client that can elicit,
// since the tool is not one AddTool registered. Near miss, still
// challenged: the same call with an Asker configured (an AddTool tool
// and an eliciting client: TestRedTeamScopeMask_UnanswerableAskOfAnAddToolTool).
func TestRedTeamScopeMask_NoStepUpForAnAskNoOneCanAnswer(t *testing.T) {
	ss := newScopeRig(t, scopeRig{policy: askMaskPolicy})
	call := func(ss *scopeServer, tok, body string) (*http.Response, string) {
		return ss.post(t, tok, newHeaders("deploy"), body)
	}
	plain := newCallBody("deploy", map[string]any{"env": "dev"})
	resp1, short := call(ss, ss.as.issue("mcp:tools"), plain)
	resp2, scoped := call(ss, ss.as.issue("mcp:tools", "deploy:write"), plain)
	if leak := scopeLeak(resp1, short); leak != "" || short != scoped || !strings.Contains(short, "no approver is configured") {
		t.Errorf("an ask no one can answer: without the scope %d %s (%s)\nwith it %d %s", resp1.StatusCode, short, leak, resp2.StatusCode, scoped)
	}
	asking := newScopeRig(t, scopeRig{policy: askMaskPolicy, opts: &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(
		func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) { return gatehouse.Answer{}, nil })}}})
	if resp, body := call(asking, asking.as.issue("mcp:tools"), plain); resp.StatusCode != http.StatusForbidden {
		t.Errorf("near miss, an Asker is configured: %d %s", resp.StatusCode, body)
	}
	eliciting := strings.Replace(plain, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`, 1)
	if eliciting == plain {
		t.Fatal("the call body has no clientCapabilities to replace")
	}
	// A client that can elicit does not help a tool AddTool did not
	// register: only AddTool's tools ask by elicitation, so this ask too
	// is refused whatever the token (the guard reads the listing to know).
	resp3, shortElicit := call(ss, ss.as.issue("mcp:tools"), eliciting)
	_, scopedElicit := call(ss, ss.as.issue("mcp:tools", "deploy:write"), eliciting)
	if leak := scopeLeak(resp3, shortElicit); leak != "" || shortElicit != scopedElicit || !strings.Contains(shortElicit, "no approver is configured") {
		t.Errorf("an eliciting client's ask of a tool AddTool did not register: without the scope %d %s (%s)\nwith it %s", resp3.StatusCode, shortElicit, leak, scopedElicit)
	}
	if n := ss.runs.Load() + asking.runs.Load(); n != 0 {
		t.Fatalf("tools ran %d times", n)
	}
}

// TestRedTeamScopeMask_UnanswerableAskOfAnAddToolTool: the same over an
// in-memory session (no token: short of the default scope) for a tool
// registered with gatehouse.AddTool (scopeDoc: deploy:write), whose ask
// the client, without the elicitation capability, cannot be shown: the
// refusal names that (noElicit), as answerStage's does, not a scope. Near miss: a client that
// declares elicitation is not masked (its call gets the scope denial).
func TestRedTeamScopeMask_UnanswerableAskOfAnAddToolTool(t *testing.T) {
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, askMaskPolicy), &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{Policy: sp}})
	var runs atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{}, nil, nil
	})
	g.Install(s)
	for _, elicits := range []bool{false, true} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := connectRaw(t, ct)
		caps := map[string]any{}
		if elicits {
			caps["elicitation"] = map[string]any{}
		}
		if res := c.request("init", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": caps,
			"clientInfo": map[string]any{"name": "raw-agent", "version": "1"}}); res["error"] != nil {
			t.Fatal(res)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		got := fmt.Sprint(rpcErr(c.callTool(1, "deploy", map[string]any{"env": "dev"})))
		switch {
		case !elicits && (strings.Contains(got, "insufficient_authorization") || !strings.Contains(got, "cannot show approval prompts")):
			t.Errorf("a client that cannot elicit: %s, want the ask's refusal (noElicit), no scope", got)
		case elicits && !strings.Contains(got, "insufficient_authorization"):
			t.Errorf("near miss, a client that can elicit: %s, want the scope denial", got)
		}
		ss.Close()
	}
	if runs.Load() != 0 {
		t.Fatalf("ran %d times", runs.Load())
	}
}
