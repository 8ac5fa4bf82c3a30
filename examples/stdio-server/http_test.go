package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
	"github.com/gatehouse-dev/gatehouse/internal/browsertest"
)

const testServerID = "urn:uuid:0b6f3c1e-2a4d-4e8f-9c7b-5d1e3f2a6b8c"

// freePort returns a loopback port nobody listens on (right now).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpServer is the server running as a subprocess with -http.
type httpServer struct {
	addr  string            // host:port to dial
	token string            // the printed operator token, if any
	links map[string]string // user -> enrollment link
	err   func() string     // stderr so far, for failure messages
	stop  func()            // interrupt the server and wait for it to exit
}

var (
	tokenLine = regexp.MustCompile(`bearer token for user "operator": ([0-9a-f]{64})$`)
	linkLine  = regexp.MustCompile(`enrollment link for user "([^"]+)" \(enrolls one passkey, within [^)]+\): (http://\S+)$`)
)

// startHTTP runs the server with -http on a free loopback port and waits
// for the enrollment links of users (none without -approval).
func startHTTP(t *testing.T, port int, users []string, args ...string) *httpServer {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := serverCmd(t, append([]string{"-http", addr}, args...)...)
	cmd.Stderr = nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }) }
	t.Cleanup(stop)
	var mu sync.Mutex
	var all strings.Builder
	s := &httpServer{addr: addr, links: map[string]string{}, stop: stop, err: func() string { mu.Lock(); defer mu.Unlock(); return all.String() }}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			all.WriteString(sc.Text() + "\n")
			mu.Unlock()
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(15 * time.Second)
	for len(s.links) < len(users) {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("server exited:\n%s", s.err())
			}
			if m := tokenLine.FindStringSubmatch(line); m != nil {
				s.token = m[1]
			}
			if m := linkLine.FindStringSubmatch(line); m != nil {
				s.links[m[1]] = m[2]
			}
		case <-timeout:
			t.Fatalf("no enrollment links:\n%s", s.err())
		}
	}
	go func() {
		for range lines { // keep draining
		}
	}()
	return s
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a go-sdk session with token; client may be nil.
func (s *httpServer) connect(t *testing.T, client *mcp.Client, token string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, nil)
	}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: "http://" + s.addr, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{token}},
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.err())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawCall posts one JSON-RPC tools/call with the given Authorization header.
func (s *httpServer) rawCall(t *testing.T, authz, tool, path string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"path":"` + path + `"}}}`
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/", strings.NewReader(body))
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
	return res.StatusCode
}

// get fetches url without following redirects.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// enrolled counts the passkeys of a -tokens user in a -credentials file.
func enrolled(t *testing.T, file, user string) int {
	t.Helper()
	if !exists(file) {
		return 0
	}
	// The running server holds the file's single-writer lock, so read the
	// file as it is on disk (written atomically) instead of opening a store.
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Credentials []*approval.Credential `json:"credentials"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range data.Credentials {
		if bytes.Equal(c.UserHandle, approval.NewUser(gatehouse.ApprovalUserID(user)).Handle) {
			n++
		}
	}
	return n
}

// TestHTTPApprovalRefusals: over -http with -approval, MCP needs a valid
// bearer token (401 otherwise, and no tool runs), delete_file without an
// approval is -32001 and leaves the file, and wrong, expired or missing
// enrollment codes are refused.
func TestHTTPApprovalRefusals(t *testing.T) {
	dir := sandbox(t)
	victim := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	srv := startHTTP(t, port, []string{"operator"}, "-root", dir, "-approval", "-server-id", testServerID, "-rp-id", "localhost",
		"-origin", fmt.Sprintf("http://localhost:%d", port))
	if srv.token == "" {
		t.Fatalf("no token printed:\n%s", srv.err())
	}
	for name, authz := range map[string]string{
		"no token": "", "wrong token": "Bearer " + strings.Repeat("0", 64), "not bearer": "Basic " + srv.token, "token prefix": "Bearer " + srv.token[:63],
	} {
		if code := srv.rawCall(t, authz, "delete_file", "keep.txt"); code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	if !exists(victim) {
		t.Fatal("an unauthenticated request deleted the file")
	}
	if strings.Count(srv.err(), srv.token) != 1 {
		t.Errorf("the token appears on stderr other than in its startup line:\n%s", srv.err())
	}

	cs := srv.connect(t, nil, srv.token)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "keep.txt"}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != approval.ErrorCode {
		t.Fatalf("delete_file without approval: %v, want code %d", err, approval.ErrorCode)
	}
	if !exists(victim) {
		t.Fatal("delete_file ran without approval")
	}
	// The client cannot enroll a passkey of its own: over HTTP passkeys are
	// enrolled only through the links.
	agentClient := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil)
	agent, err := approvalclient.New(agentClient, approvaltest.New(fmt.Sprintf("http://localhost:%d", port), nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ae *approval.Error
	if _, err := agent.Enroll(context.Background(), srv.connect(t, agentClient, srv.token)); !errors.As(err, &ae) || ae.Reason != approvalmcp.ReasonEnrollmentNotPermitted {
		t.Fatalf("enrollment over MCP: %v, want %s", err, approvalmcp.ReasonEnrollmentNotPermitted)
	}

	link := srv.links["operator"]
	for name, u := range map[string]string{
		"wrong code":   strings.SplitN(link, "code=", 2)[0] + "code=" + strings.Repeat("A", 43),
		"no code":      strings.SplitN(link, "?", 2)[0],
		"huge code":    link + strings.Repeat("A", 4096),
		"code changed": link[:len(link)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(link, "A")],
	} {
		u = strings.Replace(u, "localhost", "127.0.0.1", 1)
		if code, body := get(t, u); code != http.StatusForbidden || !strings.Contains(body, "unknown, used or expired") {
			t.Errorf("%s: %d %q", name, code, body)
		}
		// The button's POST refuses the same codes.
		base, query, _ := strings.Cut(u, "?")
		form, _ := url.ParseQuery(query)
		resp, err := http.PostForm(base, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: POST %d", name, resp.StatusCode)
		}
	}

	// A cross-site form post of a valid code (an attacker's own link, sent
	// from the victim's browser) is refused, and the code is not spent.
	{
		base, query, _ := strings.Cut(strings.Replace(link, "localhost", "127.0.0.1", 1), "?")
		req, _ := http.NewRequest("POST", base, strings.NewReader(query))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site POST of a valid code: %d, want 403", resp.StatusCode)
		}
		if code, body := get(t, strings.Replace(link, "localhost", "127.0.0.1", 1)); code != http.StatusOK {
			t.Errorf("the link after a refused cross-site POST: %d %q", code, body)
		}
	}

	// A link that expired before anyone used it.
	port2 := freePort(t)
	srv2 := startHTTP(t, port2, []string{"operator"}, "-root", dir, "-approval", "-server-id", testServerID, "-enroll-link-ttl", "1ms")
	time.Sleep(5 * time.Millisecond)
	if code, _ := get(t, strings.Replace(srv2.links["operator"], "localhost", "127.0.0.1", 1)); code != http.StatusForbidden {
		t.Errorf("expired link: %d", code)
	}
}

// TestHTTPTokensFile: -tokens gives each listed user a token and an
// enrollment link; a malformed file is refused naming its line.
func TestHTTPTokensFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tokens.txt")
	alice, bob := strings.Repeat("a1", 20), strings.Repeat("b2", 20)
	if err := os.WriteFile(good, []byte("# token user\n"+alice+" alice\n\n"+bob+" bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	srv := startHTTP(t, port, []string{"alice", "bob"}, "-root", sandbox(t), "-approval", "-server-id", testServerID, "-tokens", good)
	if srv.token != "" {
		t.Error("printed a random token although -tokens was given")
	}
	for _, tok := range []string{alice, bob} {
		cs := srv.connect(t, nil, tok)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(srv.err(), alice) || strings.Contains(srv.err(), bob) {
		t.Errorf("a token from the file was printed:\n%s", srv.err())
	}

	for name, tc := range map[string]struct{ file, want string }{
		"one field":   {alice + " alice\n" + bob + "\n", "tokens.txt:2: want \"token user\""},
		"short token": {"short alice\n", "tokens.txt:1: the token must be"},
		"bad user":    {alice + " al/ice\n", "tokens.txt:1: the user must be"},
		"duplicate":   {alice + " alice\n" + alice + " bob\n", "tokens.txt:2: this token is listed already"},
		"empty":       {"# nothing\n", "tokens.txt: no tokens"},
	} {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "tokens.txt")
			if err := os.WriteFile(bad, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := serverCmd(t, "-root", t.TempDir(), "-http", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "-approval", "-server-id", testServerID, "-tokens", bad)
			cmd.Stderr = nil
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), tc.want) || strings.Contains(string(out), alice) {
				t.Fatalf("exit %v, output:\n%s", err, out)
			}
		})
	}
}

// TestHTTPBrowserEnrollAndApprove: the whole flow in one headless Chromium
// tab with a virtual authenticator. The operator opens the printed
// enrollment link (the server's own page under /approval/) and the page
// reports the passkey enrolled; a go-sdk client with the bearer token,
// approvalclient and a local ceremony Bridge (another origin of the
// server) deletes a file with a passkey approval in the same tab. The used
// link is refused afterwards and enrolls nothing.
func TestHTTPBrowserEnrollAndApprove(t *testing.T) {
	tab := browsertest.Tab(t)
	dir := sandbox(t)
	doomed := filepath.Join(dir, "doomed.txt")
	if err := os.WriteFile(doomed, []byte("bye"), 0o644); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(t.TempDir(), "passkeys.json")

	// The client's bridge listens first, so its port is taken for real.
	bl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bridgeOrigin := fmt.Sprintf("http://localhost:%d", bl.Addr().(*net.TCPAddr).Port)
	port := freePort(t)
	serverOrigin := fmt.Sprintf("http://localhost:%d", port)
	srv := startHTTP(t, port, []string{"operator"}, "-root", dir, "-approval", "-server-id", testServerID, "-rp-id", "localhost",
		"-origin", serverOrigin+","+bridgeOrigin, "-credentials", creds)
	link := srv.links["operator"]
	if !strings.HasPrefix(link, serverOrigin+"/approval/enroll?code=") {
		t.Fatalf("enrollment link %q", link)
	}

	// Opening the link (as a link preview would) spends nothing: only the
	// page's button does.
	for range 2 {
		if v := browsertest.Read(tab, link); v.Err != nil || v.Title != "Enroll a passkey" || !strings.Contains(v.Status, `user operator`) {
			t.Fatalf("the link's page: %+v", v)
		}
	}
	if code, _ := get(t, link); code != http.StatusOK {
		t.Fatalf("GET of the link: %d", code)
	}
	if n := enrolled(t, creds, "operator"); n != 0 {
		t.Fatalf("opening the link enrolled %d passkeys", n)
	}
	v := browsertest.ContinueAndApprove(tab, link, "#continue")
	if v.Err != nil || v.Title != "Enroll a passkey for approvals" || v.State != "done" || !strings.Contains(v.Status, "enrolled") {
		t.Fatalf("enrollment page: %+v\n%s", v, srv.err())
	}
	if n := enrolled(t, creds, "operator"); n != 1 {
		t.Fatalf("%d passkeys enrolled, want 1", n)
	}
	if code, body := get(t, link); code != http.StatusForbidden || !strings.Contains(body, "unknown, used or expired") {
		t.Fatalf("reused link: %d %q", code, body)
	}
	if v := browsertest.Read(tab, link); v.Err != nil || v.Title != "Enrollment link not valid" || !strings.Contains(v.Status, "unknown, used or expired") {
		t.Fatalf("the reused link in the browser: %+v", v)
	}
	if n := enrolled(t, creds, "operator"); n != 1 {
		t.Fatalf("the reused link enrolled: %d passkeys", n)
	}

	// The client side: a local bridge whose pages open in the same tab.
	visits := make(chan browsertest.Visit, 2)
	bridge, err := ceremony.New(&ceremony.Options{BaseURL: bridgeOrigin, Open: func(_ context.Context, url string) error {
		go func() { visits <- browsertest.Approve(tab, url) }()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: bridge, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(bl)
	t.Cleanup(func() { hs.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "1"}, nil)
	ac, err := approvalclient.New(client, bridge, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := srv.connect(t, client, srv.token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "doomed.txt"}})
	if err != nil {
		t.Fatalf("approved delete: %v\n%s", err, srv.err())
	}
	v = <-visits
	if v.Err != nil || v.State != "done" || v.DisplayText != `Delete the file "doomed.txt" from the served directory, permanently` {
		t.Fatalf("approval page: %+v", v)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "deleted doomed.txt" || exists(doomed) {
		t.Fatalf("result %q; file still there: %v", got, exists(doomed))
	}
}

// TestHTTPNoLinksForEnrolledUsers: anyone who reads stderr can use a link,
// so users who have a passkey get none, unless -enroll-all.
func TestHTTPNoLinksForEnrolledUsers(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.txt")
	if err := os.WriteFile(tokens, []byte(strings.Repeat("a1", 20)+" alice\n"+strings.Repeat("b2", 20)+" bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	credsFile := filepath.Join(dir, "passkeys.json")
	store, err := approval.OpenFileCredentialStore(credsFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(context.Background(), &approval.Credential{ID: []byte("alice-key"), UserHandle: approval.NewUser(gatehouse.ApprovalUserID("alice")).Handle, PublicKey: []byte("cose"), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store.Close() // the server opens the file next
	args := []string{"-root", sandbox(t), "-approval", "-server-id", testServerID, "-tokens", tokens, "-credentials", credsFile}
	srv := startHTTP(t, freePort(t), []string{"bob"}, args...)
	if _, ok := srv.links["alice"]; ok {
		t.Fatal("an enrollment link was printed for a user who has a passkey")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(srv.err(), `user "alice" has 1 passkey(s); no enrollment link`) {
		if time.Now().After(deadline) {
			t.Fatalf("no word about alice:\n%s", srv.err())
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv.stop() // one process owns the credential file
	all := startHTTP(t, freePort(t), []string{"alice", "bob"}, append(args, "-enroll-all")...)
	if all.links["alice"] == "" {
		t.Fatal("-enroll-all printed no link for alice")
	}
}
