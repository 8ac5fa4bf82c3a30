package audit_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

var ctx = context.Background()

func TestWriteFillsChainFields(t *testing.T) {
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Clock: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	e1, e2 := sampleEvent(0), sampleEvent(1)
	if err := w.Write(ctx, e1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, e2); err != nil {
		t.Fatal(err)
	}
	if e1.Seq != 1 || e1.PreviousEventHash != nil || e1.Timestamp != "2026-01-20T10:30:45.123Z" {
		t.Errorf("first event: seq %d prev %v time %s", e1.Seq, e1.PreviousEventHash, e1.Timestamp)
	}
	if e2.Seq != 2 || e2.PreviousEventHash == nil || *e2.PreviousEventHash != e1.EventHash || e2.Timestamp != "2026-01-20T10:30:45.124Z" {
		t.Errorf("second event: seq %d prev %v time %s", e2.Seq, e2.PreviousEventHash, e2.Timestamp)
	}
	// The line decodes back into the same Event (json tags are the wire names).
	first, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	var back audit.Event
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatal(err)
	}
	if back.EventHash != e1.EventHash || back.Tool != "delete_file" || !back.Violation || back.FailedRule != "^/home/.*" {
		t.Errorf("decoded %+v", back)
	}
	// Exactly the fields set, plus the chain fields: no stray keys.
	var m map[string]any
	json.Unmarshal(first, &m)
	want := []string{"args", "decision", "direction", "event_hash", "failed_arg", "failed_rule", "method",
		"policy_mode", "previous_event_hash", "seq", "timestamp", "tool", "violation"}
	if len(m) != len(want) {
		t.Errorf("line has %d members, want %d: %s", len(m), len(want), first)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("member %s missing: %s", k, first)
		}
	}
	if w.Last() != (audit.Anchor{Seq: 2, Hash: e2.EventHash}) {
		t.Errorf("Last() = %+v", w.Last())
	}
}

func TestWriteRejects(t *testing.T) {
	w, _ := audit.New(&bytes.Buffer{}, &audit.Options{MaxLineBytes: 512})
	cases := map[string]*audit.Event{
		"args not JSON":   {Decision: "ALLOW", Args: json.RawMessage(`{"a":`)},
		"args not object": {Decision: "ALLOW", Args: json.RawMessage(`[1,2]`)},
		"duplicate names": {Decision: "ALLOW", Args: json.RawMessage(`{"a":1,"a":2}`)},
		"too long":        {Decision: "ALLOW", Tool: strings.Repeat("x", 600)},
		"bad metadata":    {Decision: "ALLOW", Metadata: map[string]any{"f": func() {}}},
	}
	for name, e := range cases {
		if err := w.Write(ctx, e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Refused events do not advance the chain.
	if err := w.Write(ctx, &audit.Event{Decision: "ALLOW"}); err != nil || w.Last().Seq != 1 {
		t.Fatalf("after refusals: %v, seq %d", err, w.Last().Seq)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.Write(cctx, &audit.Event{Decision: "ALLOW"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
}

func TestOptionsValidated(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	bad := map[string]*audit.Options{
		"durability":                {Durability: 7},
		"small line":                {MaxLineBytes: 10},
		"negative rotation":         {MaxFileBytes: -1},
		"hash key alone":            {ArgHashKey: []byte("k")},
		"checkpoints alone":         {CheckpointEvery: 5},
		"signer without sink (New)": {Signer: priv},
		"rotation with New":         {MaxFileBytes: 1 << 20},
		"anchor without hash":       {Anchor: &audit.Anchor{Seq: 3, Hash: "x"}},
	}
	for name, o := range bad {
		if _, err := audit.New(&bytes.Buffer{}, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := audit.New(&bytes.Buffer{}, &audit.Options{Durability: audit.DurabilitySync}); err == nil {
		t.Error("fsync durability on a writer without Sync: accepted")
	}
	if _, err := audit.New(&bytes.Buffer{}, nil); err != nil {
		t.Errorf("nil options: %v", err)
	}
}

func TestRedactAndHashArgs(t *testing.T) {
	args := json.RawMessage(`{"token":"AKIAABCDEFGHIJKLMNOP","path":"/tmp/x"}`)
	redact := audit.RedactorFunc(func(raw []byte) ([]byte, error) {
		return bytes.ReplaceAll(raw, []byte("AKIAABCDEFGHIJKLMNOP"), []byte("[REDACTED:aws_access_key]")), nil
	})
	line := func(o *audit.Options) string {
		var buf bytes.Buffer
		w, err := audit.New(&buf, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, &audit.Event{Decision: "ALLOW", Args: args}); err != nil {
			t.Fatal(err)
		}
		if _, err := audit.Verify(bytes.NewReader(buf.Bytes()), nil); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	got := line(&audit.Options{Redactor: redact})
	if strings.Contains(got, "AKIA") || !strings.Contains(got, `"token":"[REDACTED:aws_access_key]"`) {
		t.Errorf("redacted line: %s", got)
	}
	// sha256 of the canonical value "/tmp/x" (with quotes), by hand.
	got = line(&audit.Options{HashArgs: true})
	if !strings.Contains(got, `"path":"sha256:`+sha256Hex(`"/tmp/x"`)+`"`) || strings.Contains(got, "AKIA") {
		t.Errorf("hashed line: %s", got)
	}
	keyed := line(&audit.Options{HashArgs: true, ArgHashKey: []byte("k")})
	if !strings.Contains(keyed, `"path":"hmac-sha256:`) || strings.Contains(keyed, sha256Hex(`"/tmp/x"`)) {
		t.Errorf("keyed hash line: %s", keyed)
	}
	failing := audit.RedactorFunc(func([]byte) ([]byte, error) { return nil, errors.New("scanner down") })
	w, _ := audit.New(&bytes.Buffer{}, &audit.Options{Redactor: failing})
	if err := w.Write(ctx, &audit.Event{Args: args}); err == nil {
		t.Error("a failing redactor let the event through")
	}
}

func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := audit.Open(path, &audit.Options{Durability: audit.DurabilityGroup, MaxLineBytes: 1024, MaxFileBytes: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := w.Write(ctx, sampleEvent(g*50+i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := audit.Files(path)
	if len(files) < 3 {
		t.Errorf("%d files: rotation did not happen", len(files))
	}
	sum, err := audit.VerifyFiles(files, nil)
	if err != nil || sum.Events != 400 {
		t.Fatalf("verify: %v, %d events", err, sum.Events)
	}
	if err := w.Write(ctx, sampleEvent(0)); !errors.Is(err, audit.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

func TestRotateByAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	now := t0
	w, err := audit.Open(path, &audit.Options{Clock: func() time.Time { return now }, MaxFileAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if err := w.Write(ctx, sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
		now = now.Add(25 * time.Minute)
	}
	w.Close()
	files, _ := audit.Files(path)
	// Events at 0, 25, 50 | 75, 100, 125 minutes.
	if len(files) != 2 || filepath.Base(files[0]) != "audit.jsonl.00000000000000000003" {
		t.Fatalf("files %v", files)
	}
	if _, err := audit.VerifyFiles(files, nil); err != nil {
		t.Fatal(err)
	}
	// The second file alone is a continuation, not a genesis.
	if _, err := audit.VerifyFiles(files[1:], nil); !errors.Is(err, &audit.ChainError{Kind: audit.KindGenesis}) {
		t.Errorf("second file alone: %v", err)
	}
}
