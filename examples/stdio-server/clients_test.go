package main

// What real clients see over a real stdio subprocess, in raw JSON-RPC:
// faults 9 (capabilities the policy denies) and 11 (an ask for a client
// that cannot elicit) of the root-pipeline issue.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newProtocol is the sessionless protocol: no initialize, the client's
// protocol version, identity and capabilities ride in each request's _meta.
const newProtocol = "2026-07-28"

// sessionlessMeta is the _meta of a 2026-07-28 request from a client that
// declares caps.
func sessionlessMeta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    newProtocol,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// request sends a request and returns its answer. Server-to-client
// requests on the way are passed to onRequest, whose result (when not
// nil) is sent back; without onRequest a server request fails the test.
func (c *lineConn) request(id int, method string, params any, onRequest func(map[string]any) any) map[string]any {
	c.t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(line))
	for {
		v, ok := c.next()
		if !ok {
			c.t.Fatalf("%s: the server closed the connection", method)
		}
		m, _ := v.(map[string]any)
		if m["method"] != nil && m["id"] != nil {
			if onRequest == nil {
				c.t.Fatalf("%s: unexpected server request %v", method, m)
			}
			res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": onRequest(m)})
			c.send(string(res))
			continue
		}
		if m["method"] != nil { // a notification
			continue
		}
		if fmt.Sprint(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
}

// initializeWith runs the 2025-06-18 handshake for a client that declares
// caps and returns the initialize result.
func (c *lineConn) initializeWith(caps map[string]any) map[string]any {
	c.t.Helper()
	res := c.request(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": caps,
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}, nil)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// capabilityProbes is one request per optional server capability: the
// method a client calls because the capability is advertised (MCP
// Inspector calls logging/setLevel at once when it sees "logging").
var capabilityProbes = map[string]struct {
	method string
	params map[string]any
}{
	"logging":     {"logging/setLevel", map[string]any{"level": "info"}},
	"prompts":     {"prompts/list", map[string]any{}},
	"resources":   {"resources/list", map[string]any{}},
	"completions": {"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "p"}, "argument": map[string]any{"name": "a", "value": ""}}},
	"tools":       {"tools/list", map[string]any{}},
}

// TestStdioCapabilitiesMatchPolicy (fault 9): with the example's default
// policy, initialize (every protocol version before 2026-07-28) and
// server/discover (2026-07-28)
// advertise only capabilities whose methods the policy lets through and
// the server serves: every advertised capability's method answers without
// "Method not allowed" (or "method not found"), and logging, prompts and
// resources are not advertised at all.
func TestStdioCapabilitiesMatchPolicy(t *testing.T) {
	for _, proto := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", newProtocol} {
		t.Run(proto, func(t *testing.T) {
			c := startRaw(t, "-root", sandbox(t))
			var res map[string]any
			if proto == newProtocol {
				res = c.request(0, "server/discover", map[string]any{"_meta": sessionlessMeta(map[string]any{})}, nil)
			} else {
				res = c.request(0, "initialize", map[string]any{"protocolVersion": proto, "capabilities": map[string]any{},
					"clientInfo": map[string]any{"name": "raw", "version": "1"}}, nil)
				c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			r, _ := res["result"].(map[string]any)
			caps, _ := r["capabilities"].(map[string]any)
			if caps == nil || caps["tools"] == nil {
				t.Fatalf("no tools capability: %v", res)
			}
			for _, denied := range []string{"logging", "prompts", "resources"} {
				if caps[denied] != nil {
					t.Errorf("advertises %q, whose methods the example's policy denies: %v", denied, caps)
				}
			}
			for i, name := range sortedKeys(caps) {
				if name == "experimental" || name == "extensions" {
					continue
				}
				probe, ok := capabilityProbes[name]
				if !ok {
					t.Errorf("capability %q has no probe here: add the method a client calls for it", name)
					continue
				}
				params := probe.params
				if proto == newProtocol {
					params = withMeta(params, sessionlessMeta(map[string]any{}))
				}
				ans := c.request(i+1, probe.method, params, nil)
				// -32006: the policy denies it; -32601: no handler serves it.
				if e, _ := ans["error"].(map[string]any); e != nil && (fmt.Sprint(e["code"]) == "-32006" || fmt.Sprint(e["code"]) == "-32601") {
					t.Errorf("capability %q advertised, but %s answers %v", name, probe.method, e)
				}
			}
		})
	}
}

// TestStdioAskWithoutElicitation (fault 11): delete_file (gatehouse.AddTool,
// action ask) called by a client that declares no elicitation capability
// is refused with AIP's -32004, and data.reason tells the user why (the
// client cannot show approval prompts) instead of go-sdk's code-0 error.
// The file stays. The control: a client that can elicit is asked, and its
// approval deletes the file, so the refusal is the missing capability's.
func TestStdioAskWithoutElicitation(t *testing.T) {
	call := map[string]any{"name": "delete_file", "arguments": map[string]any{"path": "deploy.conf"}}
	// The approval prompt is a form: a client that declares only URL-mode
	// elicitation (MCP 2025-11-25) cannot show it either.
	for _, tc := range []struct {
		proto string
		caps  map[string]any
	}{
		{"2025-06-18", map[string]any{}},
		{newProtocol, map[string]any{}},
		{"2025-11-25", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},
		{newProtocol, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},
	} {
		t.Run(fmt.Sprintf("%s %v", tc.proto, tc.caps), func(t *testing.T) {
			dir := sandbox(t)
			c := startRaw(t, "-root", dir)
			params := call
			if tc.proto == newProtocol {
				params = withMeta(call, sessionlessMeta(tc.caps))
			} else {
				c.request(0, "initialize", map[string]any{"protocolVersion": tc.proto, "capabilities": tc.caps,
					"clientInfo": map[string]any{"name": "raw", "version": "1"}}, nil)
				c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			asked := false
			ans := c.request(1, "tools/call", params, func(m map[string]any) any {
				asked = true
				return map[string]any{"action": "accept", "content": map[string]any{"approve": true}}
			})
			e, _ := ans["error"].(map[string]any)
			data, _ := e["data"].(map[string]any)
			if e == nil || fmt.Sprint(e["code"]) != "-32004" || e["message"] != "User denied" ||
				!strings.Contains(fmt.Sprint(data["reason"]), "client cannot show approval prompts") {
				t.Errorf("answer %v", ans)
			}
			if asked {
				t.Error("the server sent an elicitation request to a client that cannot elicit")
			}
			if _, err := os.Stat(filepath.Join(dir, "deploy.conf")); err != nil {
				t.Errorf("the file is gone: %v", err)
			}
		})
	}
	t.Run("control: a client that can elicit", func(t *testing.T) {
		dir := sandbox(t)
		c := startRaw(t, "-root", dir)
		c.initializeWith(map[string]any{"elicitation": map[string]any{}})
		asked := false
		ans := c.request(1, "tools/call", call, func(m map[string]any) any {
			asked = m["method"] == "elicitation/create"
			return map[string]any{"action": "accept", "content": map[string]any{"approve": true}}
		})
		if !asked || ans["error"] != nil {
			t.Fatalf("asked %v, answer %v", asked, ans)
		}
		if _, err := os.Stat(filepath.Join(dir, "deploy.conf")); !os.IsNotExist(err) {
			t.Errorf("approved, yet the file is still there: %v", err)
		}
	})
}

// withMeta returns a copy of params with _meta set.
func withMeta(params, meta map[string]any) map[string]any {
	out := map[string]any{"_meta": meta}
	for k, v := range params {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
