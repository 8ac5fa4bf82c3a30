package audit_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

func Example() {
	var log bytes.Buffer
	now := time.Date(2026, 1, 20, 10, 30, 45, 123e6, time.UTC)
	w, err := audit.New(&log, &audit.Options{Clock: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	e := &audit.Event{
		Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "delete_file",
		Args: json.RawMessage(`{"path":"/etc/passwd"}`), Decision: "BLOCK", PolicyMode: "enforce",
		Violation: true, FailedArg: "path", FailedRule: "^/home/.*",
	}
	if err := w.Write(context.Background(), e); err != nil {
		panic(err)
	}
	fmt.Println(e.Seq, e.Timestamp, e.EventHash)

	sum, err := audit.Verify(&log, nil)
	fmt.Println(sum.Events, sum.Decisions, err)
	// Output:
	// 1 2026-01-20T10:30:45.123Z sha256:b56b26c7019caeef5b551a1975206ce970598355d9a3e5e49c0ab9a43a77af96
	// 1 map[BLOCK:1] <nil>
}

func ExampleVerify_tampered() {
	var log bytes.Buffer
	w, _ := audit.New(&log, &audit.Options{Clock: func() time.Time { return time.Unix(0, 0) }})
	for _, tool := range []string{"read_file", "write_file", "read_file"} {
		w.Write(context.Background(), &audit.Event{Decision: "ALLOW", Tool: tool})
	}
	edited := bytes.Replace(log.Bytes(), []byte("write_file"), []byte("list_files"), 1)

	_, err := audit.Verify(bytes.NewReader(edited), nil)
	var ce *audit.ChainError
	if errors.As(err, &ce) {
		fmt.Println(ce.Kind, "at line", ce.Line, errors.Is(err, audit.ErrChainBroken))
	}
	// Output: tampered event at line 2 true
}

func ExampleVerifyOptions_checkpoints() {
	seed := sha256.Sum256([]byte("example key"))
	key := ed25519.NewKeyFromSeed(seed[:])
	var log, checkpoints bytes.Buffer
	w, _ := audit.New(&log, &audit.Options{
		Clock:  func() time.Time { return time.Unix(0, 0) },
		Signer: key, Checkpoints: &checkpoints, CheckpointEvery: 2,
	})
	for i := 0; i < 4; i++ {
		w.Write(context.Background(), &audit.Event{Decision: "ALLOW", Tool: "read_file"})
	}
	// Someone deletes the last event: the chain alone cannot tell.
	cut := log.Bytes()[:bytes.LastIndexByte(log.Bytes()[:log.Len()-1], '\n')+1]
	_, err := audit.Verify(bytes.NewReader(cut), nil)
	fmt.Println(err)
	_, err = audit.Verify(bytes.NewReader(cut), &audit.VerifyOptions{
		PublicKey: key.Public().(ed25519.PublicKey), Checkpoints: &checkpoints,
	})
	fmt.Println(err)
	// Output:
	// <nil>
	// audit: checkpoints: line 2: seq 4: truncated log: a signed checkpoint covers events the log does not have (want seq 4, got last seq 3)
}

func ExampleRedactorFunc() {
	// A DLP scanner with RedactJSON(raw) ([]byte, []Finding, error) fits in one line.
	scanner := fakeScanner{}
	redactor := audit.RedactorFunc(func(raw []byte) ([]byte, error) { out, _, err := scanner.RedactJSON(raw); return out, err })

	var log bytes.Buffer
	w, _ := audit.New(&log, &audit.Options{Redactor: redactor, Clock: func() time.Time { return time.Unix(0, 0) }})
	w.Write(context.Background(), &audit.Event{Decision: "ALLOW", Args: json.RawMessage(`{"key":"AKIAIOSFODNN7EXAMPLE"}`)})
	fmt.Println(bytes.Contains(log.Bytes(), []byte(`"args":{"key":"[REDACTED:aws_access_key]"}`)))
	// Output: true
}

type fakeScanner struct{}

func (fakeScanner) RedactJSON(raw []byte) ([]byte, []string, error) {
	return bytes.ReplaceAll(raw, []byte("AKIAIOSFODNN7EXAMPLE"), []byte("[REDACTED:aws_access_key]")), []string{"aws_access_key"}, nil
}
