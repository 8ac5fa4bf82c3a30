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

func ExampleVault_Inject() {
	_, priv, _ := ed25519.GenerateKey(nil)
	vault, _ := consent.NewVault(consent.MasterKeyFromSigningKey(priv), nil)
	_ = vault.Set("github_token", "ghp_example")
	_ = vault.Bind("github_token", []string{"create_issue"}, nil) // the only tool that may receive it

	signer, _ := consent.NewSigner(priv)
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, _ := consent.NewAsker(approveAll{}, signer, nonces, nil)
	args := map[string]any{"auth": "Bearer " + consent.SecretRef("github_token")}

	// Without an approved consent for this call: nothing.
	_, err := vault.Inject(context.Background(), nil, "create_issue", args)
	fmt.Println(err)

	ans, _ := asker.Ask(context.Background(), consent.Request{Tool: "create_issue", Args: args})
	injected, _ := vault.Inject(context.Background(), ans.Grant, "create_issue", ans.Args)
	fmt.Println(injected["auth"])

	// Whatever the tool returns is scrubbed before the agent reads it.
	scrub := vault.Scrubber(ans.Args)
	fmt.Println(scrub.String("request failed: header Bearer ghp_example rejected"))
	// Output:
	// consent: no approved consent for this call: no grant
	// Bearer ghp_example
	// request failed: header Bearer [REDACTED:vault:github_token] rejected
}
