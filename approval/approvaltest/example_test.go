package approvaltest_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// Example tests an approval-gated tool in plain go test: the software
// authenticator enrolls and approves like a user with a security key.
func Example() {
	ctx := context.Background()
	gate, _ := approval.New(approval.Config{ServerID: "https://mcp.acme.dev/mcp", RPID: "acme.dev", Origins: []string{"https://acme.dev"}}, nil)
	_ = gate.Require("transfer", approval.ToolPolicy{})
	user := approval.NewUser("agent-7")

	key := approvaltest.New("https://acme.dev", &approvaltest.Options{Attestation: approvaltest.AttestationPacked, Transports: []string{"usb", "nfc"}})
	begin, _ := gate.BeginEnrollment(ctx, user)
	reg, _ := key.Create(ctx, begin.Options)
	_, err := gate.FinishEnrollment(ctx, user, reg)
	fmt.Println("enrolled:", err == nil)

	args := json.RawMessage(`{"amount":"10.00","to":"ACME-1"}`)
	ch, _ := gate.CreateChallenge(ctx, user, "transfer", args)
	resp, _ := key.Get(ctx, ch.DisplayText, ch.RequestOptions)
	ev, _ := json.Marshal(approval.Evidence{Method: "webauthn", ChallengeID: ch.ChallengeID, Response: resp})
	_, err = gate.Verify(ctx, user, approval.Call{Tool: "transfer", Arguments: args, Evidence: ev})
	fmt.Println("approved:", err == nil)
	fmt.Println("user saw:", key.Prompts()[0])
	// Output:
	// enrolled: true
	// approved: true
	// user saw: Allow the tool "transfer" to run with these arguments:
	//   amount: "10.00"
	//   to: "ACME-1"
}
