package mcpredact_test

import (
	"encoding/json"
	"errors"
	"fmt"
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
	numbered := map[string]any{}
	for i := range 8 {
		numbered[fmt.Sprint(i+1)] = "# config line"
	}
	for i, l := range lines {
		numbered[fmt.Sprint(i+9)] = l // "10" sorts before "9" as a name
	}
	for i := 0; i < len(key); i += 5 {
		split = append(split, []any{i, key[i:min(i+5, len(key))]})
	}
	for name, v := range map[string]any{
		"rows":        map[string]any{"file": "id_rsa", "rows": rows},
		"nested rows": map[string]any{"rows": nested},
		"cells":       map[string]any{"grid": split},
		"numbered":    map[string]any{"lines": numbered},
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

// Red team of the kept numbers (rtg): the redacted copy was refused when a
// nested number came back written another way, though its value was the
// same: a listed tool's schema written by hand ("maximum": 1.0, "minimum":
// 0.0, 1e3) made every tools/list with one redacted description withheld,
// so the client saw no tools at all.
func TestRedTeamRTG_SameNumberOtherSpelling(t *testing.T) {
	s := scanner(t)
	for _, n := range []string{"1.0", "0.0", "-0.0", "1e3", "1E3", "0.10", "2.50e-1", "12.5E+1"} {
		schema := json.RawMessage(`{"type":"object","properties":{"r":{"type":"number","maximum":` + n + `}}}`)
		for _, r := range []mcp.Result{
			&mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "t", Description: "uses " + key, InputSchema: schema}}},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "note " + key, Meta: mcp.Meta{"schema": schema}}}},
		} {
			out, _, err := mcpredact.Result(s, r, nil)
			if err != nil {
				t.Errorf("%s in %T: %v", n, r, err)
				continue
			}
			if w := wire(t, out); strings.Contains(w, key) {
				t.Errorf("%s in %T: the key went out: %s", n, r, w)
			}
		}
	}
}

// Near miss: a nested number whose value float64 cannot hold is still
// refused, however it is written.
func TestRedTeamRTG_OtherNumberStillRefused(t *testing.T) {
	s := scanner(t)
	for _, n := range []string{"9007199254740993", "123456789012345678901234567890", "1.00000000000000000001", "0.1000000000000000055511151231257827", "1e400"} {
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "note " + key, Meta: mcp.Meta{"n": json.Number(n)}}}}
		if _, _, err := mcpredact.Result(s, r, nil); !errors.Is(err, mcpredact.ErrInexactNumber) {
			t.Errorf("%s: %v, want ErrInexactNumber", n, err)
		}
	}
}

// Red team (rtg): the scan decoded a result into maps, which keep the last
// of two members of one name, and sent the handler's own value when the
// scan found nothing: structured content given as raw JSON with a key in
// the first of two "k" members went out whole (a first-wins reader shows
// it). Such a result is now withheld; names that differ in letter case
// are two members, both scanned.
func TestRedTeamRTG_DuplicateMembers(t *testing.T) {
	s := scanner(t)
	for _, raw := range []string{`{"k":"` + key + `","k":"x"}`, `{"a":{"k":"` + key + `","k":"x"}}`, `[{"k":"` + key + `","K":"x","k":"y"}]`} {
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured"}}, StructuredContent: json.RawMessage(raw)}
		out, _, err := mcpredact.Result(s, r, nil)
		switch {
		case err == nil && strings.Contains(wire(t, out), key):
			t.Errorf("%s: the key went out: %s", raw, wire(t, out))
		case !errors.Is(err, mcpredact.ErrUnscannable):
			t.Errorf("%s: %v, want ErrUnscannable", raw, err)
		}
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "env"}}, StructuredContent: json.RawMessage(`{"PATH":"/bin","path":"/usr/bin","k":"` + key + `"}`)}
	out, f, err := mcpredact.Result(s, r, nil)
	if err != nil || len(f) != 1 || strings.Contains(wire(t, out), key) || !strings.Contains(wire(t, out), `"path":"/usr/bin"`) {
		t.Errorf("names differing in case: %v %v %s", err, f, wire(t, out))
	}
}
