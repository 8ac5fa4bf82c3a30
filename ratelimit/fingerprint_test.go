package ratelimit_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func TestFingerprintIsJCSOfToolAndArguments(t *testing.T) {
	got, err := ratelimit.FingerprintOf("read_file", map[string]any{"path": "/tmp/a", "lines": 10.0})
	if err != nil {
		t.Fatal(err)
	}
	// RFC 8785 by hand: keys sorted, no spaces, 10.0 written as 10.
	want := sha256.Sum256([]byte(`{"arguments":{"lines":10,"path":"/tmp/a"},"tool":"read_file"}`))
	if got != want {
		t.Fatalf("fingerprint %s, want %x", got, want)
	}
}

func TestFingerprintEquivalentJSON(t *testing.T) {
	same := []any{
		map[string]any{"b": []any{1.0, "x"}, "a": true},
		map[string]any{"a": true, "b": []any{json.Number("1"), "x"}},
		json.RawMessage(`{ "b" : [1.00, "x"], "a" : true }`),
		map[string]any{"a": true, "b": []any{int64(1), "x"}},
	}
	first, err := ratelimit.FingerprintOf("t", same[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range same[1:] {
		if fp, err := ratelimit.FingerprintOf("t", v); err != nil || fp != first {
			t.Errorf("variant %d: %s, %v; want %s", i+1, fp, err, first)
		}
	}
	for _, v := range []any{
		map[string]any{"a": true, "b": []any{"x", 1.0}}, // array order matters
		map[string]any{"a": "true", "b": []any{1.0, "x"}},
		map[string]any{"a": true},
	} {
		if fp, _ := ratelimit.FingerprintOf("t", v); fp == first {
			t.Errorf("%v has the same fingerprint as a different value", v)
		}
	}
	if fp, _ := ratelimit.FingerprintOf("u", same[0]); fp == first {
		t.Error("the tool name is not part of the fingerprint")
	}
}

func TestFingerprintRejectsNonJSON(t *testing.T) {
	deep := any("x")
	for range 70 {
		deep = []any{deep}
	}
	for name, v := range map[string]any{
		"NaN":          math.NaN(),
		"+Inf":         map[string]any{"x": math.Inf(1)},
		"-Inf float32": []any{float32(math.Inf(-1))},
		"int keys":     map[int]any{1: "a"},
		"any keys":     map[any]any{"a": 1},
		"channel":      make(chan int),
		"func":         func() {},
		"struct":       struct{ A int }{1},
		"bad number":   json.Number("1e"),
		"folded names": map[string]any{"path": "/etc/passwd", "PATH": "/tmp/junk"},
		"not a number": json.Number("abc"),
		"bad raw":      json.RawMessage(`{"a":`),
		"bad utf8":     "\xff",
		"bad utf8 key": map[string]any{"\xff": 1},
		"too deep":     deep,
		"too big":      strings.Repeat("x", 2<<20),
	} {
		_, err := ratelimit.FingerprintOf("t", v)
		if !errors.Is(err, ratelimit.ErrActionInvalid) {
			t.Errorf("%s: %v, want ErrActionInvalid", name, err)
		}
	}
}

func FuzzFingerprint(f *testing.F) {
	f.Add(`{"a":1,"b":[true,null,"x"]}`)
	f.Add(`[1e400]`)
	f.Fuzz(func(t *testing.T, s string) {
		// Property: JSON that decodes gives a fingerprint equal to that of its
		// raw text, and fingerprinting never panics.
		fpRaw, errRaw := ratelimit.FingerprintOf("t", json.RawMessage(s))
		var v any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if d.Decode(&v) != nil || d.More() {
			return
		}
		fpVal, errVal := ratelimit.FingerprintOf("t", v)
		if (errRaw == nil) != (errVal == nil) || (errRaw == nil && fpRaw != fpVal) {
			t.Fatalf("%q: raw %s %v, decoded %s %v", s, fpRaw, errRaw, fpVal, errVal)
		}
	})
}

func TestParseContext(t *testing.T) {
	good := []struct {
		m    map[string]any
		id   string
		step int64
	}{
		{map[string]any{"conversation_id": "c", "step_number": 1.0}, "c", 1},
		{map[string]any{"conversation_id": "c", "step_number": json.Number("42")}, "c", 42},
		{map[string]any{"conversation_id": "c", "step_number": 7, "user_intent": "x"}, "c", 7},
	}
	for _, tc := range good {
		id, step, err := ratelimit.ParseContext(tc.m)
		if err != nil || id != tc.id || step != tc.step {
			t.Errorf("ParseContext(%v) = %q, %d, %v", tc.m, id, step, err)
		}
	}
	bad := []struct {
		m    map[string]any
		code ratelimit.Code
	}{
		{nil, ratelimit.CodeContextMissing},
		{map[string]any{"step_number": 1.0}, ratelimit.CodeContextMissing},
		{map[string]any{"conversation_id": "c"}, ratelimit.CodeContextMissing},
		{map[string]any{"conversation_id": "", "step_number": 1.0}, ratelimit.CodeContextMissing},
		{map[string]any{"conversation_id": 5.0, "step_number": 1.0}, ratelimit.CodeContextMissing},
		{map[string]any{"conversation_id": strings.Repeat("c", 300), "step_number": 1.0}, ratelimit.CodeContextMissing},
		{map[string]any{"conversation_id": "c", "step_number": 0.0}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": -3.0}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": 1.5}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": "1"}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": true}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": nil}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": json.Number("1e3")}, ratelimit.CodeStepInvalid},
		{map[string]any{"conversation_id": "c", "step_number": 1e300}, ratelimit.CodeStepInvalid},
	}
	for _, tc := range bad {
		_, _, err := ratelimit.ParseContext(tc.m)
		var e *ratelimit.Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("ParseContext(%.80v) = %v, want %s", tc.m, err, tc.code)
		}
	}
}
