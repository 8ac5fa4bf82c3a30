package audit_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gowebpki/jcs"
)

// fenced returns the contents of the fenced blocks of FORMAT.md with the
// given info string.
func fenced(t *testing.T, info string) []string {
	t.Helper()
	doc, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, part := range strings.Split(string(doc), "```"+info+"\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		out = append(out, body)
	}
	return out
}

// TestFormatWorkedExample recomputes the worked example of FORMAT.md with
// only encoding/json (to drop event_hash), jcs.Transform and sha256.
func TestFormatWorkedExample(t *testing.T) {
	blocks := fenced(t, "jsonl")
	if len(blocks) != 1 {
		t.Fatalf("%d jsonl blocks in FORMAT.md", len(blocks))
	}
	lines := strings.Split(strings.TrimSuffix(blocks[0], "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("worked example has %d lines", len(lines))
	}
	text := fenced(t, "text")
	if len(text) < 2 {
		t.Fatal("FORMAT.md lacks the canonical form and hash blocks")
	}
	docCanon, docHex := strings.TrimSuffix(text[0], "\n"), strings.TrimSpace(text[1])
	prev := json.RawMessage("null")
	for i, line := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if string(m["previous_event_hash"]) != string(prev) {
			t.Errorf("line %d: previous_event_hash %s, want %s", i+1, m["previous_event_hash"], prev)
		}
		got := m["event_hash"]
		delete(m, "event_hash")
		rest, _ := json.Marshal(m)
		canon, err := jcs.Transform(rest)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(canon)
		want := `"sha256:` + hex.EncodeToString(sum[:]) + `"`
		if string(got) != want {
			t.Errorf("line %d: event_hash %s, recomputed %s", i+1, got, want)
		}
		if i == 0 {
			if string(canon) != docCanon {
				t.Errorf("documented canonical form:\n%s\nrecomputed:\n%s", docCanon, canon)
			}
			if hex.EncodeToString(sum[:]) != docHex {
				t.Errorf("documented hash %s, recomputed %x", docHex, sum)
			}
		}
		prev = got
	}
	// And the Writer writes exactly these lines for these events.
	var buf bytes.Buffer
	times := []time.Time{t0, t0.Add(333 * time.Millisecond)}
	w, _ := audit.New(&buf, &audit.Options{Clock: func() time.Time { t := times[0]; times = times[1:]; return t }})
	w.Write(ctx, &audit.Event{Direction: "upstream", Method: "tools/call", Tool: "delete_file",
		Args: json.RawMessage(`{"path": "/etc/passwd"}`), Decision: "BLOCK", PolicyMode: "enforce",
		Violation: true, FailedArg: "path", FailedRule: "^/home/.*"})
	w.Write(ctx, &audit.Event{Direction: "downstream", Event: "DLP_TRIGGERED", DLPRule: "AWS Key",
		DLPAction: "REDACTED", DLPMatchCount: 2})
	if buf.String() != blocks[0] {
		t.Errorf("Writer output differs from FORMAT.md:\n%s", buf.String())
	}
}
