package gatehouse_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse"
)

// TestParseTraceparent: the W3C Trace Context §3.2 grammar, with the
// spellings that must be refused next to the near misses that must pass.
func TestParseTraceparent(t *testing.T) {
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ok := map[string]byte{
		"00-" + tid + "-" + sid + "-01":            1,
		"00-" + tid + "-" + sid + "-00":            0,
		"00-" + tid + "-" + sid + "-ff":            0xff, // unknown flags are kept
		"cc-" + tid + "-" + sid + "-01":            1,    // a later version: parsed as 00
		"cc-" + tid + "-" + sid + "-01-what-the-f": 1,    // a later version may add fields
	}
	for s, flags := range ok {
		got, err := gatehouse.ParseTraceparent(s)
		if err != nil || got.TraceIDString() != tid || got.SpanIDString() != sid || got.Flags != flags {
			t.Errorf("%q: %+v %v", s, got, err)
		}
	}
	bad := []string{
		"",
		"00-" + tid + "-" + sid + "-01-", // version 00 has exactly four fields
		"00-" + tid + "-" + sid + "-01x", // trailing data
		"ff-" + tid + "-" + sid + "-01",  // version ff is invalid
		"00-00000000000000000000000000000000-" + sid + "-01", // zero trace id
		"00-" + tid + "-0000000000000000-01",                 // zero span id
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-" + sid + "-01", // uppercase
		"00-" + tid + "-" + sid + "-1",                       // short flags
		"00-" + tid[:31] + "-" + sid + "-01",                 // short trace id
		"00_" + tid + "_" + sid + "_01",                      // wrong separators
		"0g-" + tid + "-" + sid + "-01",                      // not hex
		"00-" + tid + "-" + sid + "-0g",
		"cc-" + tid + "-" + sid + "-01x", // a later version still needs a dash
		" 00-" + tid + "-" + sid + "-01", // leading space
	}
	for _, s := range bad {
		if got, err := gatehouse.ParseTraceparent(s); !errors.Is(err, gatehouse.ErrTraceparent) {
			t.Errorf("%q accepted: %+v", s, got)
		}
	}
	tc, _ := gatehouse.ParseTraceparent("00-" + tid + "-" + sid + "-01")
	if tc.Traceparent() != "00-"+tid+"-"+sid+"-01" {
		t.Errorf("round trip: %s", tc.Traceparent())
	}
}

// TestContextWithTrace refuses invalid ids rather than carrying them into
// the audit log.
func TestContextWithTrace(t *testing.T) {
	for _, bad := range []gatehouse.TraceContext{{}, {TraceID: [16]byte{1}}, {SpanID: [8]byte{1}}} {
		ctx := gatehouse.ContextWithTrace(context.Background(), bad)
		if _, ok := gatehouse.TraceFromContext(ctx); ok {
			t.Fatalf("an invalid trace context was kept: %+v", bad)
		}
	}
	want := gatehouse.TraceContext{TraceID: [16]byte{0x4b, 0xf9}, SpanID: [8]byte{7}}
	if got, ok := gatehouse.TraceFromContext(gatehouse.ContextWithTrace(context.Background(), want)); !ok || got != want {
		t.Fatalf("%+v %v", got, ok)
	}
}
