package jcs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// canonCases are inputs where a hand-written canonicalizer is likely to go
// wrong; each is checked against refCanon (github.com/gowebpki/jcs, with the
// numbers a double does not hold kept as written).
var canonCases = []string{
	`{}`, `[]`, `null`, `true`, `0`, `-0`, `1`, `-1`, `123456789012345`, `1234567890123456`,
	`12345678901234567890`, `1e21`, `1E-7`, `0.000001`, `1.5e300`, `-1.25e-10`, `1.0`, `100e-2`,
	`9007199254740993`, `1e400`, `1e-400`, `01`, `-`, `1.`, `.5`, `+1`, `1e`, `0x10`, `NaN`, `Infinity`,
	`"a\u0000b"`, `"\u001f\u007f\u0080"`, `"\/\b\f\n\r\t\"\\"`, `"\uD83D\uDE00"`, `"\ud83d\ude00"`,
	`"\uDE00"`, `"\uD83D"`, `"\uD83Dx"`, `"\uD83D\u0041"`, `"é€𝄞"`, "\"\xff\"", "\"\xed\xa0\x80\"",
	`"\u00e9"`, `"\u2028\u2029"`, `"<>&"`, "\"a\tb\"", `"\x"`, `"\u12G4"`, `"unterminated`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\u20ac":1,"\r":2,"1":3,"\u0080":4,"\ud83d\ude00":5,"\ufb33":6}`,
	`{"a":{"d":1,"c":[{"f":1,"e":2}]},"b":[3,2,1]}`, ` { "a" : [ 1 , 2 ] } `, "\t{\"a\":1}\n",
	`{"a":1,}`, `{,"a":1}`, `[1,]`, `[,1]`, `[1 2]`, `{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1}x`, `{"a":1} {}`,
	`[tru]`, `[true1]`, `[null,false]`, `"`, ``, ` `, `[`, `{"a":[}`, `{"é":1,"e":2,"z":3}`,
	`[1,"2",{"3":[4]}]`, `{"":1," ":2}`, "[1\u00a0]",
	`12345678901234567891`, `-12345678901234567891`, `1.00000000000000000001`, `1e-999999`, `1e+99999999999999999999`,
	`0e-2000`, `[9007199254740993,9007199254740992,-0.0,0.1e1,1E+2]`, `{"b":1e400,"a":-1e400}`, `[1e400x]`, `[-1e400.]`,
}

func TestCanonMatchesReference(t *testing.T) {
	for _, in := range canonCases {
		checkCanon(t, []byte(in))
	}
}

// checkCanon checks canon against refCanon on in, and that what canon
// accepts it turns into valid JSON that it leaves as it is.
func checkCanon(t *testing.T, in []byte) {
	t.Helper()
	want, werr := refCanon(in)
	c := asWritten()
	err := c.transform(in)
	switch {
	case err == nil && werr != nil:
		t.Errorf("%q: accepted, the reference rejects: %v", in, werr)
	case err != nil && werr == nil && !tooDeep(in):
		t.Errorf("%q: rejected (%v), the reference accepts", in, err)
	case err == nil && !bytes.Equal(c.out, want):
		t.Errorf("%q:\n got %s\nwant %s", in, c.out, want)
	}
	if err != nil {
		return
	}
	out := bytes.Clone(c.out)
	if !json.Valid(out) {
		t.Errorf("%q: output %q is not JSON", in, out)
	}
	if err := c.transform(out); err != nil || !bytes.Equal(c.out, out) {
		t.Errorf("%q: not idempotent: %q gives %q (%v)", in, out, c.out, err)
	}
}

// tooDeep reports nesting beyond MaxDepth, which canon rejects on purpose.
func tooDeep(in []byte) bool {
	return strings.Count(string(in), "[")+strings.Count(string(in), "{") > MaxDepth
}

func TestCanonDepthLimit(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	c := asWritten()
	if err := c.transform([]byte(ok)); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	deep := "[" + ok + "]"
	if err := c.transform([]byte(deep)); err == nil {
		t.Fatalf("depth %d accepted", MaxDepth+1)
	}
}

func TestCanonTopLevelMembers(t *testing.T) {
	c := asWritten()
	if err := c.transform([]byte(`{"z":{"y":1,"x":2},"a":[{"q":1}],"m":"v"}`)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.mem {
		got = append(got, string(m.Name)+"="+string(c.out[m.Start+m.Value:m.End]))
	}
	want := []string{`a=[{"q":1}]`, `m="v"`, `z={"x":2,"y":1}`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("members %q, want %q", got, want)
	}
}

// FuzzCanon: canon never panics, accepts only what the reference accepts
// (below the depth limit, exactly that), produces the same bytes, and its
// output is JSON it leaves unchanged.
func FuzzCanon(f *testing.F) {
	for _, s := range canonCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkCanon(t, in)
	})
}

// BenchmarkCanonNumbers: canonicalizing argument objects by kind of number.
// Integers of at most 15 digits take the fast path.
func BenchmarkCanonNumbers(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"smallInt", `{"a":123,"b":-45,"c":100000000000000}`},
		{"decimal", `{"a":0.1,"b":-12.5,"c":3.14159}`},
		{"exponent", `{"a":1e21,"b":5e-324,"c":1E+2}`},
		{"bigInt", `{"a":12345678901234567891,"b":9007199254740993,"c":9007199254740992}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			cn := asWritten()
			in := []byte(c.in)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := cn.transform(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
