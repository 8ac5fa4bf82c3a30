package gatehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// auditedStream serves basePolicy with the tools echo and never over a
// newline-delimited byte stream (so arguments go out byte for byte, invalid
// UTF-8 included), audited to the returned buffer, and counts echo's runs.
func auditedStream(t *testing.T) (send func(string), read func() string, log *syncBuffer, w *audit.Writer, runs *int) {
	t.Helper()
	log, runs = &syncBuffer{}, new(int)
	w, err := audit.New(log, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: w})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	textTool(s, "echo", func(map[string]any) string { return "ok" }, runs)
	textTool(s, "never", func(map[string]any) string { return "ran" }, nil)
	g.Install(s)
	send, read = byteStream(t, s)
	return send, read, log, w, runs
}

// toolCallEvents verifies the log and returns its tools/call events.
func toolCallEvents(t *testing.T, log []byte) []map[string]any {
	t.Helper()
	if _, err := audit.Verify(bytes.NewReader(log), nil); err != nil {
		t.Fatalf("the log does not verify: %v\n%s", err, log)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n")) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		if e["method"] == "tools/call" {
			out = append(out, e)
		}
	}
	return out
}

// Arguments the log's canonical form (I-JSON, RFC 8785) cannot hold — a
// lone surrogate, invalid UTF-8, nesting deeper than the log allows — made
// the audit write fail, and the Guard refused the call without any record:
// a client could probe protected paths and blocked tools with no trace in
// the audit log by adding one such member to its arguments. Every decision
// is now recorded, the arguments as their size and SHA-256.
func TestRedTeamRTI_UnloggableArgsStillRecorded(t *testing.T) {
	deep := strings.Repeat(`[`, 150) + strings.Repeat(`]`, 150)
	for name, c := range map[string]struct {
		tool, args, decision string
		runs                 int
	}{
		"protected path, lone surrogate": {"echo", `{"path":"~/.ssh/id_rsa","x":"\ud800"}`, "BLOCK", 0},
		"protected path, invalid UTF-8":  {"echo", "{\"path\":\"~/.ssh/id_rsa\",\"x\":\"\xff\"}", "BLOCK", 0},
		"protected path, deep nesting":   {"echo", `{"path":"~/.ssh/id_rsa","x":` + deep + `}`, "BLOCK", 0},
		"blocked tool, lone surrogate":   {"never", `{"x":"\udfff"}`, "BLOCK", 0},
		"blocked tool, invalid UTF-8":    {"never", "{\"x\":\"\xc0\xaf\"}", "BLOCK", 0},
		"allowed, lone surrogate":        {"echo", `{"x":"a\ud800b"}`, "ALLOW", 1},
		"allowed, invalid UTF-8 key":     {"echo", "{\"\xfe\":1}", "ALLOW", 1},
	} {
		t.Run(name, func(t *testing.T) {
			send, read, log, w, runs := auditedStream(t)
			send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`)
			resp := read()
			w.Close()
			if *runs != c.runs {
				t.Errorf("the handler ran %d times, want %d; answer %s", *runs, c.runs, resp)
			}
			events := toolCallEvents(t, log.Bytes())
			if len(events) != 1 {
				t.Fatalf("%d tools/call events, want 1 (answer %s):\n%s", len(events), resp, log)
			}
			e := events[0]
			if e["decision"] != c.decision {
				t.Errorf("decision %v, want %s", e["decision"], c.decision)
			}
			args, _ := e["args"].(map[string]any)
			if _, ok := args["_gatehouse_omitted"]; !ok {
				t.Errorf("args %v, want their size and hash", e["args"])
			}
		})
	}
}

// Near miss: arguments the log can hold are recorded as they are, escapes
// and unusual but valid characters included.
func TestRedTeamRTI_LoggableArgsVerbatim(t *testing.T) {
	for _, args := range []string{`{"x":"\ud83d\ude00"}`, `{"x":"a\u2028b"}`, `{"x":[[[[1]]]]}`, `{"x":12345678901234567891}`} {
		send, read, log, w, _ := auditedStream(t)
		send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`)
		read()
		w.Close()
		events := toolCallEvents(t, log.Bytes())
		if len(events) != 1 || events[0]["decision"] != "ALLOW" {
			t.Fatalf("%s: events %v", args, events)
		}
		if a, _ := events[0]["args"].(map[string]any); a["x"] == nil {
			t.Errorf("%s: args %v, want them as sent", args, events[0]["args"])
		}
	}
}

// A tool name or argument name too long for a log line (the arguments
// replaced by their hash still left the line over MaxLineBytes) kept the
// decision off the record. The names are now recorded shortened, with
// their size and hash.
func TestRedTeamRTI_HugeNamesStillRecorded(t *testing.T) {
	big := strings.Repeat("a", 1100<<10)
	for name, c := range map[string]struct{ params, field string }{
		"tool name":               {`{"name":"` + big + `","arguments":{}}`, "tool"},
		"tool name with a secret": {`{"name":"` + fakeKey + big + `","arguments":{}}`, "tool"},
		"argument name":           {`{"name":"echo","arguments":{"` + big + `":"~/.ssh/id_rsa"}}`, "failed_arg"},
	} {
		t.Run(name, func(t *testing.T) {
			send, read, log, w, _ := auditedStream(t)
			send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + c.params + `}`)
			read()
			w.Close()
			events := toolCallEvents(t, log.Bytes())
			if len(events) != 1 || events[0]["decision"] != "BLOCK" {
				t.Fatalf("%d tools/call events, want one BLOCK:\n%.2000s", len(events), log)
			}
			v, _ := events[0][c.field].(string)
			if len(v) > 1024 || !strings.Contains(v, " bytes, sha256:") {
				t.Errorf("%s = %.300q, want it shortened with its size and hash", c.field, v)
			}
			if strings.Contains(log.String(), fakeKey) {
				t.Error("the secret in the name reached the log")
			}
		})
	}
}

// Near miss: a long name that fits the line is recorded whole.
func TestRedTeamRTI_LongNameThatFitsWhole(t *testing.T) {
	name := strings.Repeat("b", 4000)
	send, read, log, w, _ := auditedStream(t)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`)
	read()
	w.Close()
	events := toolCallEvents(t, log.Bytes())
	if len(events) != 1 || events[0]["tool"] != name {
		t.Fatalf("events %.300v, want the whole name", events)
	}
}

// eventSink keeps the events written to it.
type eventSink struct {
	mu sync.Mutex
	ev []audit.Event
}

func (m *eventSink) Write(_ context.Context, e *audit.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ev = append(m.ev, *e)
	return nil
}

// With audit.Tee(other, writer), the decision of a call whose arguments
// the Writer refuses was kept twice by the other sink: once as sent, once
// with the arguments' size and hash. Each sink now records it once.
func TestRedTeamRTI_TeeRecordsOnce(t *testing.T) {
	var log syncBuffer
	w, _ := audit.New(&log, nil)
	mem := &eventSink{}
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: audit.Tee(mem, w)})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	textTool(s, "echo", func(map[string]any) string { return "ok" }, nil)
	g.Install(s)
	send, read := byteStream(t, s)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"~/.ssh/id_rsa","x":"\ud800"}}}`)
	read()
	calls := 0
	for _, e := range mem.ev {
		if e.Method == "tools/call" {
			calls++
		}
	}
	if n := len(toolCallEvents(t, log.Bytes())); calls != 1 || n != 1 {
		t.Fatalf("the decision is in the other sink %d times and in the log %d times, want once each", calls, n)
	}
}
