package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtu, through the guard to a go-sdk client: a tool result's text
// holding a password under a setting's name (password_id), a YAML flow
// sequence naming a credential, a passphrase of words under a password's
// name, a CSV table read after its reading budget was spent, a password
// under pw_type, and keys longer than the rules' longest match reached
// the client.
func TestRedTeamRTU_TextReadingsOnTheWire(t *testing.T) {
	const pw = "Fake-Pa55word!"
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	pad := strings.Repeat("host,db.internal\n", 5000)
	cases := map[string]*mcp.CallToolResult{
		"setting name":  text("db.host=db.internal\npassword_id=" + pw + "\n"),
		"flow sequence": text("env:\n  - [HOST, db.internal]\n  - [DB_PASS, " + pw + "]\n"),
		"passphrase":    text(`{"db": {"host": "db.internal", "password": "correct horse battery Pa55word!"}}`),
		"csv budget":    text(strings.Repeat("name,password\n\"x\n", 4) + pad + "user,password\nadmin,\"Fake,Pa55word!\"\n"),
		"LS breaks":     text("env:\u2028  - name: DB_PASS\u2028    value: " + pw + "\u2028host: db.internal\u2028"),
		"pw_type":       text(`{"db": {"host": "db.internal", "pw_type": "` + pw + `"}}`),
		"long password": text(`{"db": {"host": "db.internal", "password": "` + strings.Repeat("Fake-Pa55word!", 12) + `"}}`),
		"long key":      text("> X-Api-Key: " + strings.Repeat("k3Zp9Qm2Xr7Lw4Pa55word", 30) + "\n> Host: db.internal\n"),
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(got); strings.Contains(string(raw), "Pa55word") || !strings.Contains(string(raw), "[REDACTED:") {
			t.Errorf("%s: the client received the value: %.300s", name, raw)
		}
	}
}
