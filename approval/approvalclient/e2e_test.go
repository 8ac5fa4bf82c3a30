package approvalclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

const origin = "https://gatehouse.test"

type deleteArgs struct {
	Path string `json:"path"`
}

// testServer is a go-sdk server with the approval methods, one gated tool
// (delete_file), one ungated tool (echo), and a minimal middleware that
// sets the user and verifies evidence before tools/call.
type testServer struct {
	server   *mcp.Server
	deletes  atomic.Int32
	mu       sync.Mutex
	lastMeta map[string]any
}

func newTestServer(t *testing.T, withApproval bool) *testServer {
	t.Helper()
	ts := &testServer{}
	gate, err := approval.New(approval.Config{ServerID: "https://mcp.gatehouse.test/mcp", RPID: "gatehouse.test", Origins: []string{origin}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := approvalmcp.New(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps := &mcp.ServerCapabilities{}
	if withApproval {
		approvalmcp.AddCapability(caps)
	}
	ts.server = mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	if withApproval {
		if err := srv.Register(ts.server); err != nil {
			t.Fatal(err)
		}
	}
	del := &mcp.Tool{Name: "delete_file", Description: "Delete a file"}
	if withApproval {
		err := srv.Require(del, approval.ToolPolicy{Describe: func(_ string, args json.RawMessage) (string, error) {
			var a deleteArgs
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return "Delete the file " + a.Path + " permanently", nil
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	mcp.AddTool(ts.server, del, func(ctx context.Context, req *mcp.CallToolRequest, a deleteArgs) (*mcp.CallToolResult, any, error) {
		ts.deletes.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + a.Path}}}, nil, nil
	})
	mcp.AddTool(ts.server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a deleteArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Path}}}, nil, nil
	})
	ts.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx = approvalmcp.WithUser(ctx, approval.NewUser("agent-alice"))
			if call, ok := req.(*mcp.CallToolRequest); ok {
				ts.mu.Lock()
				ts.lastMeta = call.Params.Meta
				ts.mu.Unlock()
				if withApproval && gate.Requires(call.Params.Name) {
					if _, err := srv.VerifyCall(ctx, call); err != nil {
						return nil, approvalmcp.RPCError(err)
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	return ts
}

func connect(t *testing.T, ts *testServer, auth approvalclient.Authenticator) (*approvalclient.Client, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ts.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil)
	ac, err := approvalclient.New(client, auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ac, cs
}

var _ approvalclient.Authenticator = (*approvaltest.Authenticator)(nil)

// TestEndToEndOverMCP: enroll, approve, replay (rejected), over go-sdk
// in-memory transports.
func TestEndToEndOverMCP(t *testing.T) {
	ctx := context.Background()
	ts := newTestServer(t, true)
	auth := approvaltest.New(origin, nil)
	ac, cs := connect(t, ts, auth)

	if _, ok := cs.InitializeResult().Capabilities.Extensions[approval.CapabilityKey]; !ok {
		t.Fatal("initialize result lacks extensions.verifiedApproval")
	}
	// Before enrolling: no eligible credential, tool not run.
	_, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a.txt"}})
	if !errors.Is(err, approval.ErrNoEligibleCredential) {
		t.Fatalf("call before enrollment: %v", err)
	}

	enr, err := ac.Enroll(ctx, cs)
	if err != nil || !enr.Success || enr.CredentialID == "" {
		t.Fatalf("enroll: %+v %v", enr, err)
	}
	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "deleted a.txt" || ts.deletes.Load() != 1 {
		t.Fatalf("result %q, %d deletes", txt, ts.deletes.Load())
	}
	if p := auth.Prompts(); len(p) != 1 || p[0] != "Delete the file a.txt permanently" {
		t.Fatalf("displayText shown: %q", p)
	}

	// Replay the captured evidence: challenge_consumed, tool not run.
	ts.mu.Lock()
	evidence := ts.lastMeta[approval.MetaKey]
	ts.mu.Unlock()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a.txt"}, Meta: mcp.Meta{approval.MetaKey: evidence}})
	wantRPCReason(t, err, approval.ReasonChallengeConsumed)
	// Replay with other arguments: argument_hash_mismatch is masked by the
	// earlier consumed check, as §4.8 orders it.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "b.txt"}, Meta: mcp.Meta{approval.MetaKey: evidence}})
	wantRPCReason(t, err, approval.ReasonChallengeConsumed)
	// No evidence at all.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a.txt"}})
	wantRPCReason(t, err, approval.ReasonMissingEvidence)
	if ts.deletes.Load() != 1 {
		t.Fatalf("%d deletes, want 1", ts.deletes.Load())
	}

	// An ungated tool needs no ceremony.
	if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"path": "x"}}); err != nil {
		t.Fatal(err)
	}
	if len(auth.Prompts()) != 1 {
		t.Fatal("ungated tool asked for approval")
	}
}

func TestToolListingCarriesAnnotation(t *testing.T) {
	ts := newTestServer(t, true)
	_, cs := connect(t, ts, approvaltest.New(origin, nil))
	found := false
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		m, ok := approvalmcp.ToolMeta(tool)
		if tool.Name == "delete_file" {
			found = ok && m.Required == "verified" && m.AuthenticatorClass == approval.ClassCrossPlatform
		} else if ok {
			t.Fatalf("%s is annotated", tool.Name)
		}
	}
	if !found {
		t.Fatal("delete_file listed without the annotation")
	}
}

func TestMethodsUnknownWithoutApproval(t *testing.T) {
	ts := newTestServer(t, false)
	ac, cs := connect(t, ts, approvaltest.New(origin, nil))
	_, err := ac.Enroll(context.Background(), cs)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("approval/enroll/begin without approval: %v", err)
	}
}

func wantRPCReason(t *testing.T, err error, r approval.Reason) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32001 {
		t.Fatalf("got %v, want a -32001 error", err)
	}
	var d struct{ Reason string }
	if json.Unmarshal(we.Data, &d) != nil || d.Reason != string(r) {
		t.Fatalf("data %s, want reason %s", we.Data, r)
	}
	if we.Message != approvalmcp.Message(r) {
		t.Fatalf("message %q", we.Message)
	}
	if !errors.Is(approvalclient.Wrap(err), &approval.Error{Reason: r}) {
		t.Fatalf("Wrap does not give reason %s", r)
	}
}
