package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// TestRedTeamRVD_PasskeyApprovalIsForOneServer: one Guard may serve
// several servers (gatehouse.go), with one Approver. A passkey approval of
// delete_file {"path":"/data"} asked on the staging server must not run
// delete_file {"path":"/data"} on the production server, whose tool has
// the very same definition. The challenge bound the tool's definition
// digest, which names no server (the elicitation state and grants bind the
// server too); before the fix the evidence ran on production. Near miss:
// the approval runs where it was asked, once.
func TestRedTeamRVD_PasskeyApprovalIsForOneServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pinning bool
		prod    string // the second server's name
	}{
		{"pinning", true, "files-prod"},
		{"no pinning", false, "files-prod"},
		// Documented leftover: servers that give themselves the same name
		// and version are one server to the Guard (as to the elicitation
		// state and grants): that is how replicas, and a getServer that
		// builds a server per session, share approvals. The Guard cannot
		// tell them from tenants; name each tenant's server apart.
		{"same name and version", true, "files-staging"},
	} {
		pinning := tc.pinning
		t.Run(tc.name, func(t *testing.T) {
			gate, err := approval.New(approval.Config{ServerID: "urn:uuid:rvd-servers", RPID: "gatehouse.test", Origins: []string{approvalOrigin}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			passkeys, err := approvalmcp.New(gate, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: passkeys, ForUnauthenticated: true}}
			if !pinning {
				o.Pins = &gatehouse.PinOptions{Off: true}
			}
			g := mustGuard(t, mustPolicy(t, rvdPasskeyPolicy), o)
			runs := map[string]*atomic.Int32{}
			auth := approvaltest.New(approvalOrigin, nil)
			connect := func(server string) (*approvalclient.Client, *mcp.ClientSession) {
				s := mcp.NewServer(&mcp.Implementation{Name: strings.TrimSuffix(server, "\x00second"), Version: "1"}, nil)
				n := new(atomic.Int32)
				runs[server] = n
				tool := &mcp.Tool{Name: "delete_file"}
				if err := passkeys.Require(tool, approval.ToolPolicy{}); err != nil {
					t.Fatal(err)
				}
				mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
					n.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
				})
				g.Install(s)
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.Connect(context.Background(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ss.Close() })
				client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
				ac, err := approvalclient.New(client, auth, nil)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := client.Connect(context.Background(), ct, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				return ac, cs
			}
			ac, staging := connect("files-staging")
			// The suffix keeps the two servers' run counters apart; the
			// server's name is tc.prod.
			_, prod := connect(tc.prod + "\x00second")
			if _, err := ac.Enroll(context.Background(), staging); err != nil {
				t.Fatal(err)
			}
			const args = `{"path":"/data"}`
			ch, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](context.Background(), staging, approval.MethodChallengeCreate,
				&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: "delete_file", Arguments: json.RawMessage(args)}})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := auth.Get(context.Background(), ch.DisplayText, ch.RequestOptions)
			if err != nil {
				t.Fatal(err)
			}
			call := func(cs *mcp.ClientSession) error {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: json.RawMessage(args),
					Meta: mcp.Meta{approval.MetaKey: evidenceFor(ch, resp)}})
				return approvalclient.Wrap(err)
			}
			err = call(prod)
			if tc.prod == "files-staging" {
				if err != nil || runs[tc.prod+"\x00second"].Load() != 1 {
					t.Fatalf("leftover changed: %v", err)
				}
				return
			}
			if n := runs[tc.prod+"\x00second"].Load(); n != 0 {
				t.Fatalf("ATTACK: the approval asked on files-staging deleted /data on files-prod (%v)", err)
			}
			var ae *approval.Error
			if !errors.As(err, &ae) || ae.Reason != approval.ReasonChallengeWrongTool {
				t.Fatalf("on the other server: %v, want challenge_wrong_tool", err)
			}
			if err := call(staging); err != nil || runs["files-staging"].Load() != 1 {
				t.Fatalf("on the server it was asked on: %v, %d runs", err, runs["files-staging"].Load())
			}
		})
	}
}
