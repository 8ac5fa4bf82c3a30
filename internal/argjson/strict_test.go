package argjson_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/argjson"
	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// TestDecodeStrictRefusesNamesReadersDisagreeOn: DecodeStrict refuses what
// internal/jcs's strict rule refuses for member names (two equal names, or
// names equal under case folding, at any depth) and decodes everything
// else exactly as Decode does.
func TestDecodeStrictRefusesNamesReadersDisagreeOn(t *testing.T) {
	refused := []string{
		`{"a":1,"a":2}`,
		`{"a":1,"\u0061":2}`,
		`{"x":{"a":1,"a":2}}`,
		`{"x":[1,{"a":1,"a":2}]}`,
		`{"path":"/etc/passwd","PATH":"/tmp/junk"}`,
		"{\"k\":1,\"\u212a\":2}",
		"{\"s\":1,\"\u017f\":2}",
		"{\"p\xffth\":1,\"p\xfeth\":2}", // both decode to U+FFFD
	}
	for _, in := range refused {
		if _, err := argjson.DecodeStrict([]byte(in)); !errors.Is(err, argjson.ErrDuplicateName) {
			t.Errorf("DecodeStrict(%q) = %v, want ErrDuplicateName", in, err)
		}
		if _, err := jcs.Transform([]byte(in), jcs.Strict); err == nil {
			t.Errorf("jcs accepts %q, which DecodeStrict refuses", in)
		}
	}
	kept := []string{
		`{}`, `{"a":1,"b":{"a":2},"c":[{"a":3}]}`, `{"Path":1,"paths":2}`,
		`{"straße":1,"strasse":2}`, `{"env":1,"еnv":2}`, `{"A":{"B":{"C":[]}}}`,
	}
	for _, in := range kept {
		strict, err := argjson.DecodeStrict([]byte(in))
		loose, lerr := argjson.Decode([]byte(in))
		if err != nil || lerr != nil || !reflect.DeepEqual(strict, loose) {
			t.Errorf("DecodeStrict(%q) = %v, %v; Decode = %v, %v", in, strict, err, loose, lerr)
		}
	}
	for _, in := range []string{``, `[1]`, `{"a":1} x`, `{"a":}`} {
		_, err := argjson.DecodeStrict([]byte(in))
		_, lerr := argjson.Decode([]byte(in))
		if !errors.Is(err, lerr) && err.Error() != lerr.Error() {
			t.Errorf("DecodeStrict(%q) = %v, Decode %v: other errors", in, err, lerr)
		}
	}
}

// FuzzDecodeStrict: DecodeStrict is Decode, or ErrDuplicateName for text
// Decode refuses too or whose names internal/jcs's strict rule (numbers
// kept as written) refuses.
func FuzzDecodeStrict(f *testing.F) {
	for _, in := range []string{`{"a":1,"a":2}`, `{"A":1,"a":2}`, `{"x":[{"k":1,"K":2}]}`, `{"a":{"b":1}}`, "{\"\u212a\":1,\"k\":2}"} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		strict, err := argjson.DecodeStrict(in)
		loose, lerr := argjson.Decode(in)
		if errors.Is(err, argjson.ErrDuplicateName) {
			if lerr != nil {
				return // refused either way; DecodeStrict may stop at the names first
			}
			if _, jerr := jcs.Transform(in, jcs.Rule{Numbers: jcs.AsWritten}); jerr == nil {
				t.Fatalf("%q: DecodeStrict refuses names jcs accepts", in)
			}
			return
		}
		if (err == nil) != (lerr == nil) || !reflect.DeepEqual(strict, loose) {
			t.Fatalf("%q: DecodeStrict %v, %v; Decode %v, %v", in, strict, err, loose, lerr)
		}
		if err == nil && utf8.Valid(in) && !bytes.Contains(in, []byte(`\ud`)) && !bytes.Contains(in, []byte(`\uD`)) {
			if _, jerr := jcs.Transform(in, jcs.Rule{Numbers: jcs.AsWritten}); errors.Is(jerr, jcs.ErrFoldedNames) {
				t.Fatalf("%q: jcs refuses folded names DecodeStrict accepts", in)
			}
		}
	})
}
