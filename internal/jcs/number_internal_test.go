package jcs

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExactDouble(t *testing.T) {
	for _, c := range []struct {
		n    string
		want bool
	}{
		{"0", true},
		{"-0", true},
		{"1", true},
		{"-12.5", true},
		{"0.1", true},    // not a dyadic fraction, but the double's shortest form
		{"1e21", true},   // JCS writes 1e+21; same value
		{"1E+2", true},   // 100
		{"5e-324", true}, // smallest subnormal, shortest form
		{"1e308", true},  // near the top of the range
		{"123456789012345", true},
		{"9007199254740992", true},  // 2^53
		{"9007199254740993", false}, // 2^53+1 rounds to 2^53
		{"12345678901234567891", false},
		{"0.10000000000000000555", false}, // the double nearest 0.1 has more digits; not its shortest form
		{"0.1000000000000000", true},      // trailing zeros keep the value
		{"1e400", false},                  // overflows
		{"1e-400", false},                 // underflows to 0, a different value
		{"0e-5", true},
		// Two 15-digit subnormals that round to one double: without an
		// exponent they are long texts and must be checked, not trusted.
		{"0." + strings.Repeat("0", 319) + "123456789012345", false},
		{"1.23456789012345e-320", false},
		{"1e-999999", false},
		{"1e+99999999999999999999", false},
		// Not JSON numbers: refused, never evaluated.
		{"", false},
		{"-", false},
		{"+1", false},
		{"01", false},
		{"1.", false},
		{".5", false},
		{"1e", false},
		{"1e+", false},
		{"0x10", false},
		{"1_000", false},
		{"NaN", false},
		{"Infinity", false},
		{" 1", false},
		{"1 ", false},
		{"1/3", false},
		{"1.5e3.2", false},
	} {
		if got := ExactDouble(c.n); got != c.want {
			t.Errorf("ExactDouble(%.40q) = %v, want %v", c.n, got, c.want)
		}
	}
}

func TestExactDoubleLength(t *testing.T) {
	// "1.000…0" denotes 1 exactly; it is accepted up to MaxLen bytes and
	// refused beyond, whatever its value.
	long := func(n int) string { return "1." + strings.Repeat("0", n-2) }
	if !ExactDouble(long(MaxLen)) {
		t.Fatalf("a %d-byte exact number was refused", MaxLen)
	}
	if ExactDouble(long(MaxLen + 1)) {
		t.Fatalf("a %d-byte number was accepted", MaxLen+1)
	}
	if ExactDouble(strings.Repeat("9", 100_000)) {
		t.Fatal("a 100,000-digit number was accepted")
	}
}

// TestExactDoubleMatchesDecoder checks the grammar against encoding/json:
// every text ExactDouble accepts is a valid JSON number.
func TestExactDoubleMatchesDecoder(t *testing.T) {
	for _, n := range []string{"0", "-0", "1e5", "1E-5", "0.5", "-0.0e+0", "00", "1.e5", "-", "1ee5", "2e+-3"} {
		var v json.Number
		valid := json.Unmarshal([]byte(n), &v) == nil
		if ExactDouble(n) && !valid {
			t.Errorf("ExactDouble accepted %q, which is not a JSON number", n)
		}
	}
}

func FuzzExactDouble(f *testing.F) {
	for _, s := range []string{"0", "1e5", "9007199254740993", "0.1", "1e-400", "-12.5e+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		if !ExactDouble(n) {
			return
		}
		var v json.Number
		if err := json.Unmarshal([]byte(n), &v); err != nil {
			t.Fatalf("accepted %q, not a JSON number: %v", n, err)
		}
		// An accepted text must print back, through float64, as a text that
		// is accepted too and denotes the same double.
		f, err := v.Float64()
		if err != nil {
			t.Fatalf("accepted %q, which does not parse: %v", n, err)
		}
		b, _ := json.Marshal(f)
		if !ExactDouble(string(b)) {
			t.Fatalf("accepted %q but not its float64 form %s", n, b)
		}
	})
}

func BenchmarkExactDouble(b *testing.B) {
	for _, c := range []struct{ name, n string }{
		{"short", "12345.678"},
		{"17digits", "12345678901234567"},
		{"exponent", "1.5e300"},
		{"maxlen", "1." + strings.Repeat("0", MaxLen-2)},
		{"hugeExponent", "1e-999999"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ExactDouble(c.n)
			}
		})
	}
}
