package gatehouse_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// wireClock is a settable clock for the Gate of TestEveryCallReasonOverTheWire.
type wireClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *wireClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *wireClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// wireFixture is a guarded server with approval-gated tools that count
// their runs, and a go-sdk client session to it.
type wireFixture struct {
	t     *testing.T
	gate  *approval.Gate
	clock *wireClock
	runs  map[string]*int
	mu    sync.Mutex
	cs    *mcp.ClientSession
	auth  *approvaltest.Authenticator
}

func newWireFixture(t *testing.T, authOpts *approvaltest.Options) *wireFixture {
	t.Helper()
	f := &wireFixture{t: t, clock: &wireClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}, runs: map[string]*int{}}
	gate, err := approval.New(approval.Config{ServerID: "urn:uuid:reasons-over-the-wire", RPID: "gatehouse.test", Origins: []string{approvalOrigin}},
		&approval.Options{Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.gate = gate
	passkeys, err := approvalmcp.New(gate, &approvalmcp.Options{Enrollment: approvalmcp.EnrollOpen})
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, approvalPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: passkeys, ForUnauthenticated: true}})
	ct := serve(t, g, func(s *mcp.Server) {
		for _, name := range []string{"delete_file", "wipe"} {
			n := new(int)
			f.runs[name] = n
			tool := &mcp.Tool{Name: name}
			if err := passkeys.Require(tool, approval.ToolPolicy{}); err != nil {
				t.Fatal(err)
			}
			mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				f.mu.Lock()
				*n++
				f.mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			})
		}
	})
	f.auth = approvaltest.New(approvalOrigin, authOpts)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ac, err := approvalclient.New(client, f.auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.cs, err = client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.cs.Close() })
	if _, err := ac.Enroll(context.Background(), f.cs); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *wireFixture) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.runs {
		n += *r
	}
	return n
}

// challenge asks the server for a challenge over MCP.
func (f *wireFixture) challenge(tool, args string) *approvalmcp.ChallengeResult {
	f.t.Helper()
	ch, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](context.Background(), f.cs, approval.MethodChallengeCreate,
		&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: tool, Arguments: json.RawMessage(args)}})
	if err != nil {
		f.t.Fatalf("challenge/create: %v", err)
	}
	return ch
}

// sign has the authenticator answer ch as a browser would.
func (f *wireFixture) sign(ch *approvalmcp.ChallengeResult) json.RawMessage {
	f.t.Helper()
	resp, err := f.auth.Get(context.Background(), ch.DisplayText, ch.RequestOptions)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// signWith signs ch's WebAuthn challenge with a chosen credential and counter.
func (f *wireFixture) signWith(a *approvaltest.Authenticator, ch *approvalmcp.ChallengeResult, counter uint32) json.RawMessage {
	f.t.Helper()
	var opts struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(ch.RequestOptions, &opts); err != nil || opts.Challenge == "" {
		f.t.Fatalf("requestOptions without a challenge: %s", ch.RequestOptions)
	}
	resp, err := a.Assert(a.CredentialIDs()[0], opts.Challenge, counter)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// call sends tools/call with evidence (nil: none) in params._meta.
func (f *wireFixture) call(tool, args string, evidence any) error {
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	if evidence != nil {
		p.Meta = mcp.Meta{approval.MetaKey: evidence}
	}
	_, err := f.cs.CallTool(context.Background(), p)
	return approvalclient.Wrap(err)
}

func evidenceFor(ch *approvalmcp.ChallengeResult, resp json.RawMessage) approval.Evidence {
	return approval.Evidence{Method: approval.EvidenceMethodWebAuthn, ChallengeID: ch.ChallengeID, Response: resp}
}

// tamperAssertion flips one bit of the named member of the assertion's
// response (signature, authenticatorData, clientDataJSON).
func tamperAssertion(t *testing.T, resp json.RawMessage, member string) json.RawMessage {
	t.Helper()
	var outer map[string]any
	if err := json.Unmarshal(resp, &outer); err != nil {
		t.Fatal(err)
	}
	inner := outer["response"].(map[string]any)
	b, err := base64.RawURLEncoding.DecodeString(inner[member].(string))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	inner[member] = base64.RawURLEncoding.EncodeToString(b)
	out, _ := json.Marshal(outer)
	return out
}

// TestEveryCallReasonOverTheWire: each SEP-2672 §4.10 reason a tools/call
// can end with, produced by a real go-sdk client against a guarded server:
// the exact reason reaches the client as -32001 with data.reason, and no
// tool ran. A valid call at the end shows the tools do run when approved.
func TestEveryCallReasonOverTheWire(t *testing.T) {
	const args = `{"path":"a.txt"}`
	for _, c := range []struct {
		reason approval.Reason
		call   func(f *wireFixture) error
		auth   *approvaltest.Options
	}{
		{approval.ReasonMissingEvidence, func(f *wireFixture) error {
			return f.call("delete_file", args, nil)
		}, nil},
		{approval.ReasonMissingEvidence, func(f *wireFixture) error { // evidence of the wrong shape
			return f.call("delete_file", args, map[string]any{"challengeId": 7})
		}, nil},
		{approval.ReasonUnsupportedMethod, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", args, approval.Evidence{Method: "totp", ChallengeID: ch.ChallengeID, Response: f.sign(ch)})
		}, nil},
		{approval.ReasonChallengeUnknown, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			ev := evidenceFor(ch, f.sign(ch))
			ev.ChallengeID = "AAAAAAAAAAAAAAAAAAAAAA"
			return f.call("delete_file", args, ev)
		}, nil},
		{approval.ReasonChallengeConsumed, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			ev := evidenceFor(ch, f.sign(ch))
			if err := f.call("delete_file", args, ev); err != nil {
				return err
			}
			f.mu.Lock()
			*f.runs["delete_file"]-- // the approved call ran once; the replay is the case
			f.mu.Unlock()
			return f.call("delete_file", args, ev)
		}, nil},
		{approval.ReasonChallengeExpired, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			ev := evidenceFor(ch, f.sign(ch))
			f.clock.Advance(approval.DefaultChallengeTTL)
			return f.call("delete_file", args, ev)
		}, nil},
		{approval.ReasonChallengeWrongTool, func(f *wireFixture) error {
			ch := f.challenge("wipe", args)
			return f.call("delete_file", args, evidenceFor(ch, f.sign(ch)))
		}, nil},
		{approval.ReasonUnknownCredential, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			stranger := approvaltest.New(approvalOrigin, nil) // enrolled for another user
			begin, err := f.gate.BeginEnrollment(context.Background(), approval.NewUser("someone-else"))
			if err != nil {
				return err
			}
			reg, err := stranger.Create(context.Background(), begin.Options)
			if err != nil {
				return err
			}
			if _, err := f.gate.FinishEnrollment(context.Background(), approval.NewUser("someone-else"), reg); err != nil {
				return err
			}
			return f.call("delete_file", args, evidenceFor(ch, f.signWith(stranger, ch, 9)))
		}, nil},
		{approval.ReasonAuthenticatorClassMismatch, func(f *wireFixture) error {
			// A platform-only passkey approves a platform tool; the tool's
			// policy tightens to cross-platform between issuance and the call.
			if err := f.gate.Require("delete_file", approval.ToolPolicy{Class: approval.ClassPlatform}); err != nil {
				return err
			}
			ch := f.challenge("delete_file", args)
			ev := evidenceFor(ch, f.sign(ch))
			if err := f.gate.Require("delete_file", approval.ToolPolicy{Class: approval.ClassCrossPlatform}); err != nil {
				return err
			}
			return f.call("delete_file", args, ev)
		}, &approvaltest.Options{Transports: []string{"internal"}}},
		{approval.ReasonSignatureFailed, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", args, evidenceFor(ch, tamperAssertion(f.t, f.sign(ch), "signature")))
		}, nil},
		{approval.ReasonSignatureFailed, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", args, evidenceFor(ch, tamperAssertion(f.t, f.sign(ch), "clientDataJSON")))
		}, nil},
		{approval.ReasonCounterRegression, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", args, evidenceFor(ch, f.signWith(f.auth, ch, 1))) // equal to the counter stored at enrollment
		}, nil},
		{approval.ReasonArgumentHashMismatch, func(f *wireFixture) error {
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", `{"path":"b.txt"}`, evidenceFor(ch, f.sign(ch)))
		}, nil},
		{approval.ReasonArgumentHashMismatch, func(f *wireFixture) error { // an extra argument
			ch := f.challenge("delete_file", args)
			return f.call("delete_file", `{"path":"a.txt","force":true}`, evidenceFor(ch, f.sign(ch)))
		}, nil},
	} {
		t.Run(string(c.reason), func(t *testing.T) {
			f := newWireFixture(t, c.auth)
			err := c.call(f)
			var ae *approval.Error
			if !errors.As(err, &ae) || ae.Reason != c.reason {
				t.Fatalf("got %v, want -32001 %s", err, c.reason)
			}
			if n := f.total(); n != 0 {
				t.Fatalf("a tool ran %d times", n)
			}
		})
	}

	// The control: the same fixture lets an approved call run.
	f := newWireFixture(t, nil)
	ch := f.challenge("delete_file", args)
	if err := f.call("delete_file", args, evidenceFor(ch, f.sign(ch))); err != nil || f.total() != 1 {
		t.Fatalf("approved call: %v, %d runs", err, f.total())
	}
}
