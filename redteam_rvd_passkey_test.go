package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// Red team rvd: a passkey approval (SEP-2672) of one call must never run
// another. One guarded server with passkey-gated tools, one go-sdk client
// with an enrolled test authenticator; every case asks for a challenge for
// call A, has the "human" sign it, and sends call B with that evidence.

const rvdPasskeyPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: rvd-passkeys}
spec:
  allowed_tools: [delete_file, delete_files, send_mail]
`

type rvdPasskeyFixture struct {
	t     *testing.T
	clock *wireClock
	cs    *mcp.ClientSession
	auth  *approvaltest.Authenticator
	mu    sync.Mutex
	got   []string // what each run's handler received (its typed input as JSON)
	shown []string // every displayText the authenticator signed
}

func newRVDPasskeyFixture(t *testing.T) *rvdPasskeyFixture {
	t.Helper()
	f := &rvdPasskeyFixture{t: t, clock: &wireClock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}}
	gate, err := approval.New(approval.Config{ServerID: "urn:uuid:rvd-passkeys", RPID: "gatehouse.test", Origins: []string{approvalOrigin}},
		&approval.Options{Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	passkeys, err := approvalmcp.New(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	record := func(v any) {
		b, _ := json.Marshal(v)
		f.mu.Lock()
		f.got = append(f.got, string(b))
		f.mu.Unlock()
	}
	g := mustGuard(t, mustPolicy(t, rvdPasskeyPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: passkeys, ForUnauthenticated: true}})
	ct := serve(t, g, func(s *mcp.Server) {
		for _, name := range []string{"delete_file", "delete_files"} {
			tool := &mcp.Tool{Name: name}
			if err := passkeys.Require(tool, approval.ToolPolicy{}); err != nil {
				t.Fatal(err)
			}
			mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				record(a)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
			})
		}
		mail := &mcp.Tool{Name: "send_mail", InputSchema: json.RawMessage(rvdMailSchema)}
		if err := passkeys.Require(mail, approval.ToolPolicy{}); err != nil {
			t.Fatal(err)
		}
		mcp.AddTool(s, mail, func(_ context.Context, _ *mcp.CallToolRequest, a rvdMail) (*mcp.CallToolResult, any, error) {
			record(a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil, nil
		})
	})
	var ac *approvalclient.Client
	ac, f.cs, f.auth = approvalClient(t, ct)
	if _, err := ac.Enroll(context.Background(), f.cs); err != nil {
		t.Fatal(err)
	}
	return f
}

// approve has the server issue a challenge for tool with args and the
// authenticator sign it: the evidence for tools/call _meta.
func (f *rvdPasskeyFixture) approve(tool, args string) (approval.Evidence, error) {
	ch, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](context.Background(), f.cs, approval.MethodChallengeCreate,
		&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: tool, Arguments: json.RawMessage(args)}})
	if err != nil {
		return approval.Evidence{}, err
	}
	resp, err := f.auth.Get(context.Background(), ch.DisplayText, ch.RequestOptions)
	if err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	f.shown = append(f.shown, ch.DisplayText)
	f.mu.Unlock()
	return evidenceFor(ch, resp), nil
}

// call sends tools/call with the evidence and returns what the handler
// received ("" when it did not run) and the error.
func (f *rvdPasskeyFixture) call(tool, args string, ev approval.Evidence) (string, error) {
	f.mu.Lock()
	before := len(f.got)
	f.mu.Unlock()
	p := &mcp.CallToolParams{Name: tool, Meta: mcp.Meta{approval.MetaKey: ev}}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	_, err := f.cs.CallTool(context.Background(), p)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch len(f.got) - before {
	case 0:
		return "", approvalclient.Wrap(err)
	case 1:
		return f.got[before], approvalclient.Wrap(err)
	}
	f.t.Fatalf("%d runs for one call", len(f.got)-before)
	return "", nil
}

// TestRedTeamRVD_PasskeyApprovalOfOneCallRunsNoOther: the held attacks of
// this round, as one table on one server. Each approval is for call A;
// call B is another call (refused with the SEP-2672 reason, or as invalid
// params before any approval is looked at), or the same call spelled
// otherwise (a near miss: it runs, once, and the handler receives exactly
// the approved values).
func TestRedTeamRVD_PasskeyApprovalOfOneCallRunsNoOther(t *testing.T) {
	f := newRVDPasskeyFixture(t)
	const a = `{"path":"/tmp/a"}`
	for _, c := range []struct {
		name                 string
		tool, args           string // approved
		callTool, callArgs   string // sent
		reason               approval.Reason
		errText              string // for refusals that are not §4.10 reasons
		got                  string // for runs: the handler's input
		challengeRefusedText string // the challenge itself is refused
	}{
		{name: "other value", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/etc/passwd"}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "name in other case", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"Path":"/tmp/a"}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "folded duplicate", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/tmp/a","PATH":"/etc/passwd"}`, errText: "Invalid params"},
		{name: "exact duplicate, last wins", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/tmp/a","path":"/etc/passwd"}`, errText: "Invalid params"},
		{name: "exact duplicate, first wins", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/etc/passwd","path":"/tmp/a"}`, errText: "Invalid params"},
		{name: "nested folded duplicate", tool: "delete_file", args: `{"o":{"path":"/tmp/a"}}`, callTool: "delete_file", callArgs: `{"o":{"path":"/tmp/a","PATH":"/etc"}}`, errText: "Invalid params"},
		{name: "NFD for NFC", tool: "delete_file", args: `{"path":"/tmp/caf\u00e9"}`, callTool: "delete_file", callArgs: `{"path":"/tmp/cafe\u0301"}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "null member added", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/tmp/a","recursive":null}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "member added", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/tmp/a","recursive":true}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "member left out", tool: "delete_file", args: `{"path":"/tmp/a","dry_run":true}`, callTool: "delete_file", callArgs: a, reason: approval.ReasonArgumentHashMismatch},
		{name: "array for a value", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":["/tmp/a"]}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "string true for true", tool: "delete_file", args: `{"path":"/tmp/a","dry_run":"true"}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","dry_run":true}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "number for a numeric string", tool: "delete_file", args: `{"path":"/tmp/a","keep":"1"}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","keep":1}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "escaped NUL appended", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"/tmp/a\u0000"}`, reason: approval.ReasonArgumentHashMismatch},
		{name: "tool sharing a prefix", tool: "delete_file", args: a, callTool: "delete_files", callArgs: a, reason: approval.ReasonChallengeWrongTool},
		{name: "tool in other case", tool: "delete_file", args: a, callTool: "Delete_File", callArgs: a, errText: "Invalid params"},
		{name: "integer beyond 2^53", tool: "delete_file", args: `{"path":"/tmp/a","n":9007199254740993}`, challengeRefusedText: "canonicalized"},
		{name: "number beyond double range", tool: "delete_file", args: `{"path":"/tmp/a","n":1e400}`, challengeRefusedText: "canonicalized"},
		{name: "arguments not an object", tool: "delete_file", args: `["/tmp/a"]`, challengeRefusedText: "Invalid params"},

		// Near misses: the same call spelled otherwise runs, once, with
		// the approved values.
		{name: "member order and space", tool: "delete_file", args: `{"path":"/tmp/a","force":true}`, callTool: "delete_file", callArgs: ` { "force" : true , "path" : "/tmp/a" } `, got: `{"force":true,"path":"/tmp/a"}`},
		{name: "escaped solidus and letter", tool: "delete_file", args: a, callTool: "delete_file", callArgs: `{"path":"\/tmp\/\u0061"}`, got: `{"path":"/tmp/a"}`},
		{name: "1.0 for 1", tool: "delete_file", args: `{"path":"/tmp/a","n":1}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","n":1.0}`, got: `{"n":1,"path":"/tmp/a"}`},
		{name: "1e0 for 1", tool: "delete_file", args: `{"path":"/tmp/a","n":1}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","n":1e0}`, got: `{"n":1,"path":"/tmp/a"}`},
		{name: "10e-1 for 1", tool: "delete_file", args: `{"path":"/tmp/a","n":1}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","n":10e-1}`, got: `{"n":1,"path":"/tmp/a"}`},
		{name: "2^53 exactly", tool: "delete_file", args: `{"path":"/tmp/a","n":9007199254740992}`, callTool: "delete_file", callArgs: `{"path":"/tmp/a","n":9007199254740992}`, got: `{"n":9007199254740992,"path":"/tmp/a"}`},
		{name: "no arguments for {}", tool: "delete_file", args: `{}`, callTool: "delete_file", callArgs: "", got: `{}`},
		// The mail tool fills in "to" from its input schema's default.
		{name: "every argument sent", tool: "send_mail", args: `{"body":"hi","to":"bob@corp.example"}`, callTool: "send_mail", callArgs: `{"to":"bob@corp.example","body":"hi"}`, got: `{"body":"hi","to":"bob@corp.example"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := f.approve(c.tool, c.args)
			if c.challengeRefusedText != "" {
				if err == nil || !strings.Contains(err.Error(), c.challengeRefusedText) {
					t.Fatalf("challenge: %v, want a refusal saying %q", err, c.challengeRefusedText)
				}
				return
			}
			if err != nil {
				t.Fatalf("challenge: %v", err)
			}
			got, err := f.call(c.callTool, c.callArgs, ev)
			if c.got != "" {
				if err != nil || got != c.got {
					t.Fatalf("near miss: handler got %q (%v), want %q", got, err, c.got)
				}
				// Single use: the evidence runs nothing a second time.
				if got, err := f.call(c.callTool, c.callArgs, ev); got != "" {
					t.Fatalf("replay ran with %s", got)
				} else if ae := (*approval.Error)(nil); !errors.As(err, &ae) || ae.Reason != approval.ReasonChallengeConsumed {
					t.Fatalf("replay: %v", err)
				}
				return
			}
			if got != "" {
				t.Fatalf("ATTACK: the approval of %s %s ran %s %s; the handler got %s", c.tool, c.args, c.callTool, c.callArgs, got)
			}
			var ae *approval.Error
			switch {
			case c.reason != "" && (!errors.As(err, &ae) || ae.Reason != c.reason):
				t.Fatalf("refused with %v, want %s", err, c.reason)
			case c.errText != "" && (err == nil || !strings.Contains(err.Error(), c.errText)):
				t.Fatalf("refused with %v, want it to say %q", err, c.errText)
			}
			// The refusal burnt nothing: the approved call still runs.
			if got, err := f.call(c.tool, c.args, ev); err != nil || got == "" {
				t.Fatalf("the approved call after the refused one: %q %v", got, err)
			}
		})
	}
}

// TestRedTeamRVD_PasskeyExpiryAndRace: an approval used after its
// challenge expired runs nothing; two calls racing one approval run the
// tool once.
func TestRedTeamRVD_PasskeyExpiryAndRace(t *testing.T) {
	f := newRVDPasskeyFixture(t)
	const a = `{"path":"/tmp/a"}`
	ev, err := f.approve("delete_file", a)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(approval.DefaultChallengeTTL)
	var ae *approval.Error
	if got, err := f.call("delete_file", a, ev); got != "" || !errors.As(err, &ae) || ae.Reason != approval.ReasonChallengeExpired {
		t.Fatalf("expired approval: ran %q, %v", got, err)
	}

	ev, err = f.approve("delete_file", a)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = f.call("delete_file", a, ev)
		}()
	}
	wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 1 {
		t.Fatalf("two calls racing one approval ran the tool %d times", len(f.got))
	}
}

// TestRedTeamRVD_PasskeyPromptShowsSchemaDefaults: a passkey challenge
// binds the arguments sent, and the handler receives them with the input
// schema's defaults filled in, which the displayText (the Gate's Describe
// function, which knows no schema) cannot show. Before the fix
// {"body":"hi"} was approved as "body: hi" and the mail went to the
// default all-staff list; now the challenge is refused, naming the
// argument to send, and the call with every argument is approved and runs.
func TestRedTeamRVD_PasskeyPromptShowsSchemaDefaults(t *testing.T) {
	f := newRVDPasskeyFixture(t)
	ev, err := f.approve("send_mail", `{"body":"hi"}`)
	if err == nil {
		got, _ := f.call("send_mail", `{"body":"hi"}`, ev)
		f.mu.Lock()
		shown := f.shown[len(f.shown)-1]
		f.mu.Unlock()
		if !strings.Contains(shown, "all-staff") {
			t.Fatalf("ATTACK: the user approved\n%s\nand the handler got %s", shown, got)
		}
		return
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(we.Data), `\"to\"`) || !strings.Contains(string(we.Data), "defaults") {
		t.Fatalf("challenge refused with %v, want -32602 naming \"to\"", err)
	}
	ev, err = f.approve("send_mail", `{"body":"hi","to":"all-staff@corp.example"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.call("send_mail", `{"body":"hi","to":"all-staff@corp.example"}`, ev); err != nil || got != `{"body":"hi","to":"all-staff@corp.example"}` {
		t.Fatalf("the call with every argument: %q %v", got, err)
	}
}
