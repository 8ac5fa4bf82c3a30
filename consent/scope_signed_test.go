package consent_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// Red team of the proof fix (508d354): the proof signed single_use: true
// for every approval, while the scope the human chose ("for 15m0s, up to 3
// calls") made the guard remember it and run later calls unasked; the
// scope was in no signed field, so the record of a standing grant read as
// the record of one call, and a scope could be dropped or swapped with the
// proof still verifying. The chosen scope is signed now, and single_use
// says whether the approval covers one call.
func TestProofSignsTheChosenScope(t *testing.T) {
	offered := []consent.ScopeOption{{ID: "15m-3", Title: "for 15m0s, up to 3 calls"}, {ID: "1h", Title: "for 1h"}}
	verifies := func(req *consent.ConsentRequest, resp *consent.ConsentResponse) bool {
		msg, err := consent.SigningPayload(req, resp)
		if err != nil {
			return false
		}
		pub, _ := hex.DecodeString(resp.Proof.PublicKey)
		sig, _ := hex.DecodeString(resp.Proof.Signature)
		return len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, msg, sig)
	}
	for _, tc := range []struct {
		choice, scope string
		single        bool
	}{
		{"15m-3", "15m-3", false},
		{"", "", true}, // near miss: one call, signed as before
		{"once", "", true},
	} {
		var req *consent.ConsentRequest
		f := newAsker(t, funcChannel(func(_ context.Context, r *consent.ConsentRequest) (consent.Reply, error) {
			req = r
			return consent.Reply{Decision: consent.Approved, Approver: "alice", Scope: tc.choice}, nil
		}), nil)
		r := askReq
		r.Scopes = offered
		ans, err := f.Asker.Ask(context.Background(), r)
		if err != nil || !ans.Approved() {
			t.Fatalf("%q: %v", tc.choice, err)
		}
		c := ans.Response.Conditions
		if c.Scope != tc.scope || c.SingleUse != tc.single || !verifies(req, ans.Response) {
			t.Fatalf("%q: conditions %+v (verifies %v), want scope %q single_use %v", tc.choice, c, verifies(req, ans.Response), tc.scope, tc.single)
		}
		for _, other := range []string{"", "1h", "15m-3"} {
			if other == c.Scope {
				continue
			}
			forged := *ans.Response
			forged.Conditions.Scope, forged.Conditions.SingleUse = other, other == ""
			if verifies(req, &forged) {
				t.Errorf("%q: the proof still verifies with scope %q", tc.choice, other)
			}
		}
	}
}
