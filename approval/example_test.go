package approval_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

func ExampleActionHash() {
	h, err := approval.ActionHash("delete_resource", []byte(`{ "resourceId": "abc123" }`), "https://example.com/mcp")
	if err != nil {
		panic(err)
	}
	fmt.Println(hex.EncodeToString(h[:]))
	// Output: ac6d6eeaccf73644435269aaec565637351556061894ea90fc276fd3cebc576d
}

// Example runs the whole ceremony in process: enroll a passkey, approve one
// call, and see the replay refused.
func Example() {
	ctx := context.Background()
	gate, err := approval.New(approval.Config{
		ServerID: "https://mcp.acme.dev/mcp", RPID: "acme.dev", Origins: []string{"https://acme.dev"},
	}, nil)
	if err != nil {
		panic(err)
	}
	_ = gate.Require("delete_file", approval.ToolPolicy{
		Describe: func(_ string, args json.RawMessage) (string, error) {
			// Decode exactly as the tool's handler will (not with encoding/json).
			var a struct {
				Path string `json:"path"`
			}
			if err := approval.DecodeArguments(args, &a); err != nil {
				return "", err
			}
			return "Delete " + a.Path + " permanently", nil
		},
	})
	user := approval.NewUser("agent-42")
	passkey := approvaltest.New("https://acme.dev", nil) // stands in for the user's authenticator

	begin, _ := gate.BeginEnrollment(ctx, user)
	reg, _ := passkey.Create(ctx, begin.Options)
	if _, err := gate.FinishEnrollment(ctx, user, reg); err != nil {
		panic(err)
	}

	args := json.RawMessage(`{"path":"/srv/data.db"}`)
	ch, _ := gate.CreateChallenge(ctx, user, "delete_file", args)
	fmt.Println(ch.DisplayText)
	assertion, _ := passkey.Get(ctx, ch.DisplayText, ch.RequestOptions)
	evidence, _ := json.Marshal(approval.Evidence{Method: "webauthn", ChallengeID: ch.ChallengeID, Response: assertion})

	call := approval.Call{Tool: "delete_file", Arguments: args, Evidence: evidence}
	if _, err := gate.Verify(ctx, user, call); err == nil {
		fmt.Println("approved: run the tool")
	}
	_, err = gate.Verify(ctx, user, call)
	var ae *approval.Error
	if errors.As(err, &ae) {
		fmt.Println("replay refused:", ae.Reason)
	}
	// Output:
	// Delete /srv/data.db permanently
	// approved: run the tool
	// replay refused: challenge_consumed
}

func ExampleValidateServerID() {
	fmt.Println(approval.ValidateServerID("mcp-default"))
	fmt.Println(approval.ValidateServerID("urn:uuid:9f4e3b0a-1c7d-4b8e-a2f5-6d0c9e7b1a24"))
	// Output:
	// approval: invalid serverId: "mcp-default" is a well-known constant other servers may share; use an issuer URL or a persisted UUID
	// <nil>
}
