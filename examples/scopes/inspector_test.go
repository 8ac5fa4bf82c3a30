package main

// The example under a real third-party client over streamable HTTP: the
// MCP Inspector CLI (npm @modelcontextprotocol/inspector 2.x under Node
// 22, whose client is the TypeScript SDK's), with each sample token.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/inspectortest"
)

// wire records the JSON-RPC messages of every POST to /mcp and of the
// server's answers (JSON or SSE data lines).
type wire struct {
	mu             sync.Mutex
	sent, received []map[string]any
	protocols      []string // Mcp-Protocol-Version headers the client sent
}

func (w *wire) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rec := &recorder{ResponseWriter: rw}
		h.ServeHTTP(rec, r)
		w.mu.Lock()
		defer w.mu.Unlock()
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(w.protocols, v) {
			w.protocols = append(w.protocols, v)
		}
		w.sent = append(w.sent, messages(body)...)
		sc := bufio.NewScanner(bytes.NewReader(rec.body.Bytes()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			w.received = append(w.received, messages(bytes.TrimPrefix(sc.Bytes(), []byte("data: ")))...)
		}
	})
}

// messages decodes one JSON-RPC message or a batch; nothing for other text.
func messages(b []byte) []map[string]any {
	var one map[string]any
	if json.Unmarshal(b, &one) == nil {
		return []map[string]any{one}
	}
	var batch []map[string]any
	json.Unmarshal(b, &batch)
	return batch
}

// answers returns the server's answers to the client's requests for method.
func (w *wire) answers(method string) []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	for _, req := range w.sent {
		if req["method"] != method || req["id"] == nil {
			continue
		}
		for _, res := range w.received {
			if res["method"] == nil && fmt.Sprint(res["id"]) == fmt.Sprint(req["id"]) {
				out = append(out, res)
			}
		}
	}
	return out
}

func (w *wire) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent, w.received = nil, nil
}

type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestInspectorHTTP: what a user of the Inspector sees with each sample
// token: the tools the token may call, a deploy to production refused
// for the missing scope (the message AIP fixes, the missing scope on the
// wire), the calls the token covers run, and a request without a token
// asks for OAuth instead of failing some other way.
func TestInspectorHTTP(t *testing.T) {
	in := inspectortest.Find(t)
	var tap wire
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h, err := newHandler(".", "tokens.txt", srv.URL, "https://auth.example.com")
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", tap.wrap(h))
	run := func(token string, args ...string) inspectortest.Run {
		t.Helper()
		tap.reset()
		cli := []string{srv.URL + "/mcp", "--transport", "http"}
		if token != "" {
			cli = append(cli, "--header", "Authorization: Bearer "+token)
		}
		r := in.CLI(t, nil, append(cli, args...)...)
		for _, m := range tap.received {
			if e, _ := m["error"].(map[string]any); e != nil && fmt.Sprint(e["code"]) == "-32006" {
				t.Errorf("the Inspector's request got Method not allowed: %v", m)
			}
		}
		return r
	}
	call := func(token, env string) inspectortest.Run {
		t.Helper()
		return run(token, "--method", "tools/call", "--tool-name", "deploy", "--tool-arg", "env="+env)
	}

	for token, want := range map[string][]string{"reader-5b1f0c2a": {"status"}, "deployer-9e47d3b8": {"deploy", "status"}, "release-c02a6f71": {"deploy", "status"}} {
		r := run(token, "--method", "tools/list")
		var list struct{ Tools []struct{ Name string } }
		if r.Exit != 0 || json.Unmarshal([]byte(r.Stdout), &list) != nil {
			t.Fatalf("%s tools/list: exit %d, stdout %q, stderr %q", token, r.Exit, r.Stdout, r.Stderr)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Errorf("%s sees tools %v, want %v", token, names, want)
		}
	}
	t.Logf("protocol versions the Inspector sent: %v", tap.protocols)

	for _, ok := range []struct{ token, env string }{{"deployer-9e47d3b8", "dev"}, {"release-c02a6f71", "prod"}} {
		r := call(ok.token, ok.env)
		if r.Exit != 0 || !strings.Contains(r.Stdout, `"deployed to `+ok.env+`"`) {
			t.Errorf("%s deploy %s: exit %d, stdout %q, stderr %q", ok.token, ok.env, r.Exit, r.Stdout, r.Stderr)
		}
	}

	// The deployer lacks deploy:prod.
	r := call("deployer-9e47d3b8", "prod")
	if env := r.Envelope(); r.Exit == 0 || env == nil || env["message"] != "Forbidden" || strings.Contains(r.Stdout, "deployed") {
		t.Errorf("the user sees exit %d, stdout %q, envelope %v; want a failure with Forbidden", r.Exit, r.Stdout, env)
	}
	ans := tap.answers("tools/call")
	if len(ans) != 1 {
		t.Fatalf("answers to tools/call on the wire: %v", ans)
	}
	e, _ := ans[0]["error"].(map[string]any)
	data, _ := json.Marshal(e["data"])
	if fmt.Sprint(e["code"]) != "-32001" || !strings.Contains(string(data), `"missingScopes":["deploy:prod"]`) || !strings.Contains(string(data), "lacks the OAuth scope(s) deploy:prod") {
		t.Errorf("on the wire: %v", e)
	}

	// The reader is not shown deploy; the Inspector refuses the name
	// itself, and nothing runs.
	r = call("reader-5b1f0c2a", "dev")
	if r.Exit == 0 || strings.Contains(r.Stdout, "deployed") || !strings.Contains(fmt.Sprint(r.Envelope()["message"]), "not found") {
		t.Errorf("reader's deploy: exit %d, stdout %q, envelope %v", r.Exit, r.Stdout, r.Envelope())
	}
	for _, a := range tap.answers("tools/call") {
		if a["result"] != nil {
			t.Errorf("the reader's deploy ran: %v", a)
		}
	}

	// No token: go-sdk's 401 names the protected-resource metadata, and
	// the Inspector asks for OAuth (which it cannot start without a TTY).
	r = run("", "--method", "tools/list")
	if env := r.Envelope(); r.Exit == 0 || env == nil || env["code"] != "auth_required" {
		t.Errorf("without a token the user sees exit %d, stdout %q, envelope %v; want auth_required", r.Exit, r.Stdout, env)
	}
}
