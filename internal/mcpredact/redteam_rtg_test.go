package mcpredact_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// Red team of the array joining (rtg): the strings of one array were
// joined, but not those of the rows of a table: a file returned as
// [[1, "-----BEGIN ..."], [2, "MIIE..."], ...] (line number and text, as a
// CSV or a grid is parsed) lost only its BEGIN line, and every other line
// of the key reached the client.
func TestRedTeamRTG_KeyAcrossTableRows(t *testing.T) {
	s := scanner(t)
	body := []string{
		"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw",
		"7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc",
	}
	lines := append(append([]string{"-----BEGIN RSA " + "PRIVATE KEY-----"}, body...), "-----END RSA "+"PRIVATE KEY-----")
	var rows, nested, split []any
	for i, l := range lines {
		rows = append(rows, []any{i + 1, l})
		nested = append(nested, []any{[]any{"id_rsa", i + 1}, []any{l}})
	}
	for i := 0; i < len(key); i += 5 {
		split = append(split, []any{i, key[i:min(i+5, len(key))]})
	}
	for name, v := range map[string]any{
		"rows":        map[string]any{"file": "id_rsa", "rows": rows},
		"nested rows": map[string]any{"rows": nested},
		"cells":       map[string]any{"grid": split},
	} {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured"}}, StructuredContent: v}
		out, _, err := mcpredact.Result(s, res, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := wire(t, out)
		for _, b := range append(body, key[5:10]) {
			if strings.Contains(w, b) {
				t.Errorf("%s: %q reached the client: %s", name, b, w)
			}
		}
	}
}

// Near miss: a table without a secret comes back as it was, numbers and
// all.
func TestRedTeamRTG_TableUnchanged(t *testing.T) {
	s := scanner(t)
	v := map[string]any{"rows": []any{[]any{1, "AKIA"}, []any{2, "EXAMPLE is not a key"}, []any{[]any{"ghp_"}, 3.5}}}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "table"}}, StructuredContent: v}
	before := wire(t, res)
	out, f, err := mcpredact.Result(s, res, nil)
	if err != nil || len(f) > 0 || wire(t, out) != before {
		t.Errorf("changed: %v %v %s", err, f, wire(t, out))
	}
}
