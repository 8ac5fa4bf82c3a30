package gatehouse_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// postRaw posts body, as bytes, to a stateless streamable HTTP handler
// serving a fixture's guarded server (protocol 2026-07-28, no handshake).
func postRaw(t *testing.T, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%.80s: %d %s", body, resp.StatusCode, b)
	}
	return string(b)
}

// boundName is the documented bound on a client name in an identity:
// printable ASCII up to 128 bytes as is, else "sha256:" and 32 hex digits.
func boundName(n string) string {
	for i := 0; i < len(n); i++ {
		if n[i] < 0x20 || n[i] > 0x7e || len(n) > 128 || strings.HasPrefix(n, "sha256:") {
			sum := sha256.Sum256([]byte(n))
			return "sha256:" + hex.EncodeToString(sum[:16])
		}
	}
	return n
}

// TestWireClientInfoSpellingsAgent: the audited agent of a 2026-07-28
// tools/call for client info spellings only the wire can carry (bytes the
// JSON encoder would not write: bad UTF-8, duplicate and escaped keys, lone
// surrogates, deep members) is go-sdk's reading of the same request, as
// the tool handler sees it through ServerRequest.ClientInfo.
func TestWireClientInfoSpellingsAgent(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	var sdkNames []string
	s := mcp.NewServer(&mcp.Implementation{Name: "wire", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ci := req.ClientInfo(); ci != nil {
			sdkNames = append(sdkNames, ci.Name)
		} else {
			sdkNames = append(sdkNames, "<nil>")
		}
		return &mcp.CallToolResult{}, nil
	})
	f.g.Install(s)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	cases := []string{
		`{"name":"plain","version":"1"}`,
		`{"name":"first","name":"second","version":"1"}`,
		`{"n\u0061me":"escaped","version":"1"}`,
		`{"Name":"upper","version":"1"}`,
		"{\"name\":\"bad\xffutf8\",\"version\":\"1\"}",
		`{"name":"lone\ud800","version":"1"}`,
		`{"name":"surr\ud83d\ude00","version":"1"}`,
		`{"name":"deep","version":"1","x":` + strings.Repeat(`[`, 900) + strings.Repeat(`]`, 900) + `}`,
		`{"name":"nums","version":"1","x":123456789012345678901234567890,"y":-0,"z":1e-400}`,
		`{"name":"icons","version":"1","icons":[{"src":"https://x.test/i.png"}]}`,
	}
	for i, ci := range cases {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":%s,"io.modelcontextprotocol/clientCapabilities":{}}}}`, i, ci)
		postRaw(t, srv.URL, body)
	}
	events := f.toolEvents(t)
	if len(events) != len(sdkNames) {
		t.Fatalf("%d audited calls, %d handled", len(events), len(sdkNames))
	}
	for i, e := range events {
		want := "anonymous"
		if n := normalize.Name(sdkNames[i]); n != "" {
			want = "client:" + boundName(n)
		}
		if e["agent"] != want {
			t.Errorf("%d: agent %v, go-sdk's client name %q (%s)", i, e["agent"], sdkNames[i], want)
		}
	}
}
