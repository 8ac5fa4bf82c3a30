package vault_test

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// approveAll is a stand-in for a human who approves everything.
type approveAll struct{}

func (approveAll) Name() string { return "example" }
func (approveAll) Ask(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
	return consent.Reply{Decision: consent.Approved, Approver: "alice"}, nil
}

func ExampleVault_Inject() {
	_, priv, _ := ed25519.GenerateKey(nil)
	vlt, _ := vault.New(vault.MasterKeyFromSigningKey(priv), nil)
	_ = vlt.Set("github_token", "ghp_example")
	_ = vlt.Bind("github_token", []string{"create_issue"}, nil) // the only tool that may receive it

	signer, _ := consent.NewSigner(priv)
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, _ := consent.NewAsker(approveAll{}, signer, nonces, nil)
	args := map[string]any{"auth": "Bearer " + vault.SecretRef("github_token")}

	// Without an approved consent for this call: nothing.
	_, err := vlt.Inject(context.Background(), nil, "create_issue", args)
	fmt.Println(err)

	ans, _ := asker.Ask(context.Background(), consent.Request{Tool: "create_issue", Args: args})
	injected, _ := vlt.Inject(context.Background(), ans.Grant, "create_issue", ans.Args)
	fmt.Println(injected["auth"])

	// Whatever the tool returns is scrubbed before the agent reads it.
	scrub := vlt.Scrubber(ans.Args)
	fmt.Println(scrub.String("request failed: header Bearer ghp_example rejected"))
	// Output:
	// consent: no approved consent for this call: no grant
	// Bearer ghp_example
	// request failed: header Bearer [REDACTED:vault:github_token] rejected
}
