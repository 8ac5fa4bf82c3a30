package jcs

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// canonNumber canonicalizes one number token.
func canonNumber(t testing.TB, tok string) (string, error) {
	t.Helper()
	c := asWritten()
	err := c.transform([]byte(tok))
	return string(c.out), err
}

// TestCanonExactNumbersKeepJCSForm: a number a double holds exactly is
// written as RFC 8785 writes it, byte for byte as jcs.Transform does, alone
// and inside an object.
func TestCanonExactNumbersKeepJCSForm(t *testing.T) {
	for _, tok := range []string{
		"1e21", "0.1", "5e-324", "-0", "1E+2", "9007199254740992", "-0.0", "1.0", "100e-2", "1e-7",
		"-1.25e-10", "1.5e300", "123456789012345", "1234567890123456", "0.000001", "1e+23",
		"1.7976931348623157e308", "2.2250738585072014e-308", "0." + strings.Repeat("0", 50) + "1e52",
		"1." + strings.Repeat("0", MaxLen-2), // 1 in exactly MaxLen bytes
	} {
		want, err := jcs.Transform([]byte(tok))
		if err != nil {
			t.Fatalf("jcs rejects %.40q: %v", tok, err)
		}
		got, err := canonNumber(t, tok)
		if err != nil || got != string(want) {
			t.Errorf("%.40q: got %s (%v), want the RFC 8785 form %s", tok, got, err, want)
		}
		in := `{"n":` + tok + `,"m":[` + tok + `]}`
		want, _ = jcs.Transform([]byte(in))
		c := asWritten()
		if err := c.transform([]byte(in)); err != nil || !bytes.Equal(c.out, want) {
			t.Errorf("%.40q in an object: got %s (%v), want %s", tok, c.out, err, want)
		}
	}
}

// TestCanonInexactNumbersVerbatim: a number a double would change is kept
// exactly as written, where RFC 8785 would round it (or reject it).
func TestCanonInexactNumbersVerbatim(t *testing.T) {
	for _, tok := range []string{
		"12345678901234567891", "-12345678901234567891", "12345678901234567891.0", "9007199254740993", "12345678901234567890",
		"1.00000000000000000001", "0.10000000000000000555", "1e400", "-1e400", "1e-400", "1e-999999",
		"1e+99999999999999999999", "1.23456789012345e-320", "0." + strings.Repeat("0", 319) + "123456789012345",
		"0e-2000",                            // zero, but its exponent is beyond what ExactDouble evaluates
		"1." + strings.Repeat("0", MaxLen-1), // 1, but longer than MaxLen
		strings.Repeat("9", 5000), "-" + strings.Repeat("1", 2000) + ".5e-3",
	} {
		got, err := canonNumber(t, tok)
		if err != nil || got != tok {
			t.Errorf("%.40q: got %.40s (%v), want it verbatim", tok, got, err)
		}
	}
}

// TestCanonNumbersStillChecked: keeping a number verbatim comes after the
// grammar check; what is not a JSON number is still refused.
func TestCanonNumbersStillChecked(t *testing.T) {
	for _, tok := range []string{
		"012345678901234567891", "+12345678901234567891", "12345678901234567891.", ".5e400", "1e400.",
		"1e+-400", "0x12345678901234567891", "1_2345678901234567891", "12345678901234567891a", "--1e400",
		strings.Repeat("9", 5000) + "e", "NaN", "-Infinity",
	} {
		if got, err := canonNumber(t, tok); err == nil {
			t.Errorf("%.40q accepted as %.40s", tok, got)
		}
	}
}

// idempotenceCases mixes exact, inexact, long and odd numbers with the
// structures around them.
var idempotenceCases = []string{
	`0`, `-0`, `-0.0e-5`, `1E+2`, `1e21`, `1e+21`, `5e-324`, `0.1`, `9007199254740993`, `12345678901234567891`,
	`{"amount":12345678901234567891,"fee":0.10,"n":[1e400,-1e-400,2.50]}`, `[1.0000000000000000000001e-5]`,
	`{"b":{"y":1e-999999,"x":9007199254740992.0},"a":[-12345678901234567891e-3]}`,
	`[` + strings.Repeat("7", 1100) + `,1.` + strings.Repeat("0", 1100) + `,1.` + strings.Repeat("0", 1000) + `]`,
	`{"seq":1.0000000000000000001,"z":"12345678901234567891"}`,
}

// TestCanonIdempotent: canonicalizing canonical output changes nothing, as
// the verifier relies on when it re-canonicalizes stored lines.
func TestCanonIdempotent(t *testing.T) {
	for _, in := range idempotenceCases {
		c := asWritten()
		if err := c.transform([]byte(in)); err != nil {
			t.Fatalf("%.60q: %v", in, err)
		}
		once := bytes.Clone(c.out)
		if err := c.transform(once); err != nil || !bytes.Equal(c.out, once) {
			t.Errorf("%.60q: %.60s canonicalizes to %.60s (%v)", in, once, c.out, err)
		}
		checkCanon(t, []byte(in))
	}
}

// TestCanonSmallIntegersDoNotAllocate: integers of at most 15 digits stay on
// the fast path.
func TestCanonSmallIntegersDoNotAllocate(t *testing.T) {
	c := asWritten()
	in := []byte(`{"a":123456789012345,"b":-123456789012345,"c":[0,-0,1,-1,42]}`)
	if err := c.transform(in); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { c.transform(in) }); n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

// FuzzCanonicalNumbers: for any token canon accepts as a number, the output
// is a JSON number denoting the same value as the input (checked with
// big.Rat, independently of jsonnum), which canon leaves as it is; it is the
// RFC 8785 form whenever ExactDouble holds, and the token itself
// otherwise. Two tokens denoting different values therefore never share a
// canonical form.
func FuzzCanonicalNumbers(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "1e21", "0.1", "5e-324", "1E+2", "9007199254740992", "9007199254740993",
		"12345678901234567891", "1.00000000000000000001", "1e400", "1e-400", "0e-2000", "-0.0e+0",
		"0.10000000000000000555", "1.23456789012345e-320", "2.2250738585072011e-308",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := canonNumber(t, in)
		if err != nil {
			return
		}
		tok := strings.Trim(in, " \t\n\r") // JSON whitespace around the value
		if tok[0] != '-' && (tok[0] < '0' || tok[0] > '9') {
			return // not a number
		}
		if !isJSONNumber(tok) || !isJSONNumber(got) {
			t.Fatalf("%q canonicalizes to %q, not both JSON numbers", tok, got)
		}
		if again, err := canonNumber(t, got); err != nil || again != got {
			t.Fatalf("%q: %q canonicalizes to %q (%v)", tok, got, again, err)
		}
		if !ExactDouble(tok) {
			if got != tok {
				t.Fatalf("%q is not exact but canonicalizes to %q", tok, got)
			}
			return
		}
		want, err := jcs.Transform([]byte(tok))
		if err != nil || got != string(want) {
			t.Fatalf("%q: got %q, want the RFC 8785 form %q (%v)", tok, got, want, err)
		}
		var a, b big.Rat
		if _, ok := a.SetString(tok); !ok {
			t.Fatalf("big.Rat cannot read %q", tok)
		}
		if _, ok := b.SetString(got); !ok {
			t.Fatalf("big.Rat cannot read %q", got)
		}
		if a.Cmp(&b) != 0 {
			t.Fatalf("%q canonicalizes to %q, a different value", tok, got)
		}
	})
}

func isJSONNumber(s string) bool {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if d.Decode(&v) != nil || d.InputOffset() != int64(len(s)) {
		return false
	}
	_, ok := v.(json.Number)
	return ok
}
