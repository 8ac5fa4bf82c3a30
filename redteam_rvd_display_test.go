package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
)

// TestRedTeamRVD_PromptShowsWhatRuns: held attacks on what the human is
// shown, as one table. Each value is sent to an AddTool tool whose policy
// asks; the question (the input_required result's message) must hold no
// rune that renders as nothing or moves text (each shows as an escape),
// no line the agent made up, and every argument name; the passkey
// displayText (approval.DefaultDescribe, the same renderer) likewise.
func TestRedTeamRVD_PromptShowsWhatRuns(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rvdElicitPolicy), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	c := dialRaw(t, ct, newProtocol)
	long := strings.Repeat("a", 5000)
	for i, tc := range []struct {
		name  string
		args  string
		shows []string // in the question
	}{
		{"bidi override", `{"file":"report_\u202etxt.exe"}`, []string{`\u202e`}},
		{"bidi isolate", `{"file":"a\u2067b\u2069"}`, []string{`\u2067`, `\u2069`}},
		{"zero-width space", `{"cmd":"rm\u200b -rf /"}`, []string{`\u200b`}},
		{"word joiner and BOM", `{"cmd":"a\u2060b\ufeffc"}`, []string{`\u2060`, `\ufeff`}},
		{"ANSI escape", `{"cmd":"ls\u001b[2K\u001b[1Aok"}`, []string{`\u001b`}},
		{"newline faking a line", `{"body":"hi\n  to: \"boss@corp.example\""}`, []string{`\n`}},
		{"carriage return", `{"body":"safe\rrm -rf /"}`, []string{`\r`}},
		{"line separator", `{"body":"a\u2028to: x"}`, []string{`\u2028`}},
		{"tag characters", `{"note":"ok\udb40\udc41"}`, []string{`\udb40\udc41`}},
		{"variation selector", `{"p":"a\ufe0fb"}`, []string{`\ufe0f`}},
		{"Hangul filler", `{"p":"a\u3164b"}`, []string{`\u3164`}},
		{"soft hyphen", `{"p":"rm\u00ad-rf"}`, []string{`\u00ad`}},
		{"name with a newline", `{"safe\nto":"x"}`, []string{`safe\u000ato`}},
		{"long value hides a later name", `{"body":"` + long + `","to":"attacker@evil.test"}`, []string{`to: "attacker@evil.test"`, "more bytes not shown"}},
		{"long value hides a nested name", `{"email":{"body":"` + long + `","to":"attacker@evil.test"}}`, []string{`to: "attacker@evil.test"`}},
		{"vault reference in a long value's tail", `{"url":"https://x.test/?` + long + `&k={{vault:db}}"}`, []string{"{{vault:db}}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.callTool(fmt.Sprint("q", i), "deploy", json.RawMessage(tc.args))
			r, _ := res["result"].(map[string]any)
			ir, _ := r["inputRequests"].(map[string]any)
			e, _ := ir[gatehouse.ApprovalInputID].(map[string]any)
			p, _ := e["params"].(map[string]any)
			q, _ := p["message"].(string)
			if q == "" {
				if strings.Contains(tc.name, "vault") && rpcErr(res) != nil {
					return // refused rather than shown cut: holds too
				}
				t.Fatalf("no question: %v", res)
			}
			checkShown(t, "question", q, tc.shows)
			text, err := approval.DefaultDescribe("deploy", json.RawMessage(tc.args))
			if err != nil {
				if strings.Contains(tc.name, "vault") {
					return
				}
				t.Fatalf("DefaultDescribe: %v", err)
			}
			checkShown(t, "displayText", text, tc.shows)
		})
	}
}

func checkShown(t *testing.T, what, text string, shows []string) {
	t.Helper()
	for _, s := range shows {
		if !strings.Contains(text, s) {
			t.Errorf("%s does not show %q:\n%s", what, s, text)
		}
	}
	for _, r := range text {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xad {
			t.Errorf("%s holds U+%04X as is:\n%q", what, r, text)
		}
	}
	// Every line is the renderer's: the header, or "  name: value".
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") {
			t.Errorf("%s has a line the renderer did not make: %q", what, l)
		}
	}
}
