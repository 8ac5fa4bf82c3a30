package consent_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// approveAll is a stand-in for a human who approves everything.
type approveAll struct{}

func (approveAll) Name() string { return "example" }
func (approveAll) Ask(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
	return consent.Reply{Decision: consent.Approved, Approver: "alice"}, nil
}

func Example() {
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, _ := consent.NewSigner(priv)
	nonces, _ := consent.NewMemoryNonceStore(nil)
	events := func(_ context.Context, e consent.Event) error {
		fmt.Printf("event: %s tool=%s decision=%q\n", e.Type, e.Tool, e.Decision)
		return nil
	}
	asker, _ := consent.NewAsker(approveAll{}, signer, nonces, &consent.AskerOptions{OnEvent: events})

	ans, err := asker.Ask(context.Background(), consent.Request{
		Tool:  "send_email",
		Args:  map[string]any{"to": "bob@example.com", "amount": json.Number("10")},
		Agent: consent.Agent{ID: "agent-1"},
	})
	fmt.Println(ans.Approved(), ans.Outcome, err)
	fmt.Println(ans.Response.Decision, ans.Response.Proof.Algorithm)
	// Output:
	// event: consent_requested tool=send_email decision=""
	// event: consent_approved tool=send_email decision="approved"
	// true approved <nil>
	// approved Ed25519
}
