package grant_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/grant"
)

// A human approved deploy {"env":"staging"} and chose "for 15 minutes, up
// to 3 calls": three calls use the grant, the fourth finds none.
func Example() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	st, _ := grant.NewMemoryStore(nil)
	args, _ := grant.CanonicalArgs([]byte(`{"env":"staging"}`))
	scope := grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}
	b := grant.Binding{Principal: "user:alice", Tool: "deploy", Digest: "sha256:..."}
	g, err := grant.New(scope, b, args, nil, grant.AttestedHuman, now)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := st.Create(ctx, g, now); err != nil {
		fmt.Println(err)
		return
	}
	q := grant.Query{Principal: "user:alice", Tool: "deploy", Digest: "sha256:...", Args: args}
	for range 4 {
		u, err := st.Consume(ctx, q, now.Add(time.Minute))
		if errors.Is(err, grant.ErrNoGrant) {
			fmt.Println("no grant: ask the human")
			continue
		}
		fmt.Printf("allowed by the grant (%s), %d uses left\n", scope.Describe(), u.Grant.Left)
	}
	// Output:
	// allowed by the grant (for 15m0s, up to 3 calls, with exactly these arguments), 2 uses left
	// allowed by the grant (for 15m0s, up to 3 calls, with exactly these arguments), 1 uses left
	// allowed by the grant (for 15m0s, up to 3 calls, with exactly these arguments), 0 uses left
	// no grant: ask the human
}
