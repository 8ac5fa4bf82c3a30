package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// TestMain lets the test binary be the server: the end-to-end tests run it
// as a subprocess, spoken to over real stdio pipes and real HTTP. It is
// also the wire tap between the MCP Inspector and the example's binary
// (inspector_test.go).
func TestMain(m *testing.M) {
	if bin := os.Getenv(envWireTap); bin != "" {
		os.Exit(wireTap(bin, os.Args[1:]))
	}
	if os.Getenv("GATEHOUSE_STDIO_SERVER") == "1" {
		os.Args = append([]string{"stdio-server"}, strings.Fields(os.Getenv("GATEHOUSE_STDIO_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sandbox is a served directory with one sample file.
func sandbox(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deploy.conf"), []byte("key=AKIA"+"IOSFODNN7EXAMPLE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("PASSWORD=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func serverCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GATEHOUSE_STDIO_SERVER=1", "GATEHOUSE_STDIO_ARGS="+strings.Join(append([]string{"-policy", "policy.yaml"}, args...), " "))
	cmd.Stderr = &strings.Builder{}
	return cmd
}

// TestStdioWithGoSDKClient: a go-sdk client runs the server as a
// subprocess over stdio.
func TestStdioWithGoSDKClient(t *testing.T) {
	dir := sandbox(t)
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := serverCmd(t, "-root", dir, "-audit", auditLog)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if fmt.Sprint(names) != "[delete_file echo read_file write_file]" {
		t.Errorf("tools %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi \u200b there"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi \u200b there" {
		t.Fatalf("echo: %v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "deploy.conf"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "key=[REDACTED:AWS Key]\n" {
		t.Fatalf("read_file: %v %v", res, err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": ".env"}})
	if err == nil || !strings.Contains(err.Error(), "Access denied: protected path") {
		t.Fatalf("read .env: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Log(err)
	}
	raw, err := os.ReadFile(auditLog)
	if err != nil || strings.Count(string(raw), "\n") < 4 || strings.Contains(string(raw), "IOSFODNN7EXAMPLE") {
		t.Fatalf("audit log (%v):\n%s", err, raw)
	}
}

// lineConn writes raw lines to the server's stdin and reads its stdout.
type lineConn struct {
	t   *testing.T
	in  interface{ Write([]byte) (int, error) }
	out *bufio.Scanner
	cmd *exec.Cmd
}

func startRaw(t *testing.T, args ...string) *lineConn {
	cmd := serverCmd(t, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &lineConn{t: t, in: in, out: sc, cmd: cmd}
}

func (c *lineConn) send(line string) {
	c.t.Helper()
	if _, err := c.in.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads one message (a batch response is a JSON array); ok is false at EOF.
func (c *lineConn) next() (any, bool) {
	c.t.Helper()
	done := make(chan bool, 1)
	go func() { done <- c.out.Scan() }()
	select {
	case ok := <-done:
		if !ok {
			return nil, false
		}
	case <-time.After(10 * time.Second):
		c.t.Fatal("no answer from the server")
	}
	var v any
	if err := json.Unmarshal(c.out.Bytes(), &v); err != nil {
		c.t.Fatalf("server wrote %q: %v", c.out.Text(), err)
	}
	return v, true
}

func (c *lineConn) initialize(protocol string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if v, _ := c.next(); !strings.Contains(fmt.Sprint(v), "protocolVersion:"+protocol) {
		c.t.Fatalf("initialize: %v", v)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestStdioBatchElementsAreChecked: protocol 2025-03-26 accepts JSON-RPC
// batches and each element passes the guard on its own.
func TestStdioBatchElementsAreChecked(t *testing.T) {
	dir := sandbox(t)
	c := startRaw(t, "-root", dir)
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"ok.txt","content":"x"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"bad.txt","content":"y","mode":"0777"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":".env"}}}]`)
	got := map[string]string{}
	for len(got) < 3 {
		v, ok := c.next()
		if !ok {
			t.Fatalf("connection closed after %v", got)
		}
		msgs, isBatch := v.([]any)
		if !isBatch {
			msgs = []any{v}
		}
		for _, m := range msgs {
			mm := m.(map[string]any)
			code := "ok"
			if e, ok := mm["error"].(map[string]any); ok {
				code = fmt.Sprint(e["code"])
			}
			got[fmt.Sprint(mm["id"])] = code
		}
	}
	if got["1"] != "ok" || got["2"] != "-32001" || got["3"] != "-32007" {
		t.Errorf("batch answers %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.txt")); err != nil {
		t.Errorf("the allowed element did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
		t.Error("the denied element ran")
	}
}

// TestStdioNothingSlipsThrough: a batch under 2025-06-18, an unparseable
// line and a fullwidth method never reach a handler.
func TestStdioNothingSlipsThrough(t *testing.T) {
	write := `{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"name":"write_file","arguments":{"path":"%s","content":"x"}}}`
	for name, tc := range map[string]struct {
		proto, line, file string
	}{
		"fullwidth method":    {"2025-06-18", fmt.Sprintf(write, 5, "ｔｏｏｌｓ/ｃａｌｌ", "fw.txt"), "fw.txt"},
		"zero-width method":   {"2025-06-18", fmt.Sprintf(write, 5, "tools/call\u200b", "zw.txt"), "zw.txt"},
		"batch on 2025-06-18": {"2025-06-18", "[" + fmt.Sprintf(write, 5, "tools/call", "b.txt") + "]", "b.txt"},
		"unparseable line":    {"2025-06-18", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"u.txt"}} garbage`, "u.txt"},
		"mixed-case method":   {"2025-06-18", fmt.Sprintf(write, 5, "Tools/Call", "case.txt"), "case.txt"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := sandbox(t)
			c := startRaw(t, "-root", dir)
			c.initialize(tc.proto)
			c.send(tc.line)
			// A ping behind it: the answers are an error for the line (or
			// nothing, when the server closes the connection), then the
			// ping's, unless the connection is gone. Never a write.
			c.in.Write([]byte(`{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n"))
			for {
				v, ok := c.next()
				if !ok {
					break
				}
				m, _ := v.(map[string]any)
				if fmt.Sprint(m["id"]) == "6" {
					break
				}
				if m["error"] == nil {
					t.Fatalf("answer %v", v)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, tc.file)); err == nil {
				t.Fatal("the handler ran")
			}
		})
	}
}

// TestStreamableHTTP runs the server with -http on a loopback port.
func TestStreamableHTTP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := serverCmd(t, "-root", sandbox(t), "-http", addr, "-insecure-no-auth") // write_file is served
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen: %v\n%s", err, cmd.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "deploy.conf"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "[REDACTED:AWS Key]") {
		t.Fatalf("read_file: %v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "x", "content": "y", "extra": 1}}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("strict args over HTTP: %v", err)
	}
}

// TestStdioApproval: with -approval, delete_file needs a passkey per call;
// a go-sdk client with the approval client helper and a software
// authenticator enrolls over stdio and approves one deletion; the enrolled
// passkey survives a restart through -credentials.
func TestStdioApproval(t *testing.T) {
	dir := sandbox(t)
	if err := os.WriteFile(filepath.Join(dir, "old.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(t.TempDir(), "passkeys.json")
	args := []string{"-root", dir, "-approval", "-server-id", "urn:uuid:3f1e9f0e-7b55-4c1a-9d2e-5b8f6a1c2d3e", "-rp-id", "localhost", "-origin", "http://localhost:8787", "-credentials", creds}
	auth := approvaltest.New("http://localhost:8787", nil)
	ctx := context.Background()
	connect := func() (*approvalclient.Client, *mcp.ClientSession) {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		ac, err := approvalclient.New(client, auth, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: serverCmd(t, args...)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ac, cs
	}
	ac, cs := connect()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "old.log"}}); err == nil {
		t.Fatal("deleted without a passkey")
	}
	if _, err := ac.Enroll(ctx, cs); err != nil {
		t.Fatalf("enroll: %v", err)
	}
	cs.Close()
	ac, cs = connect() // a new server process: the passkey comes from -credentials
	defer cs.Close()
	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "old.log"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "deleted old.log" {
		t.Fatalf("approved delete: %v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.log")); !os.IsNotExist(err) {
		t.Fatalf("the file is still there: %v", err)
	}
	if p := auth.Prompts(); len(p) != 1 || p[0] != `Delete the file "old.log" from the served directory, permanently` {
		t.Errorf("the user saw %q", p)
	}
}
