package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
)

// Red team rvd: what the human is shown must be what runs. go-sdk's typed
// tools fill in the input schema's defaults before the handler runs, and
// the policy already decides on the defaulted arguments (policydefaults.go),
// but the approval prompts showed only the arguments the agent sent: an
// agent that left "to" out of send_mail got the human to approve
// "body: hi" while the mail went to the schema's default recipient list,
// which the prompt never named.

const rvdMailPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: rvd-defaults}
spec:
  tool_rules:
    - tool: send_mail
      action: ask
    - tool: plain_mail
      action: ask
    - tool: nested_mail
      action: ask
`

// rvdMailSchema: "to" defaults to every employee.
const rvdMailSchema = `{"type":"object","properties":{"body":{"type":"string"},"to":{"type":"string","default":"all-staff@corp.example"},"cc":{"type":"string"}}}`

// rvdNestedSchema: an "opts" object left out is filled in with a bcc.
const rvdNestedSchema = `{"type":"object","properties":{"body":{"type":"string"},"to":{"type":"string"},"opts":{"type":"object","properties":{"bcc":{"type":"string","default":"audit@corp.example"}}}}}`

type rvdMail struct {
	Body string `json:"body"`
	To   string `json:"to"`
	CC   string `json:"cc,omitempty"`
}

// rvdMailbox records the recipients the handlers mailed.
type rvdMailbox struct {
	mu   sync.Mutex
	sent []string
}

func (m *rvdMailbox) handler(_ context.Context, _ *mcp.CallToolRequest, a rvdMail) (*mcp.CallToolResult, any, error) {
	m.mu.Lock()
	m.sent = append(m.sent, a.To)
	m.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil, nil
}

func (m *rvdMailbox) last() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sent) == 0 {
		return ""
	}
	return m.sent[len(m.sent)-1]
}

// TestRedTeamRVD_ElicitationPromptShowsSchemaDefaults: AddTool's question
// (elicitation) names every argument the handler receives, the schema's
// defaults included and marked as such. Before the fix the question for
// {"body":"hi"} showed only body, and the handler mailed all-staff.
func TestRedTeamRVD_ElicitationPromptShowsSchemaDefaults(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rvdMailPolicy), nil)
	box := &rvdMailbox{}
	s := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "1"}, nil)
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "send_mail", InputSchema: json.RawMessage(rvdMailSchema)}, box.handler)
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "plain_mail"}, func(ctx context.Context, req *mcp.CallToolRequest, a rvdMail) (*mcp.CallToolResult, any, error) {
		return box.handler(ctx, req, a)
	})
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "nested_mail", InputSchema: json.RawMessage(rvdNestedSchema)}, box.handler)
	g.Install(s)
	var mu sync.Mutex
	var questions []string
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			questions = append(questions, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	}, newProtocol)
	for _, c := range []struct {
		name, tool, args string
		ran              string   // the recipient the handler mailed
		shows, hides     []string // in the question, not in it
	}{
		// The attack: "to" left out.
		{"default recipient", "send_mail", `{"body":"hi"}`, "all-staff@corp.example",
			[]string{`to: "all-staff@corp.example"`, "default", `body: "hi"`}, nil},
		// A default one level down: "opts" left out gets a bcc.
		{"nested default", "nested_mail", `{"body":"hi","to":"bob@corp.example"}`, "bob@corp.example",
			[]string{`opts: {"bcc":"audit@corp.example"}`, `defaults: "opts"`}, nil},
		// Near miss: "to" sent; no default is filled in, none is named.
		{"recipient sent", "send_mail", `{"body":"hi","to":"bob@corp.example"}`, "bob@corp.example",
			[]string{`to: "bob@corp.example"`}, []string{"all-staff", "default"}},
		// Near miss: a tool without defaults asks as before.
		{"no defaults", "plain_mail", `{"body":"hi","to":"carol@corp.example"}`, "carol@corp.example",
			[]string{`to: "carol@corp.example"`}, []string{"default"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			questions = nil
			mu.Unlock()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil || res.IsError {
				t.Fatalf("approved call: %v %+v", err, res)
			}
			if box.last() != c.ran {
				t.Fatalf("mailed %q, want %q", box.last(), c.ran)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(questions) != 1 {
				t.Fatalf("asked %d times", len(questions))
			}
			q := questions[0]
			for _, s := range c.shows {
				if !strings.Contains(q, s) {
					t.Errorf("the question does not show %q:\n%s", s, q)
				}
			}
			for _, s := range c.hides {
				if strings.Contains(q, s) {
					t.Errorf("the question shows %q:\n%s", s, q)
				}
			}
		})
	}
}

// TestRedTeamRVD_ConsentPromptShowsSchemaDefaults: an ACP consent request
// (AskConsent) shows, and its proof binds, the arguments the handler
// receives, defaults included; the human is told which ones the tool
// filled in. Before the fix the consent request held {"body":"hi"} alone.
func TestRedTeamRVD_ConsentPromptShowsSchemaDefaults(t *testing.T) {
	ch := &scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice", Attestation: consent.AttestedHuman}}
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, err := consent.NewAsker(ch, testSigner(t), nonces, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, rvdMailPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: gatehouse.AskConsent(asker, nil)}})
	box := &rvdMailbox{}
	ct := serve(t, g, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "send_mail", InputSchema: json.RawMessage(rvdMailSchema)}, box.handler)
		mcp.AddTool(s, &mcp.Tool{Name: "plain_mail"}, box.handler)
		mcp.AddTool(s, &mcp.Tool{Name: "nested_mail", InputSchema: json.RawMessage(rvdNestedSchema)}, box.handler)
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		name, tool, args string
		ran              string
		params           map[string]any // the consent request's parameters
		shows, hides     []string       // in its Summary
	}{
		{"default recipient", "send_mail", `{"body":"hi"}`, "all-staff@corp.example",
			map[string]any{"body": "hi", "to": "all-staff@corp.example"}, []string{`to: "all-staff@corp.example"`, "default"}, nil},
		{"nested default", "nested_mail", `{"body":"hi","to":"bob@corp.example"}`, "bob@corp.example",
			map[string]any{"body": "hi", "opts": map[string]any{"bcc": "audit@corp.example"}, "to": "bob@corp.example"}, []string{`opts: {"bcc":"audit@corp.example"}`, `defaults: "opts"`}, nil},
		{"recipient sent", "send_mail", `{"body":"hi","to":"bob@corp.example"}`, "bob@corp.example",
			map[string]any{"body": "hi", "to": "bob@corp.example"}, []string{`to: "bob@corp.example"`}, []string{"all-staff", "default"}},
		{"no defaults", "plain_mail", `{"body":"hi","to":"carol@corp.example"}`, "carol@corp.example",
			map[string]any{"body": "hi", "to": "carol@corp.example"}, []string{`to: "carol@corp.example"`}, []string{"default"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch.mu.Lock()
			ch.seen = nil
			ch.mu.Unlock()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil || res.IsError {
				t.Fatalf("approved call: %v %+v", err, res)
			}
			if box.last() != c.ran {
				t.Fatalf("mailed %q, want %q", box.last(), c.ran)
			}
			ch.mu.Lock()
			defer ch.mu.Unlock()
			if len(ch.seen) != 1 {
				t.Fatalf("asked %d times", len(ch.seen))
			}
			req := ch.seen[0]
			if got, _ := json.Marshal(req.Action.Parameters); string(got) != string(must(json.Marshal(c.params))) {
				t.Errorf("consent parameters %s, want %s", got, must(json.Marshal(c.params)))
			}
			sum := consent.Summary(req)
			for _, s := range c.shows {
				if !strings.Contains(sum, s) {
					t.Errorf("the consent request does not show %q:\n%s", s, sum)
				}
			}
			for _, s := range c.hides {
				if strings.Contains(sum, s) {
					t.Errorf("the consent request shows %q:\n%s", s, sum)
				}
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
