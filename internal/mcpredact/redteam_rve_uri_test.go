package mcpredact_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// Red team rve: a URL was read decoded only when found by its "://" or
// a scheme at the string's start, and only up to a quote, a < or a
// backslash. A link in prose, a path alone, a URL without a scheme or
// with a quote written in it, a %uXXXX escape, and a URL split across
// content items sent the secret percent-encoded.
func TestRedTeamRVE_EncodedURLSpellings(t *testing.T) {
	s := rvcDefaultScanner(t)
	pw := url.QueryEscape("password=Hunter2Sup3rS3cret")
	for _, text := range []string{
		"see mailto:ops@x.example?body=" + pw + " now",
		"see data:text/plain," + pw + " now",
		"https://x.example/?a='&q=" + pw,
		"https://x.example/?a=\"&q=" + pw,
		"https://x.example/?a=<&q=" + pw,
		"https://x.example/?a=\\&q=" + pw,
		"https://x.example/?a=`&q=" + pw,
		"//x.example/cb?q=" + pw,
		"x.example/cb?q=" + pw,
		"GET /cb?q=" + pw + " HTTP/1.1",
		"https ://x.example/?q=" + pw,
		"javascript:fetch('/x?q=" + pw + "')",
		"x.example/?q=" + url.QueryEscape(rvcPEM),
		"https://x.example/?q=%u0070assword%u003DHunter2Sup3rS3cret",
		// An assignment inside one parameter's value.
		"GET /x?a=1&q=password%3Dcorrect%20horse%20battery%20staple&b=2 HTTP/1.1",
		"https://x.example/cb;q=db_password%3Dcorrect+unter2Sup3r+battery+staple#x",
	} {
		got, n := rvcURLResult(t, s, text)
		if strings.Contains(got, "unter2Sup3r") || strings.Contains(got, "LfVLPHCoz") || n == 0 {
			t.Errorf("leaked (%d findings): %q", n, got)
		}
	}
	for _, parts := range [][]string{
		{"https://x.example/?q=password%3D", "Hunter2Sup3rS3cret"},
		{"https://x.example/?q=pass", "word%3DHunter2Sup3rS3cret"},
		{"see x.example/?q=" + url.QueryEscape(rvcPEM)[:120], url.QueryEscape(rvcPEM)[120:]},
	} {
		res := &mcp.CallToolResult{}
		for _, p := range parts {
			res.Content = append(res.Content, &mcp.TextContent{Text: p})
		}
		out, _, err := mcpredact.Result(s, res, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := wire(t, out); strings.Contains(w, "unter2Sup3r") || strings.Contains(w, "LfVLPHCoz") {
			t.Errorf("split across items: leaked: %s", w)
		}
	}
}

// Past the ranges a finding keeps (dlp.MaxRanges), the texts of a content
// array read decoded and joined are all withheld: the share of a split
// secret may be in a text without a %.
func TestRedTeamRVE_EncodedSplitPastMaxRanges(t *testing.T) {
	s := rvcDefaultScanner(t)
	first := "x.example/?q=" + strings.Repeat("password%3DHunter2Sup3rS3cret%0A", dlp.MaxRanges+1) + "password%3D"
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: first}, &mcp.TextContent{Text: "Zebra9Quokka7Lynx"}}}
	out, _, err := mcpredact.Result(s, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := wire(t, out); strings.Contains(w, "Zebra9") || strings.Contains(w, "Hunter2") {
		t.Errorf("leaked: %.200s", w)
	}
}

// Near misses: percent signs and encoded runs that hold no secret go out
// byte for byte, in prose, paths and split items.
func TestRedTeamRVE_EncodedNearMisses(t *testing.T) {
	s := rvcDefaultScanner(t)
	for _, text := range []string{
		"GET /search?q=hello%20world&page=2 HTTP/1.1",
		"x.example/a%2Fb?next=%2Fsettings%2Fpassword&error=password%20too%20short",
		"saved to C:\\Users\\Me\\My%20Documents\\report.pdf (100%) done",
		"progress: 50%, 75%AB done; %u not an escape; %uZZZZ",
		"printf(\"%d%%\\n\", x); fmt.Sprintf(\"%02x\", b)",
		"see mailto:ops@x.example?subject=Password%20reset%20help",
	} {
		if got, n := rvcURLResult(t, s, text); got != text || n != 0 {
			t.Errorf("changed (%d findings):\n%q\nto\n%q", n, text, got)
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "https://x.example/?q=pass"},
		&mcp.TextContent{Text: "word%20reset is done"},
	}}
	if out, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 || out != any(res) {
		t.Errorf("split items with no secret changed (%v, %v)", f, err)
	}
}

// A handler's JSON-RPC error data holds the same URL: read as a result's.
func TestRedTeamRVE_EncodedParameterInErrorData(t *testing.T) {
	s := rvcDefaultScanner(t)
	e := &jsonrpc.Error{Code: -32000, Message: "boom", Data: json.RawMessage(`["GET /x?q=password%3Dcorrect%20horse%20battery%20staple"]`)}
	out, f := mcpredact.Error(s, e)
	b, err := json.Marshal(out)
	if err != nil || len(f) == 0 || strings.Contains(string(b), "horse") {
		t.Errorf("leaked (%v, %v): %s", f, err, b)
	}
	e = &jsonrpc.Error{Code: -32000, Message: "boom", Data: json.RawMessage(`["GET /x?q=hello%20world&user=jane%20doe&next=%2Fsettings%3Ftab%3Dpassword"]`)}
	if out, f := mcpredact.Error(s, e); out != error(e) || len(f) != 0 {
		t.Errorf("an ordinary parameter changed (%v): %v", f, out)
	}
}
