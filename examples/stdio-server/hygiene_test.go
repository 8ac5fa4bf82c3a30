package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitListen waits until addr accepts connections.
func waitListen(t *testing.T, s *httpServer) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.Dial("tcp", s.addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen: %v\n%s", err, s.err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// TestHTTPWithoutTokensIsReadOnly: -http without -tokens has no
// authentication, so write_file and delete_file are not served and stderr
// says why and what to do; -insecure-no-auth serves them with a warning.
func TestHTTPWithoutTokensIsReadOnly(t *testing.T) {
	dir := sandbox(t)
	srv := startHTTP(t, freePort(t), nil, "-root", dir)
	waitListen(t, srv)
	cs := srv.connect(t, nil, "")
	names := toolNames(t, cs)
	if slices.Contains(names, "write_file") || slices.Contains(names, "delete_file") || !slices.Contains(names, "read_file") {
		t.Errorf("tools without authentication: %v, want read_file and no write_file or delete_file", names)
	}
	for _, tool := range []string{"write_file", "delete_file"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "deploy.conf", "content": "x"}})
		if err == nil && !res.IsError {
			t.Errorf("%s ran without authentication", tool)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "deploy.conf")); err != nil || string(b) != "key=AKIA"+"IOSFODNN7EXAMPLE\n" {
		t.Errorf("deploy.conf changed or gone: %q %v", b, err)
	}
	if !strings.Contains(srv.err(), "write_file and delete_file are not served") || !strings.Contains(srv.err(), "-insecure-no-auth") {
		t.Errorf("stderr does not say why write_file is missing:\n%s", srv.err())
	}

	open := startHTTP(t, freePort(t), nil, "-root", sandbox(t), "-insecure-no-auth")
	waitListen(t, open)
	names = toolNames(t, open.connect(t, nil, ""))
	if !slices.Contains(names, "write_file") || !slices.Contains(names, "delete_file") {
		t.Errorf("-insecure-no-auth: tools %v, want write_file and delete_file", names)
	}
	if !strings.Contains(open.err(), "WARNING: -insecure-no-auth") {
		t.Errorf("-insecure-no-auth without a warning:\n%s", open.err())
	}
}

// TestInsecureNoAuthNeedsHTTPAlone: the flag is refused where it means
// nothing or contradicts another flag.
func TestInsecureNoAuthNeedsHTTPAlone(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.txt")
	if err := os.WriteFile(tokens, []byte(strings.Repeat("a1", 20)+" alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"stdio":       {"-insecure-no-auth"},
		"with tokens": {"-http", "127.0.0.1:0", "-tokens", tokens, "-insecure-no-auth"},
	} {
		cmd := serverCmd(t, append([]string{"-root", t.TempDir()}, args...)...)
		cmd.Stderr = nil
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "-insecure-no-auth goes with -http alone") {
			t.Errorf("%s: exit %v, output:\n%s", name, err, out)
		}
	}
}

// TestUnauthorizedCarriesBearerChallenge: every 401 (no token, a wrong
// token, another scheme) has WWW-Authenticate: Bearer; an authorized
// answer has none.
func TestUnauthorizedCarriesBearerChallenge(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.txt")
	good := strings.Repeat("c3", 20)
	if err := os.WriteFile(tokens, []byte(good+" carol\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startHTTP(t, freePort(t), nil, "-root", sandbox(t), "-tokens", tokens)
	waitListen(t, srv)
	post := func(authz string) *http.Response {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequest("POST", "http://"+srv.addr+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	for name, authz := range map[string]string{"no token": "", "wrong token": "Bearer " + strings.Repeat("d4", 20), "basic": "Basic YTpi", "empty bearer": "Bearer "} {
		res := post(authz)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, res.StatusCode)
			continue
		}
		if ch := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer") {
			t.Errorf("%s: 401 with WWW-Authenticate %q, want a Bearer challenge", name, ch)
		}
	}
	res := post("Bearer " + good)
	if res.StatusCode != http.StatusOK || res.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("authorized: status %d, WWW-Authenticate %q; want 200 and no challenge", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
}

// TestNoLeakedSampleDirs: the sample directory made when -root is not
// given is removed however the server ends: a flag refused after it was
// made, a bad -tokens file, or the client closing stdio.
func TestNoLeakedSampleDirs(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-tokens.txt")
	for name, args := range map[string][]string{
		"bad origin":     {"-approval", "-server-id", testServerID, "-origin", "not-an-origin"},
		"missing tokens": {"-http", "127.0.0.1:0", "-tokens", missing},
		"bad audit path": {"-audit", filepath.Join(missing, "sub", "audit.jsonl")},
		"stdio closed":   {},
	} {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := serverCmd(t, args...)
			cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
			cmd.Stdin = strings.NewReader("") // stdio: the client hangs up at once
			cmd.Stderr = nil
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), "serving a sample directory") {
				t.Fatalf("the server never made its sample directory, so this case tests nothing:\n%s", out)
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Errorf("left in TMPDIR: %v\n%s", left, out)
			}
		})
	}
}
