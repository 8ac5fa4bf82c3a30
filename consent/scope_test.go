package consent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// TestAskScope: the channel sees the offered scopes beside the ACP
// request; its choice comes back in Answer.Scope; no choice is "once"; a
// scope that was not offered fails the request (the call is denied).
func TestAskScope(t *testing.T) {
	offered := []consent.ScopeOption{{ID: "15m-3", Title: "for 15m0s, up to 3 calls"}}
	for _, tc := range []struct {
		choice string
		offer  []consent.ScopeOption
		want   string // "" means the request fails
	}{
		{"15m-3", offered, "15m-3"},
		{"", offered, consent.ScopeOnce},
		{"once", offered, consent.ScopeOnce},
		{"", nil, consent.ScopeOnce},
		{"forever", offered, ""},
		{"15m-3", nil, ""},
		{"15M-3", offered, ""},
	} {
		var seen []consent.ScopeOption
		f := newAsker(t, funcChannel(func(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
			seen = consent.OfferedScopes(ctx)
			return consent.Reply{Decision: consent.Approved, Approver: "alice", Scope: tc.choice}, nil
		}), nil)
		r := askReq
		r.Scopes = tc.offer
		ans, err := f.Asker.Ask(context.Background(), r)
		if len(seen) != len(tc.offer) {
			t.Errorf("%q: the channel saw scopes %v, want %v", tc.choice, seen, tc.offer)
		}
		if tc.want == "" {
			if err == nil || !errors.Is(err, consent.ErrChannel) || ans.Approved() {
				t.Errorf("%q offered %v: %+v, %v; want a failed request", tc.choice, tc.offer, ans, err)
			}
			continue
		}
		if err != nil || !ans.Approved() || ans.Scope != tc.want {
			t.Errorf("%q: scope %q, %v; want approved with %q", tc.choice, ans.Scope, err, tc.want)
		}
	}
}
