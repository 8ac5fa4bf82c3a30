package gatehouse

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChallengeSlotOnlyForItsRequest: the scope stage hands its denial to
// ScopeChallenges only for the HTTP request the slot was made for (go-sdk
// passes that request's header map on as RequestExtra.Header). A call
// whose handler context carries another request's slot, as a session made
// by one request and serving the next would give it, leaves the slot
// alone: the other request's response is never turned into this call's
// challenge. Near miss: the slot's own request fills it.
func TestChallengeSlotOnlyForItsRequest(t *testing.T) {
	own := http.Header{"Mcp-Name": {"deploy"}}
	deny := &refusal{required: []string{"deploy:write"}, err: errors.New("denied")}
	for _, c := range []struct {
		name   string
		extra  *mcp.RequestExtra
		filled bool
	}{
		{"another request's header", &mcp.RequestExtra{Header: http.Header{"Mcp-Name": {"deploy"}}}, false},
		{"no header (not HTTP)", &mcp.RequestExtra{}, false},
		{"no extra", nil, false},
		{"the slot's own request", &mcp.RequestExtra{Header: own}, true},
	} {
		slot := &challengeSlot{header: own}
		call := &call{ctx: context.WithValue(context.Background(), challengeKey{}, slot), req: &mcp.CallToolRequest{Extra: c.extra}}
		offerChallenge(call, deny)
		if required, _ := slot.get(); (required != nil) != c.filled {
			t.Errorf("%s: slot filled %v, want %v", c.name, required != nil, c.filled)
		}
	}
}
