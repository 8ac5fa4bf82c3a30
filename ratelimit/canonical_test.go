package ratelimit_test

import (
	"crypto/sha256"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	ijcs "github.com/gatehouse-dev/gatehouse/internal/jcs"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// referenceFingerprint is the slow, obvious definition: json.Marshal, then
// the jcs library's RFC 8785 transform, then SHA-256.
func referenceFingerprint(t *testing.T, tool string, args any) ratelimit.Fingerprint {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"tool": tool, "arguments": args})
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	// gatehouse's canonical form of the JSON text (its text API is checked
	// against github.com/gowebpki/jcs in internal/jcs): like jcs.Transform,
	// except that a number a double does not hold is kept as written.
	canon, err := ijcs.Transform(raw, ijcs.Rule{Numbers: ijcs.AsWritten})
	if err != nil {
		t.Fatalf("jcs.Transform(%s): %v", raw, err)
	}
	return sha256.Sum256(canon)
}

func randString(rng *rand.Rand) string {
	pieces := []string{"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "€", "\u2028", "\ufeff", "😀", "𝄞", "\U0010ffff", "\ue000", "key", "ab"}
	var sb strings.Builder
	for range rng.IntN(6) {
		sb.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return sb.String()
}

func randNumber(rng *rand.Rand) any {
	switch rng.IntN(9) {
	case 0:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	case 1:
		return math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.IntN(0x7fe)+1)<<52) // any finite
	case 2:
		return float64(rng.Int64N(1<<60) - 1<<59)
	case 3:
		return rng.Int64() >> rng.IntN(63)
	case 4:
		return rng.Uint64() >> rng.IntN(63)
	case 5:
		return json.Number([]string{"1", "1.0", "-0", "1e2", "12345678901234567890", "0.000001", "1E-7", "-1.5e+300"}[rng.IntN(8)])
	case 6:
		return math.Copysign(0, -1)
	case 7:
		return float32(rng.NormFloat64())
	}
	return rng.IntN(1000)
}

func randValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(8)
	if depth > 3 {
		k = rng.IntN(4)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return randString(rng)
	case 3:
		return randNumber(rng)
	case 4, 5:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[randString(rng)] = randValue(rng, depth+1)
		}
		return m
	case 6:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randValue(rng, depth+1)
		}
		return a
	}
	raw, _ := json.Marshal(randValue(rng, depth+1))
	return json.RawMessage(raw)
}

// TestCanonicalMatchesJCS checks the fast canonical writer inside
// FingerprintOf against the reference over random JSON values.
func TestCanonicalMatchesJCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(8785, 1))
	for i := range 20_000 {
		v := randValue(rng, 0)
		tool := randString(rng)
		got, err := ratelimit.FingerprintOf(tool, v)
		if err != nil {
			t.Fatalf("case %d: FingerprintOf(%#v): %v", i, v, err)
		}
		if want := referenceFingerprint(t, tool, v); got != want {
			raw, _ := json.Marshal(v)
			canon, _ := jcs.Transform(raw)
			t.Fatalf("case %d: fingerprint of %s differs from the reference (JCS %s)", i, raw, canon)
		}
	}
}
