package audit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// writeLog writes events to a new log with the test clock and returns the
// log.
func writeLog(t testing.TB, o *audit.Options, events ...*audit.Event) []byte {
	t.Helper()
	if o == nil {
		o = &audit.Options{}
	}
	o.Clock = stepClock()
	var buf bytes.Buffer
	w, err := audit.New(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := w.Write(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func callWith(args string) *audit.Event {
	return &audit.Event{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "transfer",
		Args: json.RawMessage(args), Decision: "ALLOW", PolicyMode: "enforce"}
}

// verifyBoth runs Verify and the reference verifier on an intact log.
func verifyBoth(t *testing.T, log []byte) {
	t.Helper()
	if _, err := audit.Verify(bytes.NewReader(log), nil); err != nil {
		t.Errorf("Verify: %v\n%s", err, log)
	}
	if _, bad := refVerify(log); bad != 0 {
		t.Errorf("reference verifier: line %d is bad\n%s", bad, log)
	}
}

// TestArgsBigIntegerLoggedExactly: an integer beyond double precision is
// logged as the call carried it, not as the nearest double.
func TestArgsBigIntegerLoggedExactly(t *testing.T) {
	log := writeLog(t, nil, callWith(`{"to":"acct-7","amount":12345678901234567891}`))
	if !bytes.Contains(log, []byte(`"args":{"amount":12345678901234567891,"to":"acct-7"}`)) {
		t.Fatalf("the amount is not logged as given:\n%s", log)
	}
	verifyBoth(t, log)
}

// TestArgsBeyondDoublePrecisionDiffer: two calls that differ only beyond
// double precision give different lines and hashes, logged or hashed.
func TestArgsBeyondDoublePrecisionDiffer(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"amount":12345678901234567891}`, `{"amount":12345678901234567892}`},
		{`{"amount":9007199254740993}`, `{"amount":9007199254740992}`},
		{`{"ratio":1.00000000000000000001}`, `{"ratio":1}`},
		{`{"tiny":1e-400}`, `{"tiny":0}`},
		{`{"id":[123456789012345678901234567890]}`, `{"id":[123456789012345678901234567891]}`},
	} {
		for _, o := range []*audit.Options{nil, {HashArgs: true}, {HashArgs: true, ArgHashKey: []byte("k")}} {
			var lines [2][]byte
			var hashes [2]string
			for i, args := range pair {
				e := callWith(args)
				log := writeLog(t, o, e)
				verifyBoth(t, log)
				lines[i], hashes[i] = log, e.EventHash
			}
			if bytes.Equal(lines[0], lines[1]) || hashes[0] == hashes[1] {
				t.Errorf("%s and %s (HashArgs %v) log alike:\n%s", pair[0], pair[1], o != nil && o.HashArgs, lines[0])
			}
		}
	}
}

// TestTamperedVerbatimNumberDetected: changing the last digit of a number
// kept verbatim breaks the event's hash, though both numbers round to the
// same double.
func TestTamperedVerbatimNumberDetected(t *testing.T) {
	const was, now = "98765432109876543211", "98765432109876543212"
	a, _ := strconv.ParseFloat(was, 64)
	b, _ := strconv.ParseFloat(now, 64)
	if a != b {
		t.Fatal("the numbers must round to one double for this test to mean anything")
	}
	log := writeLog(t, nil, sampleEvent(1), callWith(`{"amount":`+was+`}`), sampleEvent(2))
	verifyBoth(t, log)
	bad := bytes.Replace(log, []byte(was), []byte(now), 1)
	if bytes.Equal(bad, log) {
		t.Fatal("nothing replaced")
	}
	_, err := audit.Verify(bytes.NewReader(bad), nil)
	var ce *audit.ChainError
	if !errors.As(err, &ce) || ce.Kind != audit.KindTampered || ce.Line != 2 {
		t.Fatalf("got %v, want a tampered event at line 2", err)
	}
	if _, line := refVerify(bad); line != 2 {
		t.Errorf("reference verifier flags line %d, want 2", line)
	}
}

// TestLongNumberKeptVerbatim: a number longer than jcs.MaxLen (1024
// bytes) is kept as written even when it denotes a value a double holds;
// up to 1024 bytes it gets its RFC 8785 form.
func TestLongNumberKeptVerbatim(t *testing.T) {
	long := "1." + strings.Repeat("0", 1023) // 1025 bytes, denotes 1
	fits := "2." + strings.Repeat("0", 1022) // 1024 bytes, denotes 2
	log := writeLog(t, nil, callWith(`{"long":`+long+`,"fits":`+fits+`}`))
	if !bytes.Contains(log, []byte(`"args":{"fits":2,"long":`+long+`}`)) {
		t.Fatalf("args not logged as expected:\n%.300s", log)
	}
	verifyBoth(t, log)
}

// TestIntegerFieldsBeyondDoubleVerify: integer members the Writer formats
// itself (response_time_ms, dlp_match_count) and integers in metadata are
// logged exactly and verify, whatever their size.
func TestIntegerFieldsBeyondDoubleVerify(t *testing.T) {
	e := &audit.Event{Direction: audit.DirectionDownstream, Event: "DLP_TRIGGERED", DLPRule: "r",
		DLPMatchCount: 1<<62 + 1, ResponseTimeMS: 1<<53 + 1,
		Metadata: map[string]any{"big": uint64(1<<64 - 1), "neg": int64(-1<<63 + 1), "num": json.Number("12345678901234567891")}}
	log := writeLog(t, nil, e)
	for _, want := range []string{`"dlp_match_count":4611686018427387905`, `"response_time_ms":9007199254740993`,
		`"big":18446744073709551615`, `"neg":-9223372036854775807`, `"num":12345678901234567891`} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("%s not in the line:\n%s", want, log)
		}
	}
	verifyBoth(t, log)
}
