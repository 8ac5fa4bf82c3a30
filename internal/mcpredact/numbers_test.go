package mcpredact_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// TestRedactionKeepsNumbers: redacting one string of a result leaves every
// number of its structured content and _meta as the handler wrote it. The
// redacted copy used to be decoded through go-sdk's types, whose `any`
// fields hold numbers as float64: 9007199254740993 went out as
// 9007199254740992, 1e400 failed, and 0.1000000000000000055511151231257827
// lost its digits (red team of issue 15: redaction changed data it did not
// redact).
func TestRedactionKeepsNumbers(t *testing.T) {
	s := scanner(t)
	numbers := []string{"9007199254740993", "-9223372036854775809", "123456789012345678901234567890", "0.1000000000000000055511151231257827", "1e400", "1.5e-400", "0", "-0", "42"}
	for _, n := range numbers {
		res := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "note " + key}},
			StructuredContent: map[string]any{"id": json.Number(n), "note": "key " + key, "list": []any{json.Number(n)}},
			Meta:              mcp.Meta{"x.example/id": json.Number(n), "x.example/note": key},
		}
		out, f, err := mcpredact.Result(s, res, nil)
		if err != nil || len(f) == 0 {
			t.Fatalf("%s: %v %v", n, f, err)
		}
		w := wire(t, out)
		if strings.Contains(w, key) {
			t.Fatalf("%s: the key went out: %s", n, w)
		}
		for _, want := range []string{`"id":` + n + `,`, `"list":[` + n + `]`, `"x.example/id":` + n + `,`} {
			if !strings.Contains(w, want) {
				t.Errorf("%s: %s is not in the redacted result %s", n, want, w)
			}
		}
	}
}

// TestRedactionRefusesToChangeANestedNumber: a number float64 cannot hold,
// nested where the copy keeps numbers as float64 (a content item's _meta, a
// listed tool's schema), makes a redacted result unscannable (the caller
// withholds it) rather than sent with another number; one float64 holds
// goes out as written.
func TestRedactionRefusesToChangeANestedNumber(t *testing.T) {
	s := scanner(t)
	for n, ok := range map[string]bool{"9007199254740993": false, "1e400": false, "9007199254740992": true, "0.5": true, "12": true} {
		results := []mcp.Result{
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "note " + key, Meta: mcp.Meta{"n": json.Number(n)}}}},
			&mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "t", Description: "uses " + key, InputSchema: map[string]any{"type": "object", "maximum": json.Number(n)}}}},
		}
		for _, r := range results {
			out, _, err := mcpredact.Result(s, r, nil)
			switch {
			case ok && err != nil:
				t.Errorf("%s in %T: %v", n, r, err)
			case ok && !strings.Contains(wire(t, out), ":"+n+"}") && !strings.Contains(wire(t, out), ":"+n+","):
				t.Errorf("%s in %T: sent %s", n, r, wire(t, out))
			case !ok && (!errors.Is(err, mcpredact.ErrUnscannable) || !errors.Is(err, mcpredact.ErrInexactNumber)):
				t.Errorf("%s in %T: %v, want ErrUnscannable (sent %v)", n, r, err, out)
			}
		}
	}
}
