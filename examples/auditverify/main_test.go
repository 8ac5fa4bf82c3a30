package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

const corpus = "../../audit/testdata/corpus/"

func TestAuditverify(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"intact", []string{corpus + "intact.jsonl"}, 0, []string{"OK 12 events in 1 file(s), seq 1..12", "decisions: ALLOW=8 ASK=4"}},
		{"checkpoints", []string{"-pubkey", corpus + "pubkey.pem", "-checkpoints", corpus + "intact-checkpoints.checkpoints", corpus + "intact-checkpoints.jsonl"}, 0,
			[]string{"signed checkpoints matched: 3 (last at seq 12)"}},
		{"tampered", []string{corpus + "tampered-tool.jsonl"}, 1, []string{"FAIL tampered event", "file: " + corpus + "tampered-tool.jsonl", "line: 2", "seq:  2"}},
		{"truncated", []string{"-pubkey", corpus + "pubkey.pem", "-checkpoints", corpus + "truncated.checkpoints", corpus + "truncated.jsonl"}, 1,
			[]string{"FAIL truncated log", "line: 3", "seq:  12"}},
		{"no args", nil, 2, nil},
		{"checkpoints without key", []string{"-checkpoints", "x", corpus + "intact.jsonl"}, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out.String(), errb.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestAuditverifyExpandsRotatedFiles(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(corpus + "intact.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(filepath.Join(dir, "a.jsonl.00000000000000000005"), bytes.Join(lines[:5], nil), 0o600)
	os.WriteFile(filepath.Join(dir, "a.jsonl"), bytes.Join(lines[5:], nil), 0o600)
	var out bytes.Buffer
	if code := run([]string{filepath.Join(dir, "a.jsonl")}, &out, &out); code != 0 || !strings.Contains(out.String(), "OK 12 events in 2 file(s)") {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
}

// TestAuditverifyTraces lists events with their trace and span ids, and
// finds the events of one trace.
func TestAuditverifyTraces(t *testing.T) {
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	var log bytes.Buffer
	w, err := audit.New(&log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w.Write(ctx, &audit.Event{Decision: "ALLOW", Tool: "echo", TraceID: tid, SpanID: sid})
	w.Write(ctx, &audit.Event{Decision: "BLOCK", Tool: "never"})
	w.Write(ctx, &audit.Event{Decision: "BLOCK", Tool: "rm", TraceID: strings.Repeat("ab", 16), SpanID: sid})
	name := filepath.Join(t.TempDir(), "audit.jsonl")
	os.WriteFile(name, log.Bytes(), 0o600)

	var out bytes.Buffer
	if code := run([]string{"-events", name}, &out, &out); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	for _, want := range []string{
		"event seq=1 decision=ALLOW trace_id=" + tid + " span_id=" + sid,
		"event seq=2 decision=BLOCK trace_id=- span_id=-",
		"events with a trace id: 2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"-trace", strings.ToUpper(tid), name}, &out, &out); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if strings.Count(out.String(), "event seq=") != 1 || !strings.Contains(out.String(), "event seq=1 ") {
		t.Errorf("-trace listed other events:\n%s", out.String())
	}
}
