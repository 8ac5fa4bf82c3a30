package audit_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// benchEvent is a typical tools/call decision; its line is about 330 bytes.
func benchEvent() *audit.Event {
	return &audit.Event{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "read_file",
		Args:     json.RawMessage(`{"path":"/home/user/project/src/main.go","limit":200}`),
		Decision: "ALLOW", PolicyMode: "enforce"}
}

func openBench(b *testing.B, o *audit.Options) *audit.Writer {
	b.Helper()
	w, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

func reportEvents(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWriteBuffered: chained writes to a file, DurabilityNone (target
// >= 200,000 events/s).
func BenchmarkWriteBuffered(b *testing.B) {
	w := openBench(b, nil)
	e := benchEvent()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	reportEvents(b)
}

func BenchmarkWriteBufferedParallel(b *testing.B) {
	w := openBench(b, nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		e := benchEvent()
		for pb.Next() {
			if err := w.Write(ctx, e); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportEvents(b)
}

// BenchmarkWriteGroupCommit: DurabilityGroup with 8 concurrent writers
// (target >= 10,000 events/s).
func BenchmarkWriteGroupCommit(b *testing.B) {
	w := openBench(b, &audit.Options{Durability: audit.DurabilityGroup})
	b.ReportAllocs()
	b.SetParallelism(max(1, 8/runtimeProcs()))
	b.RunParallel(func(pb *testing.PB) {
		e := benchEvent()
		for pb.Next() {
			if err := w.Write(ctx, e); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportEvents(b)
}

// BenchmarkWriteFsync: one fsync per event, one writer, for comparison.
func BenchmarkWriteFsync(b *testing.B) {
	w := openBench(b, &audit.Options{Durability: audit.DurabilitySync})
	e := benchEvent()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	reportEvents(b)
}

func BenchmarkWriteHashArgs(b *testing.B) {
	w := openBench(b, &audit.Options{HashArgs: true})
	e := benchEvent()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	reportEvents(b)
}

// BenchmarkVerify: throughput in MB/s over a 10,000-event log.
func BenchmarkVerify(b *testing.B) {
	var log bytes.Buffer
	w, _ := audit.New(&log, nil)
	e := benchEvent()
	for i := 0; i < 10000; i++ {
		w.Write(ctx, e)
	}
	data := log.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := audit.Verify(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}
