package gatehouse

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireMeta is a request's params._meta as go-sdk hands it on after the
// wire (generic JSON values), with the per-request client info of
// protocol 2026-07-28.
func wireMeta(tb testing.TB, meta string) mcp.Meta {
	tb.Helper()
	var m mcp.Meta
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkIdentity is the agent identity of a tools/call that names its
// client per request (protocol 2026-07-28), as every such request pays it.
func BenchmarkIdentity(b *testing.B) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fetch", Meta: wireMeta(b,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.0"},"io.modelcontextprotocol/clientCapabilities":{}}`)}}
	if got := identity(req, "default"); got != "client:claude-code" {
		b.Fatalf("identity %q", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		identity(req, "default")
	}
}

// clientInfoCases are values of params._meta's client info: plain ones
// (the fast read), and every shape go-sdk's decoding could treat otherwise
// (wrong types, null, icons, case variants, duplicates, members the type
// does not have).
var clientInfoCases = []string{
	`{"name":"claude-code","version":"2.1.0"}`,
	`{"name":"a","title":"Ä title","description":"d","version":"1","websiteUrl":"https://x.test"}`,
	`{"version":"1"}`,
	`{}`,
	`{"name":""}`,
	`{"name":5,"version":"1"}`,
	`{"name":null,"version":"1"}`,
	`{"name":{"first":"a"}}`,
	`{"name":["a"]}`,
	`{"name":true}`,
	`{"name":"a","version":7}`,
	`{"name":"a","websiteUrl":false}`,
	`{"name":"a","title":null}`,
	`{"Name":"upper"}`,
	`{"name":"lower","Name":"upper"}`,
	`{"NAME":"upper","version":"1"}`,
	`{"name":"first","name":"second"}`,
	`{"name":"a","icons":[{"src":"https://x.test/i.png"}]}`,
	`{"name":"a","icons":"not a list"}`,
	`{"name":"a","icons":null}`,
	`{"name":"a","extra":{"deep":[1,2,{"x":null}]},"other":5}`,
	`"a string"`,
	`["name","a"]`,
	`null`,
	`42`,
}

// TestMetaClientInfoAgreesWithGoSDK: the fast read of the client info
// gives what go-sdk's ServerRequest.ClientInfo gives for the same request
// (nil or every field), for every case; where it cannot be sure, it
// leaves the answer to go-sdk.
func TestMetaClientInfoAgreesWithGoSDK(t *testing.T) {
	for _, c := range clientInfoCases {
		checkClientInfo(t, c)
	}
	// No meta, no params: no panic, go-sdk's answer.
	for _, req := range []*mcp.CallToolRequest{{}, {Params: &mcp.CallToolParamsRaw{}}} {
		if got, want := clientInfo(req), req.ClientInfo(); (got == nil) != (want == nil) {
			t.Errorf("%+v: %v, go-sdk %v", req, got, want)
		}
	}
}

func checkClientInfo(t *testing.T, value string) {
	t.Helper()
	var m mcp.Meta
	if err := json.Unmarshal([]byte(`{"`+mcp.MetaKeyClientInfo+`":`+value+`}`), &m); err != nil {
		return // not JSON: never reaches a handler
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fetch", Meta: m}}
	got, want := clientInfo(req), req.ClientInfo()
	switch {
	case (got == nil) != (want == nil):
		t.Errorf("%s: %+v, go-sdk %+v", value, got, want)
	case got != nil && (got.Name != want.Name || got.Title != want.Title || got.Description != want.Description ||
		got.Version != want.Version || got.WebsiteURL != want.WebsiteURL):
		t.Errorf("%s: %+v, go-sdk %+v", value, *got, *want)
	}
}

// FuzzMetaClientInfo: the same agreement for any client info value.
func FuzzMetaClientInfo(f *testing.F) {
	for _, c := range clientInfoCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, value string) {
		checkClientInfo(t, value)
	})
}
