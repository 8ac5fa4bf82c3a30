package gatehouse

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/gatehouse-dev/gatehouse/normalize"
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
	// Wire spellings go-sdk's decoder (segmentio) must read as we do.
	"{\"name\":\"a\xffb\"}",
	"{\"name\":\"a\xed\xa0\x80b\",\"version\":\"\xc0\xaf\"}",
	`{"name":"a\ud800b"}`,
	`{"name":"\ud83d\ude00"}`,
	`{"n\u0061me":"escaped key","version":"1"}`,
	`{"name":"a\u0000b","title":"<&>\u2028"}`,
	`{"name":"a","Version":"1","version":"2","vErsion":"3"}`,
	`{"name":"k","ſ":1,"nam\u212a":"kelvin"}`,
	`{"name":"a","extra":123456789012345678901234567890,"e":-0,"f":1e-400}`,
	`{"name":"a","extra":1e400}`,
	`{"name":"a","extra":` + strings.Repeat("[", 990) + strings.Repeat("]", 990) + `}`,
	`{"name":"a","extra":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`,
	`{"name":"a","icons":[]}`,
	`{"name":"a","icons":[{"src":5}]}`,
	`{"name":"a","icons":{}}`,
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
	// As go-sdk decodes the wire: segmentio, case-sensitive.
	var p *mcp.CallToolParamsRaw
	d := segjson.NewDecoder(strings.NewReader(`{"name":"fetch","_meta":{"` + mcp.MetaKeyClientInfo + `":` + value + `}}`))
	d.DontMatchCaseInsensitiveStructFields()
	if err := d.Decode(&p); err != nil || p == nil {
		return // not JSON: never reaches a handler
	}
	compareClientInfo(t, value, &mcp.CallToolRequest{Params: p})
}

// compareClientInfo: clientInfo and the identity give for req what go-sdk's
// ClientInfo gives (and the identity before the fast read gave).
func compareClientInfo(t *testing.T, label string, req *mcp.CallToolRequest) {
	t.Helper()
	got, want := clientInfo(req), req.ClientInfo()
	if id, sdk := identity(req, "default"), sdkIdentity(req); id != sdk {
		t.Errorf("%s: identity %q, go-sdk's %q", label, id, sdk)
	}
	switch {
	case (got == nil) != (want == nil):
		t.Errorf("%s: %+v, go-sdk %+v", label, got, want)
	case got != nil && (got.Name != want.Name || got.Title != want.Title || got.Description != want.Description ||
		got.Version != want.Version || got.WebsiteURL != want.WebsiteURL):
		t.Errorf("%s: %+v, go-sdk %+v", label, *got, *want)
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

// sdkIdentity is the identity as it was before the fast read: from go-sdk's
// ClientInfo (requests here carry no token).
func sdkIdentity(req *mcp.CallToolRequest) string {
	if ci := req.ClientInfo(); ci != nil {
		if n := normalize.Name(ci.Name); n != "" {
			return "client:" + bound(n)
		}
	}
	return "default"
}

// TestMetaClientInfoInProcessValues: _meta values no wire gives but an
// in-process caller (a middleware before the guard, a test) may set. go-sdk
// re-encodes them: bad UTF-8 becomes U+FFFD; NaN, infinities and funcs fail
// the encoding and nesting past 1000 fails the decoding, and go-sdk then
// takes initialize's info. The fast read must agree, as must its near
// misses (plain scalars it may still read itself).
func TestMetaClientInfoInProcessValues(t *testing.T) {
	deep := any("x")
	for range 1001 {
		deep = []any{deep}
	}
	for label, ci := range map[string]map[string]any{
		"bad utf-8 name":    {"name": "a\xffb"},
		"bad utf-8 latin-1": {"name": "bot\xe9", "version": "1"},
		"bad utf-8 title":   {"name": "a", "title": "t\xff"},
		"NaN member":        {"name": "a", "extra": math.NaN()},
		"Inf member":        {"name": "a", "extra": math.Inf(-1)},
		"func member":       {"name": "a", "extra": func() {}},
		"chan member":       {"name": "a", "extra": make(chan int)},
		"deep member":       {"name": "a", "extra": deep},
		"typed member":      {"name": "a", "extra": struct{ X float64 }{math.NaN()}},
		"near: scalars":     {"name": "a", "extra": 1.5, "b": true, "n": nil, "s": "\xff"},
		"near: utf-8 name":  {"name": "bot\u00e9", "version": "1"},
	} {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Name: "fetch", Meta: mcp.Meta{mcp.MetaKeyClientInfo: ci}}}
		compareClientInfo(t, label, req)
		if _, fast := metaClientInfo(req); fast != strings.HasPrefix(label, "near:") {
			t.Errorf("%s: fast read %v", label, fast)
		}
	}
}

// TestMetaClientInfoOnlyWhereGoSDKReadsIt: a request to a client (the
// guard's middleware added to an mcp.Client, where the server is the
// caller) has no ClientInfo in go-sdk, so a client info a server puts in
// its _meta names nobody: the default agent, as before the fast read; not
// a name of the server's choosing per request (a fresh rate-limit and
// budget key each time). The near miss, the same _meta on a request to a
// server, does name the client.
func TestMetaClientInfoOnlyWhereGoSDKReadsIt(t *testing.T) {
	meta := func() mcp.Meta {
		return mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": "chosen-by-server", "version": "1"}}
	}
	for _, req := range []mcp.Request{
		&mcp.ClientRequest[*mcp.CreateMessageParams]{Params: &mcp.CreateMessageParams{Meta: meta()}},
		&mcp.ClientRequest[*mcp.ElicitParams]{Params: &mcp.ElicitParams{Meta: meta()}},
		&mcp.ClientRequest[*mcp.ListRootsParams]{Params: &mcp.ListRootsParams{Meta: meta()}},
		&mcp.ClientRequest[*mcp.CreateMessageParams]{},
		&mcp.ClientRequest[*mcp.CreateMessageParams]{Params: &mcp.CreateMessageParams{}},
	} {
		if got := identity(req, "default"); got != "default" {
			t.Errorf("%T: identity %q", req, got)
		}
	}
	if got := identity(&mcp.ServerRequest[*mcp.ListToolsParams]{Params: &mcp.ListToolsParams{Meta: meta()}}, "default"); got != "client:chosen-by-server" {
		t.Errorf("near miss, request to a server: identity %q", got)
	}
}
