package gatehouse_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
	"github.com/gatehouse-dev/gatehouse/audit"
)

const approvalOrigin = "https://gatehouse.test"

const approvalPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: approval}
spec:
  allowed_tools: [echo, delete_file]
  tool_rules:
    - tool: wipe
      action: ask
`

// approvalServer is a guarded server with two approval-gated tools:
// delete_file (policy: allow) and wipe (policy: ask, answered by the passkey).
func approvalServer(t *testing.T, unauthenticated bool, deletes *atomic.Int32, log *syncBuffer) mcp.Transport {
	t.Helper()
	_, srv := newApprovalServer(t, nil)
	w, _ := audit.New(log, nil)
	g := mustGuard(t, mustPolicy(t, approvalPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: unauthenticated}, Audit: w})
	return serve(t, g, func(s *mcp.Server) {
		for _, name := range []string{"delete_file", "wipe"} {
			tool := &mcp.Tool{Name: name}
			if err := srv.Require(tool, approval.ToolPolicy{}); err != nil {
				t.Fatal(err)
			}
			mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				deletes.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			})
		}
		textTool(s, "echo", func(map[string]any) string { return "echo" }, nil)
	})
}

// newApprovalServer is a Gate for the tests' origin, served with opts.
func newApprovalServer(t *testing.T, opts *approvalmcp.Options) (*approval.Gate, *approvalmcp.Server) {
	t.Helper()
	gate, err := approval.New(approval.Config{ServerID: "https://mcp.gatehouse.test/mcp", RPID: "gatehouse.test", Origins: []string{approvalOrigin}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := approvalmcp.New(gate, opts)
	if err != nil {
		t.Fatal(err)
	}
	return gate, srv
}

// deleteFileServer is a server guarded with o (approvalPolicy) whose one
// tool, delete_file, requires a passkey and counts its runs.
func deleteFileServer(t *testing.T, srv *approvalmcp.Server, o *gatehouse.Options, runs *atomic.Int32) *mcp.Server {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, approvalPolicy), o)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	del := &mcp.Tool{Name: "delete_file"}
	if err := srv.Require(del, approval.ToolPolicy{}); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(s, del, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	g.Install(s)
	return s
}

func approvalClient(t *testing.T, ct mcp.Transport) (*approvalclient.Client, *mcp.ClientSession, *approvaltest.Authenticator) {
	t.Helper()
	auth := approvaltest.New(approvalOrigin, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "passkey-agent", Version: "1"}, nil)
	ac, err := approvalclient.New(client, auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ac, cs, auth
}

// requirePasskeyTools adds names to s as typed tools that need a passkey
// approval from srv; runs, when not nil, counts their runs.
func requirePasskeyTools(t *testing.T, s *mcp.Server, srv *approvalmcp.Server, runs *atomic.Int32, names ...string) {
	t.Helper()
	for _, name := range names {
		tool := &mcp.Tool{Name: name}
		if err := srv.Require(tool, approval.ToolPolicy{}); err != nil {
			t.Fatal(err)
		}
		mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			if runs != nil {
				runs.Add(1)
			}
			return &mcp.CallToolResult{}, nil, nil
		})
	}
}

// enrolledApprovalClient is approvalClient with its passkey enrolled.
func enrolledApprovalClient(t *testing.T, ct mcp.Transport) (*mcp.ClientSession, *approvaltest.Authenticator) {
	t.Helper()
	ac, cs, auth := approvalClient(t, ct)
	if _, err := ac.Enroll(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	return cs, auth
}

// createChallenge asks approval/challenge/create for tool with args.
func createChallenge(ctx context.Context, cs *mcp.ClientSession, tool, args string) error {
	_, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](ctx, cs, approval.MethodChallengeCreate,
		&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: tool, Arguments: json.RawMessage(args)}})
	return err
}

// TestVerifiedApprovalThroughTheGuard: enrollment and challenges pass method
// authorization without being listed, the capability is declared, gated
// tools run only with valid passkey evidence (which also answers an ask
// rule), replays are refused, and every step is audited.
func TestVerifiedApprovalThroughTheGuard(t *testing.T) {
	var deletes atomic.Int32
	var log syncBuffer
	ct := approvalServer(t, true, &deletes, &log)
	ac, cs, auth := approvalClient(t, ct)
	ctx := context.Background()
	if caps := cs.InitializeResult().Capabilities; caps == nil || !hasKey(caps.Extensions, approval.CapabilityKey) {
		t.Fatalf("capability missing: %+v", caps)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a"}}); err == nil || !strings.Contains(err.Error(), "Verified approval is required") {
		t.Fatalf("without evidence: %v", err)
	}
	if _, err := ac.Enroll(ctx, cs); err != nil {
		t.Fatalf("enroll through the guard: %v", err)
	}
	for _, tool := range []string{"delete_file", "wipe"} {
		if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "a"}}); err != nil {
			t.Fatalf("%s with a passkey: %v", tool, err)
		}
	}
	if deletes.Load() != 2 || len(auth.Prompts()) != 2 {
		t.Fatalf("runs %d, prompts %v", deletes.Load(), auth.Prompts())
	}
	if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil || len(auth.Prompts()) != 2 {
		t.Fatalf("ungated tool: %v, prompts %d", err, len(auth.Prompts()))
	}
	for _, m := range []string{`"method":"approval/enroll/begin"`, `"method":"approval/enroll/finish"`, `"method":"approval/challenge/create"`, "Verified approval (passkey)", "missing_evidence"} {
		if !strings.Contains(log.String(), m) {
			t.Errorf("audit log lacks %s", m)
		}
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// TestApprovalNeedsAuthenticatedUser: without a bearer-token identity (and
// without ApprovalForUnauthenticated) nobody can enroll a passkey for a
// self-declared client name, and gated tools stay closed.
func TestApprovalNeedsAuthenticatedUser(t *testing.T) {
	var deletes atomic.Int32
	var log syncBuffer
	ct := approvalServer(t, false, &deletes, &log)
	ac, cs, _ := approvalClient(t, ct)
	ctx := context.Background()
	if _, err := ac.Enroll(ctx, cs); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("enrollment for an unauthenticated client: %v", err)
	}
	_, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a"}})
	if err == nil || deletes.Load() != 0 {
		t.Fatalf("gated call: %v, runs %d", err, deletes.Load())
	}
	raw, _ := json.Marshal(log.String())
	if !strings.Contains(string(raw), "bearer token") {
		t.Errorf("the audit log does not say why: %s", log.String())
	}
}

// TestApprovalMethodsUnknownWithoutApproval: a guard without Options.Approval
// leaves the approval methods unregistered: -32601, as SEP-2672 §4.4 says.
func TestApprovalMethodsUnknownWithoutApproval(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	for i, m := range []string{"approval/enroll/begin", "approval/challenge/create"} {
		if e := rpcErr(c.request(i, m, map[string]any{})); e == nil || e["code"] != json.Number("-32601") {
			t.Errorf("%s: %v", m, e)
		}
	}
}

// TestApprovalUserMatchesBearerIdentity: a passkey enrolled out of band for
// approval.NewUser(gatehouse.ApprovalUserID(id)) approves the calls of the bearer token whose
// user is id (short, long and unprintable ids alike), and no other user's.
func TestApprovalUserMatchesBearerIdentity(t *testing.T) {
	gate, srv := newApprovalServer(t, &approvalmcp.Options{Enrollment: approvalmcp.EnrollOutOfBand})
	var runs atomic.Int32
	s := deleteFileServer(t, srv, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv}}, &runs)
	users := map[string]string{"t1": "alice", "t2": "Alice", "t3": strings.Repeat("long-", 40), "t4": "ålice\x01"}
	// t5 chose an id that reads like the hashed form of t4's.
	sum := sha256.Sum256([]byte(users["t4"]))
	users["t5"] = "sha256:" + hex.EncodeToString(sum[:16])
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if u, ok := users[token]; ok {
			return &auth.TokenInfo{UserID: u, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	t.Cleanup(hs.Close)
	ctx := context.Background()
	call := func(token string, a *approvaltest.Authenticator) error {
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		ac, err := approvalclient.New(client, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		_, err = ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a"}})
		return err
	}
	for _, token := range []string{"t1", "t3", "t4"} {
		a := approvaltest.New(approvalOrigin, nil)
		u := approval.NewUser(gatehouse.ApprovalUserID(users[token]))
		begin, err := gate.BeginEnrollment(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.Create(ctx, begin.Options)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gate.FinishEnrollment(ctx, u, resp); err != nil {
			t.Fatal(err)
		}
		before := runs.Load()
		if err := call(token, a); err != nil || runs.Load() != before+1 {
			t.Fatalf("%q with the passkey enrolled for ApprovalUserID: %v", users[token], err)
		}
		// "Alice" is another user than "alice", and "sha256:…" another
		// than the user whose id hashes to it: the passkey is not theirs.
		if other := map[string]string{"t1": "t2", "t4": "t5"}[token]; other != "" {
			err := call(other, a)
			var ae *approval.Error
			if !errors.As(err, &ae) || ae.Reason != approval.ReasonNoEligibleCredential || runs.Load() != before+1 {
				t.Fatalf("%q with %q's passkey: %v", users[other], users[token], err)
			}
		}
	}
}

// TestUnauthenticatedApprovalIsOneUser: with ApprovalForUnauthenticated, a
// client that declares another name is still the one local user, so it
// cannot find a user without passkeys and enroll its own next to the
// user's (EnrollFirstOnly), nor approve with a passkey of its own.
func TestUnauthenticatedApprovalIsOneUser(t *testing.T) {
	gate, srv := newApprovalServer(t, nil) // EnrollFirstOnly
	var runs atomic.Int32
	s := deleteFileServer(t, srv, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true}}, &runs)
	ctx := context.Background()
	connect := func(name string, a *approvaltest.Authenticator) (*approvalclient.Client, *mcp.ClientSession) {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
		ac, err := approvalclient.New(client, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return ac, cs
	}
	user := approvaltest.New(approvalOrigin, nil)
	ac, cs := connect("claude-code", user)
	if _, err := ac.Enroll(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if creds, err := gate.Credentials(ctx, approval.NewUser(gatehouse.LocalApprovalUserID())); err != nil || len(creds) != 1 {
		t.Fatalf("LocalApprovalUserID has %d credentials (%v), want the one enrolled", len(creds), err)
	}
	impostor := approvaltest.New(approvalOrigin, nil)
	ac2, cs2 := connect("claude-code-2", impostor)
	_, err := ac2.Enroll(ctx, cs2)
	var ae *approval.Error
	if !errors.As(err, &ae) || ae.Reason != approvalmcp.ReasonEnrollmentNotPermitted {
		t.Fatalf("renamed client enrolling: %v, want %s", err, approvalmcp.ReasonEnrollmentNotPermitted)
	}
	args := map[string]any{"path": "precious.txt"}
	if _, err := ac2.CallTool(ctx, cs2, &mcp.CallToolParams{Name: "delete_file", Arguments: args}); err == nil || runs.Load() != 0 {
		t.Fatalf("renamed client with its own passkey: %v, %d runs", err, runs.Load())
	}
	// The user's own passkey approves calls from either name.
	if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: args}); err != nil || runs.Load() != 1 {
		t.Fatalf("the user's call: %v, %d runs", err, runs.Load())
	}
}

// TestNoChallengeForARefusedCall: approval/challenge/create is refused, by
// the policy's own decision, for a call the policy would refuse anyway (a
// tool not allowed, a protected path), so the user is never asked to
// approve it; allowed and ask calls get challenges.
func TestNoChallengeForARefusedCall(t *testing.T) {
	_, srv := newApprovalServer(t, nil)
	p := mustPolicy(t, `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: precheck}
spec:
  allowed_tools: [delete_file]
  tool_rules: [{tool: wipe, action: ask}]
  protected_paths: ["~/.ssh"]
`)
	var log syncBuffer
	w, _ := audit.New(&log, nil)
	g := mustGuard(t, p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true}, Audit: w})
	ct := serve(t, g, func(s *mcp.Server) { requirePasskeyTools(t, s, srv, nil, "delete_file", "format_disk", "wipe") })
	cs, _ := enrolledApprovalClient(t, ct)
	ctx := context.Background()
	challenge := func(tool, args string) error { return createChallenge(ctx, cs, tool, args) }
	for _, c := range []struct{ tool, args, want string }{
		{"format_disk", `{}`, "not in allowed_tools"},
		{"delete_file", `{"path":"/home/agent/.ssh/id_ed25519"}`, "protected path"},
		{"delete_file", `{"path":"~/.SSH/id_ed25519"}`, "protected path"},
	} {
		err := challenge(c.tool, c.args)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || !strings.Contains(strings.ToLower(we.Message+string(we.Data)), c.want) {
			t.Errorf("challenge for %s %s: %v, want a policy denial saying %q", c.tool, c.args, err, c.want)
		}
		var ae *approval.Error
		if errors.As(approvalclient.Wrap(err), &ae) {
			t.Errorf("challenge for %s: reads as approval reason %s", c.tool, ae.Reason)
		}
	}
	for _, c := range []struct{ tool, args string }{{"delete_file", `{"path":"notes.txt"}`}, {"wipe", `{}`}} {
		if err := challenge(c.tool, c.args); err != nil {
			t.Errorf("challenge for %s: %v", c.tool, err)
		}
	}
	if !strings.Contains(log.String(), "No approval is asked for a call the policy refuses") {
		t.Errorf("the refused challenges are not audited:\n%s", log.String())
	}
}
