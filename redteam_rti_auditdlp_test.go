package gatehouse_test

import (
	"bytes"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

const cardPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  dlp:
    patterns:
      - {name: Card, regex: "\\b4[0-9]{15}\\b"}
`

const card = "4111111111111111"

// auditCall makes one tools/call of echo with args (raw JSON) under
// cardPolicy and returns the audit log.
func auditCall(t *testing.T, args string) []byte {
	t.Helper()
	var log syncBuffer
	w, err := audit.New(&log, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, cardPolicy), &gatehouse.Options{Audit: w})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	textTool(s, "echo", func(map[string]any) string { return "ok" }, nil)
	g.Install(s)
	send, read := byteStream(t, s)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`)
	read()
	w.Close()
	if n := len(toolCallEvents(t, log.Bytes())); n != 1 {
		t.Fatalf("%s: %d tools/call events", args, n)
	}
	return log.Bytes()
}

// The log writes a number a double holds in its RFC 8785 form, and DLP
// scanned the arguments as the client wrote them: a card number sent as
// 4.111111111111111e15 (or 4111111111111111.0, 41111111111111110e-1, ...)
// matched no rule as written, and the log then held 4111111111111111 in
// clear. The arguments are now scanned in the form the log writes.
func TestRedTeamRTI_NumberSpellingsOfASecretRedactedInLog(t *testing.T) {
	for _, n := range []string{
		"4.111111111111111e15", "4111111111111111.0", "41111111111111110e-1", "4111111111111111e0",
		"0.4111111111111111E16", "4111111111111111.000", "4.111111111111111E+15",
	} {
		for _, args := range []string{`{"card":` + n + `}`, `{"x":[1,{"card":` + n + `}]}`, `{"card":` + n + `,"note":"caf\u00e9"}`} {
			log := auditCall(t, args)
			if bytes.Contains(log, []byte(card)) {
				t.Errorf("%s: the card number is in the log:\n%s", args, log)
			}
			if !bytes.Contains(log, []byte("[REDACTED:Card]")) {
				t.Errorf("%s: no redaction in the log:\n%s", args, log)
			}
		}
	}
}

// Near misses: the card as the client wrote it is redacted as before;
// numbers that are no secret in either form are logged in the log's form.
func TestRedTeamRTI_NumbersLoggedInCanonicalForm(t *testing.T) {
	if log := auditCall(t, `{"card":`+card+`}`); bytes.Contains(log, []byte(card)) {
		t.Errorf("plain card number logged:\n%s", log)
	}
	for args, want := range map[string]string{
		`{"t":0.7,"n":1.50}`:            `"args":{"n":1.5,"t":0.7}`,
		`{"id":12345678901234567891.0}`: `"args":{"id":12345678901234567891.0}`,
		`{"n":1E+2,"s":"4.1e15"}`:       `"args":{"n":100,"s":"4.1e15"}`,
		`{"m":411111111111111}`:         `"args":{"m":411111111111111}`,
	} {
		if log := auditCall(t, args); !bytes.Contains(log, []byte(want)) {
			t.Errorf("%s: want %s in the log:\n%s", args, want, log)
		}
	}
}
