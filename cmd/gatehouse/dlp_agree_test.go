package main_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// guardSends is what a client of a server guarded by the policy in file
// (gatehouse.New(p, nil), the README's setup) reads from a tool that
// returns text.
func guardSends(t *testing.T, file, text string) string {
	t.Helper()
	p, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gatehouse.New(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "agree", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "show", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	g.Install(s)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "show", Arguments: map[string]any{}})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("call: %v %+v", err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestRedteamDLPScanShowsWhatTheGuardSends: `dlp scan -policy P` is how a
// user checks what a server guarded by P lets out, and it disagreed with
// the guard: it detected encoded secrets that the guard (detect_encoding
// off, its default) sends in clear, used the patterns of a dlp block the
// policy turns off, and named overlapping redactions by the built-in rule
// where the guard names them by the policy's. Now the text it prints is
// the guard's, byte for byte.
func TestRedteamDLPScanShowsWhatTheGuardSends(t *testing.T) {
	dir := t.TempDir()
	head := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec:\n  allowed_tools: [show]\n"
	policies := map[string]string{
		"nodlp.yaml": head,
		"own.yaml":   head + "  dlp:\n    patterns:\n      - {name: AWS Key, regex: '(AKIA|ASIA)[A-Z0-9]{16}'}\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n",
		"off.yaml":   head + "  dlp:\n    enabled: false\n    patterns:\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n",
		"enc.yaml":   head + "  dlp:\n    detect_encoding: true\n    patterns:\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n",
	}
	inputs := []string{
		"key=" + awsKey + " ticket TICKET-123456\n",
		"x dG9rZW49" + "QUtJQUlPU0ZPRE5ON0VYQU1QTEU=\n", // base64("token=AKIAIOSFODNN7EXAMPLE")
		"tok " + ghTok + " and hex 414b4941494f53464f444e4e374558414d504c45\n",
		"nothing here\n",
	}
	for name, src := range policies {
		pol := write(t, dir, name, src)
		for i, in := range inputs {
			want := guardSends(t, pol, in)
			r := gh(t, dir, in, "dlp", "scan", "-policy", pol)
			if r.out != want {
				t.Errorf("%s, input %d: the guard sends %q, dlp scan shows %q", name, i, want, r.out)
			}
			if code := map[bool]int{true: 1, false: 0}[want != in]; r.code != code && !strings.Contains(r.err, "not redacted") {
				t.Errorf("%s, input %d: exit %d:\n%s", name, i, r.code, r)
			}
		}
	}
}

// TestRedteamDLPScanWarnsOfEncodedSecretsTheGuardSends: an encoded secret
// that the guard sends as it is (detect_encoding off) is reported with
// "redacted":false and a warning; under a policy that decodes, the guard
// redacts it and nothing is said beyond the finding.
func TestRedteamDLPScanWarnsOfEncodedSecretsTheGuardSends(t *testing.T) {
	dir := t.TempDir()
	in := "x dG9rZW49" + "QUtJQUlPU0ZPRE5ON0VYQU1QTEU=\n"
	r := gh(t, dir, in, "dlp", "scan")
	r.want(t, 1, "not redacted by the guard", `"redacted":false`)
	if r.out != in {
		t.Errorf("the text shows a redaction the guard does not make:\n%s", r)
	}
	pol := write(t, dir, "enc.yaml", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec:\n  allowed_tools: [a]\n  dlp:\n    detect_encoding: true\n    patterns:\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n")
	r = gh(t, dir, in, "dlp", "scan", "-policy", pol)
	r.want(t, 1, `"redacted":true`, "[REDACTED:aws-access-key-id]")
	if strings.Contains(r.err, "warning") {
		t.Errorf("a warning for a secret the guard redacts:\n%s", r)
	}
}
