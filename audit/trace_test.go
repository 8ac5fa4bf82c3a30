package audit_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

const (
	traceA = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanA  = "00f067aa0ba902b7"
)

// tracedLog writes sample events, every other one with a trace context.
func tracedLog(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Clock: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		e := sampleEvent(i)
		if i%2 == 0 {
			e.TraceID, e.SpanID = traceA, spanA
		}
		if err := w.Write(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestTraceFieldsInChain: trace_id and span_id are written in canonical
// member order (the reference verifier agrees), are hashed (changing one
// breaks the chain), and Verify reports them per event through Each.
func TestTraceFieldsInChain(t *testing.T) {
	log := tracedLog(t, 8)
	if n, bad := refVerify(log); bad != 0 || n != 8 {
		t.Fatalf("reference verifier: %d events, first bad line %d", n, bad)
	}
	if !bytes.Contains(log, []byte(`"seq":1,"span_id":"`+spanA+`","timestamp"`)) ||
		!bytes.Contains(log, []byte(`"trace_id":"`+traceA+`"`)) {
		t.Fatalf("trace members missing or out of canonical order:\n%s", log)
	}
	var got []audit.Verified
	sum, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{Each: func(v audit.Verified) { got = append(got, v) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Traced != 4 || len(got) != 8 {
		t.Fatalf("Traced %d, Each called %d times", sum.Traced, len(got))
	}
	for i, v := range got {
		wantT, wantS := "", ""
		if i%2 == 0 {
			wantT, wantS = traceA, spanA
		}
		if v.Seq != uint64(i+1) || v.Line != i+1 || v.TraceID != wantT || v.SpanID != wantS || !strings.HasPrefix(v.Hash, "sha256:") {
			t.Errorf("event %d: %+v", i, v)
		}
	}
	for _, old := range []string{traceA, spanA} {
		forged := bytes.Replace(log, []byte(old), []byte(strings.Repeat("f", len(old))), 1)
		_, err := audit.Verify(bytes.NewReader(forged), nil)
		var ce *audit.ChainError
		if !errors.As(err, &ce) || ce.Kind != audit.KindTampered || ce.Seq != 1 {
			t.Errorf("changed %s: got %v, want tampered at seq 1", old, err)
		}
	}
}

// TestUntracedLogUnchanged: events without a trace context are written as
// before (no new members), so logs written before trace ids existed verify
// and hash the same.
func TestUntracedLogUnchanged(t *testing.T) {
	log := makeLog(t, 4)
	if bytes.Contains(log, []byte("trace_id")) || bytes.Contains(log, []byte("span_id")) {
		t.Fatalf("untraced events carry trace members:\n%s", log)
	}
	sum, err := audit.Verify(bytes.NewReader(log), nil)
	if err != nil || sum.Traced != 0 || sum.Events != 4 {
		t.Fatalf("%+v %v", sum, err)
	}
}

// TestTee writes to every sink in order and stops at the first failure.
func TestTee(t *testing.T) {
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Clock: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	var seen []uint64
	rec := sinkFunc(func(_ context.Context, e *audit.Event) error { seen = append(seen, e.Seq); return nil })
	boom := errors.New("down")
	fail := sinkFunc(func(context.Context, *audit.Event) error { return boom })
	if err := audit.Tee(w, rec).Write(context.Background(), sampleEvent(0)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != 1 {
		t.Fatalf("second sink saw %v, want the chained event seq 1", seen)
	}
	if err := audit.Tee(fail, rec).Write(context.Background(), sampleEvent(1)); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the first sink's error", err)
	}
	if len(seen) != 1 {
		t.Fatalf("a sink after a failed one was written: %v", seen)
	}
}

type sinkFunc func(context.Context, *audit.Event) error

func (f sinkFunc) Write(ctx context.Context, e *audit.Event) error { return f(ctx, e) }
