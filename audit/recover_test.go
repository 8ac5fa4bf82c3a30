package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

func writeN(t *testing.T, path string, o *audit.Options, n int) *audit.Writer {
	t.Helper()
	w, err := audit.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Write(ctx, sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func appendFile(t *testing.T, path string, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(data)
	f.Close()
}

func TestOpenContinuesChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w := writeN(t, path, nil, 5)
	last := w.Last()
	w.Close()
	w = writeN(t, path, nil, 3)
	if r := w.Recovery(); r.LastSeq != 5 || r.TornBytes != 0 || r.NewChain {
		t.Errorf("recovery %+v", r)
	}
	w.Close()
	sum, err := audit.VerifyFiles([]string{path}, nil)
	if err != nil || sum.Events != 8 || sum.LastSeq != 8 {
		t.Fatalf("%v %+v", err, sum)
	}
	_ = last
}

func TestOpenRepairsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w := writeN(t, path, nil, 4)
	w.Close()
	appendFile(t, path, `{"args":{"path":"/etc/pas`) // a write cut short
	if _, err := audit.VerifyFiles([]string{path}, nil); !errors.Is(err, &audit.ChainError{Kind: audit.KindTornLine}) {
		t.Fatalf("before repair: %v", err)
	}
	w, err := audit.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := w.Recovery()
	if r.TornBytes != int64(len(`{"args":{"path":"/etc/pas`)) || r.LastSeq != 4 {
		t.Errorf("recovery %+v", r)
	}
	w.Close()
	data, _ := os.ReadFile(path)
	sum, err := audit.Verify(bytes.NewReader(data), nil)
	if err != nil || sum.Events != 5 {
		t.Fatalf("after repair: %v, %d events", err, sum.Events)
	}
	// The repair itself is logged in the chain.
	lastLine := data[bytes.LastIndexByte(data[:len(data)-1], '\n')+1:]
	if !bytes.Contains(lastLine, []byte(`"event":"AUDIT_RECOVERED"`)) || !bytes.Contains(lastLine, []byte(`"torn_bytes":25`)) {
		t.Errorf("recovery event: %s", lastLine)
	}
}

func TestOpenRefusesBrokenChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w := writeN(t, path, nil, 4)
	w.Close()
	data, _ := os.ReadFile(path)
	tampered := bytes.Replace(data, []byte("read_file"), []byte("READ_FILE"), 1)
	os.WriteFile(path, tampered, 0o600)
	_, err := audit.Open(path, nil)
	var ce *audit.ChainError
	if !errors.As(err, &ce) || ce.Kind != audit.KindTampered || ce.Line != 2 || ce.File != path {
		t.Fatalf("Open on a tampered log: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, tampered) {
		t.Fatal("Open changed a broken log")
	}
	// Garbage appended after complete lines is not a torn write: refused too.
	os.WriteFile(path, data, 0o600)
	appendFile(t, path, "not an event\n")
	if _, err := audit.Open(path, nil); !errors.Is(err, &audit.ChainError{Kind: audit.KindTrailingGarbage}) {
		t.Fatalf("Open on trailing garbage: %v", err)
	}
}

func TestOpenNewChainOnBroken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	w := writeN(t, path, &audit.Options{MaxLineBytes: 1024, MaxFileBytes: 2048}, 12)
	w.Close()
	old, _ := audit.Files(path)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte(`"seq":`), []byte(`"seq": `), 1), 0o600) // still valid, but...
	w0, err := audit.Open(path, nil)
	if err != nil {
		t.Fatalf("whitespace is not tampering: %v", err)
	}
	w0.Close()
	os.WriteFile(path, append(data[:len(data)/2:len(data)/2], "\n"...), 0o600) // cut mid-line, then a newline
	w, err = audit.Open(path, &audit.Options{NewChainOnBroken: true, Clock: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	r := w.Recovery()
	w.Close()
	if !r.NewChain || r.Broken == nil || !strings.HasSuffix(r.MovedTo, ".broken.20260120T103045.123Z") {
		t.Fatalf("recovery %+v", r)
	}
	moved, _ := audit.Files(r.MovedTo)
	if len(moved) != len(old) {
		t.Errorf("moved %d files, had %d", len(moved), len(old))
	}
	files, _ := audit.Files(path)
	sum, err := audit.VerifyFiles(files, nil)
	if err != nil || sum.Events != 1 || sum.FirstSeq != 1 {
		t.Fatalf("new chain: %v %+v", err, sum)
	}
	line, _ := os.ReadFile(path)
	if !bytes.Contains(line, []byte(`"event":"AUDIT_CHAIN_STARTED"`)) || !bytes.Contains(line, []byte("trailing garbage")) {
		t.Errorf("chain start event: %s", line)
	}
}

// A crash between renaming the full file and creating the next one leaves
// only rotated files: Open continues from the last of them.
func TestOpenAfterRotationCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w := writeN(t, path, nil, 3)
	last := w.Last()
	w.Close()
	if err := os.Rename(path, path+".00000000000000000003"); err != nil {
		t.Fatal(err)
	}
	w = writeN(t, path, nil, 2)
	w.Close()
	if w.Recovery().LastSeq != last.Seq {
		t.Errorf("recovered from seq %d, want %d", w.Recovery().LastSeq, last.Seq)
	}
	files, _ := audit.Files(path)
	if sum, err := audit.VerifyFiles(files, nil); err != nil || sum.Events != 5 {
		t.Fatalf("%v %+v", err, sum)
	}
}

func TestOpenDetectsLogCutBelowCheckpoint(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	o := &audit.Options{Signer: priv, CheckpointEvery: 2}
	w := writeN(t, path, o, 6)
	w.Close()
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(path, bytes.Join(lines[:4], nil), 0o600) // events 5 and 6 deleted
	if _, err := audit.Open(path, o); !errors.Is(err, &audit.ChainError{Kind: audit.KindTruncated}) {
		t.Fatalf("Open on a log cut below its checkpoint: %v", err)
	}
}

func TestLongTailIsNotTorn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w := writeN(t, path, &audit.Options{MaxLineBytes: 512}, 2)
	w.Close()
	appendFile(t, path, strings.Repeat("x", 600)) // longer than any event
	if _, err := audit.Open(path, &audit.Options{MaxLineBytes: 512}); !errors.Is(err, audit.ErrChainBroken) {
		t.Fatalf("Open cut %d bytes of garbage as if torn: %v", 600, err)
	}
}
