package audit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// t0 is the time of the first event in tests (the AIP §6.3 example's).
var t0 = time.Date(2026, 1, 20, 10, 30, 45, 123e6, time.UTC)

// stepClock returns a clock that starts at t0 and advances 1ms per call.
func stepClock() func() time.Time {
	var mu sync.Mutex
	now := t0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := now
		now = now.Add(time.Millisecond)
		return t
	}
}

// sampleEvent returns the i-th event of a varied test log.
func sampleEvent(i int) *audit.Event {
	switch i % 4 {
	case 0:
		return &audit.Event{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "delete_file",
			Args: json.RawMessage(fmt.Sprintf(`{"path":"/etc/passwd%d","recursive":false}`, i)), Decision: "BLOCK",
			PolicyMode: "enforce", Violation: true, FailedArg: "path", FailedRule: "^/home/.*"}
	case 1:
		return &audit.Event{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "read_file",
			Args: json.RawMessage(`{"path":"/home/u/notes.txt","n":` + strconv.Itoa(i) + `,"id":1234567890123456789` + strconv.Itoa(i%10) + `}`), Decision: "ALLOW", PolicyMode: "enforce"}
	case 2:
		return &audit.Event{Direction: audit.DirectionDownstream, Event: "DLP_TRIGGERED", DLPRule: "AWS Key",
			DLPAction: "REDACTED", DLPMatchCount: 2}
	default:
		return &audit.Event{Type: "audit_event", Version: "0.2.0", ID: "ae_" + strconv.Itoa(i), EventType: "policy_evaluated",
			RequestID: "cr_1", Agent: "claude", Tool: "send_email", Category: "communication", RiskLevel: "high",
			Decision: "ASK", ResponseTimeMS: 12, PolicyRule: "ask-email",
			Metadata: map[string]any{"note": "héllo \"quoted\"\n", "n": i}}
	}
}

// makeLog writes n sample events with a fixed clock and returns the log.
func makeLog(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Clock: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Write(context.Background(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// refVerify is the slow, obviously correct verifier: for every line, canonicalize
// with audit.RefCanon (jcs.Transform, numbers a double does not hold kept as
// written), drop event_hash, hash again, and check seq and link.
// It returns the number of intact events and the 1-based line of the first
// problem (0 when the log is intact).
func refVerify(log []byte) (events, badLine int) {
	if len(log) == 0 {
		return 0, 0
	}
	lines := bytes.Split(log, []byte("\n"))
	last := lines[len(lines)-1]
	lines = lines[:len(lines)-1] // text after the final newline
	prevHash := json.RawMessage("null")
	for i, line := range lines {
		if !refEventOK(line, uint64(i+1), prevHash) {
			return i, i + 1
		}
		var m map[string]json.RawMessage
		json.Unmarshal(mustCanon(line), &m)
		prevHash = m["event_hash"]
	}
	if len(last) > 0 {
		return len(lines), len(lines) + 1
	}
	return len(lines), 0
}

func refEventOK(line []byte, seq uint64, prevHash json.RawMessage) bool {
	canon, err := audit.RefCanon(line)
	if err != nil {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(canon, &m) != nil || m == nil {
		return false
	}
	got, ok := m["event_hash"]
	if !ok || string(m["seq"]) != strconv.FormatUint(seq, 10) || string(m["previous_event_hash"]) != string(prevHash) {
		return false
	}
	delete(m, "event_hash")
	rest, _ := json.Marshal(m)
	sum := sha256.Sum256(mustCanon(rest))
	return string(got) == `"sha256:`+hex.EncodeToString(sum[:])+`"`
}

func mustCanon(b []byte) []byte {
	c, err := audit.RefCanon(b)
	if err != nil {
		panic(err)
	}
	return c
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func readCorpus(name string) ([]byte, error) { return os.ReadFile(filepath.Join(corpusDir, name)) }

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
