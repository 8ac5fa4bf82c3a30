package mcpredact_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// Red team rvc: a URL writes a secret's bytes percent-encoded by
// definition, so with the default scanner (detect_encoding off) a password
// assignment or a PEM block a tool put in a link, a resource URI or an
// elicitation URL reached the client: the text rules saw "%3D" and "%0A".
// URLs are read decoded whatever detect_encoding says; the rest of the
// URL, and ordinary URLs, go out as written.

func rvcDefaultScanner(t testing.TB) *dlp.Scanner {
	t.Helper()
	s, err := dlp.New(dlp.Builtin(), nil) // the Guard's default: detect_encoding off
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const rvcPEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc\n-----END RSA " + "PRIVATE KEY-----\n"

// rvcURLText returns the text of res's first content item, and of its
// structured content's "href" when there is one.
func rvcURLResult(t *testing.T, s *dlp.Scanner, text string) (string, int) {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	out, f, err := mcpredact.Result(s, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range f {
		n += x.Count
	}
	return out.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text, n
}

func TestRedTeamRVC_PercentEncodedURLs(t *testing.T) {
	s := rvcDefaultScanner(t)
	everyByte := func(v string) string {
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[v[i]>>4])+string("0123456789abcdef"[v[i]&15])))
		}
		return b.String()
	}
	for _, c := range []struct{ name, text, needle, keep string }{
		{"query-escaped password", "https://x.example/cb?q=" + url.QueryEscape("password=Hunter2Sup3rS3cret") + "&page=2", "Hunter2", "&page=2"},
		{"query-escaped PEM", "https://x.example/cb?key=" + url.QueryEscape(rvcPEM), "LfVLPHCoz", "https://x.example/cb?key="},
		{"path-escaped PEM", "https://x.example/keys/" + url.PathEscape(rvcPEM) + "/raw", "LfVLPHCoz", "/raw"},
		{"lower-case hex", "https://x.example/?c=password%3dHunter2Sup3rS3cret", "Hunter2", "https://x.example/?c="},
		{"every byte of an AWS key", "https://x.example/?k=" + everyByte("AKIA"+"Z7Q3MV2KXH4PLW6N"), "%5A%37%51%33", "https://x.example/?k="},
		{"every byte of a GitHub token", "file:///t/" + everyByte("ghp_"+"FAKE0example1TOKEN2notreal3FAKE0exam"), "%46%41%4B%45", "file:///t/"},
		{"URL in prose", "done, see https://x.example/cb?token=ghp%5F" + "FAKE0example1TOKEN2notreal3FAKE0exam for the log", "FAKE0example1", " for the log"},
		{"data URI", "data:text/plain,password%3DHunter2Sup3rS3cret", "Hunter2", "data:text/plain,"},
		{"mailto body", "mailto:ops@x.example?body=" + url.QueryEscape("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "wJalrXUtnFEMI", "mailto:ops@x.example?body="},
		{"JSON document in a parameter", "https://x.example/?cfg=" + url.QueryEscape(`{"db": {"password": "correct horse battery staple"}}`), "horse", ""},
		{"encoded twice", "https://x.example/?next=" + url.QueryEscape("https://y.example/?p="+url.QueryEscape("password=Hunter2Sup3rS3cret")), "Hunter2", ""},
		{"two URLs", "a https://x.example/?p=" + url.QueryEscape("password=Hunter2Sup3rS3cret") + " b https://y.example/?p=" + url.QueryEscape("password=Zebra9Quokka7Lynx") + " c", "Zebra9", " c"},
	} {
		got, n := rvcURLResult(t, s, c.text)
		if strings.Contains(got, c.needle) || n == 0 {
			t.Errorf("%s: leaked (%d findings): %q", c.name, n, got)
		}
		if !strings.Contains(got, c.keep) || !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s: the URL around the secret was not kept: %q", c.name, got)
		}
	}
	// The same URLs in every field of every message kind go through the
	// walk (structured content, a resource link's URI, notifications).
	u := "https://x.example/cb?q=" + url.QueryEscape(rvcPEM)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: u, Name: "n"}}, StructuredContent: map[string]any{"href": u, "list": []any{u}}}
	out, _, err := mcpredact.Result(s, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := wire(t, out); strings.Contains(w, "LfVLPHCoz") {
		t.Errorf("a URL in a resource link or structured content leaked: %s", w)
	}
	n, f, err := mcpredact.Outgoing(s, "notifications/message", &mcp.ServerRequest[*mcp.LoggingMessageParams]{Params: &mcp.LoggingMessageParams{Level: "info", Data: map[string]any{"url": u}}})
	if err != nil || len(f) == 0 || strings.Contains(wire(t, n.GetParams()), "LfVLPHCoz") {
		t.Errorf("a URL in a log message leaked (%v): %s", err, wire(t, n.GetParams()))
	}
}

// A URL encoded again and again ("%2525...") is decoded maxURLDepth
// times, not once per level: read at every level, 32 KiB of it cost the
// square of its length.
func TestRedTeamRVC_URLEncodedManyTimes(t *testing.T) {
	s := rvcDefaultScanner(t)
	text := "https://x.example/?q=%" + strings.Repeat("25", 16<<10) + "41"
	if got, n := rvcURLResult(t, s, text); got != text || n != 0 {
		t.Errorf("changed (%d findings): %.80q", n, got)
	}
}

// Ordinary URLs and percent signs go out byte for byte.
func TestRedTeamRVC_OrdinaryURLs(t *testing.T) {
	s := rvcDefaultScanner(t)
	for _, text := range []string{
		"https://example.com/search?q=hello%20world&page=2",
		"https://x.example/a%2Fb/c?id=123e4567-e89b-12d3-a456-426614174000",
		"file:///srv/app/My%20Documents/report%20(final).pdf",
		"CPU: 50% done, 3/6 steps; see https://ci.example/build/4f9c2e1d",
		"https://github.com/org/repo/commit/4f9c2e1d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d?diff=split&w=%31",
		"data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22%3E%3C/svg%3E",
		"https://x.example/?sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08&name=caf%C3%A9",
		"https://x.example/login?next=%2Fsettings%2Fpassword&error=password%20too%20short",
		"100%:done",
		"%%%://%%",
	} {
		if got, n := rvcURLResult(t, s, text); got != text || n != 0 {
			t.Errorf("an ordinary URL changed (%d findings):\n%q\nto\n%q", n, text, got)
		}
	}
}

// The error of a handler is read as its result is: a URL in it too.
func TestRedTeamRVC_URLInError(t *testing.T) {
	s := rvcDefaultScanner(t)
	err, f := mcpredact.Error(s, &url.Error{Op: "Get", URL: "https://x.example/cb?q=" + url.QueryEscape("password=Hunter2Sup3rS3cret"), Err: errFake})
	if len(f) == 0 || strings.Contains(err.Error(), "Hunter2") {
		t.Errorf("a URL in an error leaked: %v", err)
	}
}

var errFake = fakeErr("connection refused")

type fakeErr string

func (e fakeErr) Error() string { return string(e) }
