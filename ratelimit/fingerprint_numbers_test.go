package ratelimit_test

import (
	"encoding/json"
	"testing"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestFingerprintDistinctBigIDs (fault 8): two different ids that round to
// the same IEEE-754 double must not share a loop fingerprint, whether they
// arrive as json.Number, raw JSON or Go integers; equal values spelled
// differently still do.
func TestFingerprintDistinctBigIDs(t *testing.T) {
	fp := func(args any) ratelimit.Fingerprint {
		t.Helper()
		f, err := ratelimit.FingerprintOf("get_order", args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return f
	}
	for _, pair := range [][2]any{
		{map[string]any{"id": json.Number("12345678901234567891")}, map[string]any{"id": json.Number("12345678901234567890")}},
		{json.RawMessage(`{"id":9007199254740993}`), json.RawMessage(`{"id":9007199254740992}`)},
		{map[string]any{"id": int64(9007199254740993)}, map[string]any{"id": int64(9007199254740992)}},
		{map[string]any{"id": uint64(18446744073709551615)}, map[string]any{"id": uint64(18446744073709551614)}},
	} {
		if fp(pair[0]) == fp(pair[1]) {
			t.Errorf("%v and %v share a fingerprint", pair[0], pair[1])
		}
	}
	same := [][2]any{
		{map[string]any{"n": json.Number("1.0")}, map[string]any{"n": 1}},
		{json.RawMessage(`{"id":12345678901234567891}`), map[string]any{"id": json.Number("12345678901234567891")}},
		{map[string]any{"id": int64(9007199254740993)}, map[string]any{"id": json.Number("9007199254740993")}},
	}
	for _, pair := range same {
		if fp(pair[0]) != fp(pair[1]) {
			t.Errorf("%v and %v: equal values, different fingerprints", pair[0], pair[1])
		}
	}
}
