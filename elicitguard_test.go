package gatehouse_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/elicitation"
)

// TestElicitationChannelThroughTheGuard: an ask rule answered by the user of
// the calling session (protocol 2025-06-18), with a verified proof; on
// 2026-07-28 sessions go-sdk cannot elicit from inside a request, so the
// call is denied (fail closed) rather than run unasked.
func TestElicitationChannelThroughTheGuard(t *testing.T) {
	for _, tc := range []struct {
		proto  string
		answer bool
		ran    bool
	}{{"2025-06-18", true, true}, {"2025-06-18", false, false}, {"2026-07-28", true, false}} {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, _ := consent.NewSigner(priv)
		nonces, _ := consent.NewMemoryNonceStore(nil)
		asker, err := consent.NewAsker(elicitation.Channel{}, signer, nonces, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, basePolicy, &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: gatehouse.AskConsent(asker, nil)}})
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if !strings.Contains(req.Params.Message, "deploy") {
					t.Errorf("the user was not shown the tool: %q", req.Params.Message)
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": tc.answer}}, nil
			},
		})
		cs, err := client.Connect(context.Background(), f.ct, &mcp.ClientSessionOptions{ProtocolVersion: tc.proto})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
		if ran := f.runs.Load() == 1; ran != tc.ran || (err == nil) != tc.ran {
			t.Errorf("%s answer=%v: ran=%v err=%v", tc.proto, tc.answer, ran, err)
		}
		cs.Close()
	}
}

// TestElicitationAnswersAreClientAttested (fault 3): the agent's own client
// auto-accepts every elicitation. The approval it gives is recorded as the
// client's word (signed attestation "client", approver "mcp-client:<name>",
// in the consent events), never as a verified human's; an Asker with
// RequireHuman refuses it and the call does not run.
func TestElicitationAnswersAreClientAttested(t *testing.T) {
	for _, requireHuman := range []bool{false, true} {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, _ := consent.NewSigner(priv)
		nonces, _ := consent.NewMemoryNonceStore(nil)
		var events []consent.Event
		asker, err := consent.NewAsker(elicitation.Channel{}, signer, nonces, &consent.AskerOptions{
			RequireHuman: requireHuman,
			OnEvent:      func(_ context.Context, e consent.Event) error { events = append(events, e); return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, basePolicy, &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: gatehouse.AskConsent(asker, nil)}})
		client := mcp.NewClient(&mcp.Implementation{Name: "Alice", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil // no human asked
			},
		})
		cs, err := client.Connect(context.Background(), f.ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
		cs.Close()
		if ran := f.runs.Load() == 1; ran == requireHuman || (err == nil) == requireHuman {
			t.Fatalf("RequireHuman=%v: ran=%v err=%v", requireHuman, ran, err)
		}
		last := events[len(events)-1]
		if last.Attestation != consent.AttestedClient || last.Approver != "mcp-client:Alice" || strings.Contains(strings.ToLower(last.Approver), "human") {
			t.Fatalf("RequireHuman=%v: event %+v does not say the client answered", requireHuman, last)
		}
	}
}
