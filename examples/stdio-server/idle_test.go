package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends one JSON-RPC message over streamable HTTP, with session id sid
// when not empty, and returns the status and the session id answered.
func post(t *testing.T, addr, sid, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ""
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`

// openSession initializes a session, waiting for the server to listen.
func openSession(t *testing.T, addr string) string {
	t.Helper()
	for range 100 {
		if code, sid := post(t, addr, "", initialize); code == http.StatusOK && sid != "" {
			return sid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no session from the server")
	return ""
}

// TestIdleSessionsAreClosed (issue 17): an abandoned HTTP session is
// closed after -session-idle, instead of holding its goroutines and memory
// forever; with -session-idle 0 (the old behaviour) it stays.
func TestIdleSessionsAreClosed(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	short := startHTTP(t, freePort(t), nil, "-session-idle", "300ms")
	forever := startHTTP(t, freePort(t), nil, "-session-idle", "0")
	sShort, sForever := openSession(t, short.addr), openSession(t, forever.addr)
	if code, _ := post(t, short.addr, sShort, ping); code != http.StatusOK {
		t.Fatalf("ping on a fresh session: %d", code)
	}
	time.Sleep(1500 * time.Millisecond)
	if code, _ := post(t, short.addr, sShort, ping); code != http.StatusNotFound {
		t.Errorf("ping after 1.5s idle with -session-idle 300ms: %d, want 404 (session closed)", code)
	}
	if code, _ := post(t, forever.addr, sForever, ping); code != http.StatusOK {
		t.Errorf("ping after 1.5s idle with -session-idle 0: %d, want 200", code)
	}
}

// TestSessionIdleDefault: the default closes idle sessions.
func TestSessionIdleDefault(t *testing.T) {
	if defaultSessionIdle <= 0 || defaultSessionIdle > time.Hour {
		t.Fatalf("default -session-idle %v, want a positive bound of at most an hour", defaultSessionIdle)
	}
}
