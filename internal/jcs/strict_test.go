package jcs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	gowebpki "github.com/gowebpki/jcs"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// foldPairs are member-name pairs; an object holding both is refused exactly
// when bytes.EqualFold (encoding/json's matching) says they are one name.
var foldPairs = [][2]string{
	{"path", "PATH"}, {"path", "Path"}, {"pAtH", "PaTh"}, {"k", "\u212a"}, {"K", "\u212a"},
	{"s", "\u017f"}, {"S", "\u017f"}, {"sk", "\u017f\u212a"}, {"\u00df", "\u1e9e"}, {"\u03c3", "\u03c2"},
	{"\u03a3", "\u03c2"}, {"\u00e9", "\u00c9"}, {"\u0391", "\u03b1"},
	// near misses: never one name
	{"path", "path2"}, {"path", "paths"}, {"a", "b"}, {"\u00e9", "e"}, {"\u0131", "i"}, {"\u0130", "i"},
	{"\u00df", "ss"}, {"\u00df", "SS"}, {"k", "\u212b"}, {"path", "p\u0430th"}, {"path", "path\u200b"},
	{"PATH", "PATH "}, {"", " "}, {"1", "01"},
}

func TestFoldedNamesRefusedAtAnyDepth(t *testing.T) {
	for _, p := range foldPairs {
		want := bytes.EqualFold([]byte(p[0]), []byte(p[1]))
		a, b := quote(p[0]), quote(p[1])
		filler := make([]string, 0, 12)
		for i := range 12 {
			filler = append(filler, fmt.Sprintf(`"f%d":%d`, i, i))
		}
		for _, in := range []string{
			`{` + a + `:1,` + b + `:2}`,
			`{` + b + `:1,` + a + `:2}`,
			`{"x":[{"y":{` + a + `:"/etc/passwd",` + b + `:"/tmp/junk"}}]}`,
			`[0,{` + a + `:1,` + strings.Join(filler, ",") + `,` + b + `:2}]`, // beyond the pairwise path
		} {
			_, err := jcs.Transform([]byte(in), jcs.Strict)
			if got := errors.Is(err, jcs.ErrFoldedNames); got != want {
				t.Errorf("%s: folded refusal %v, want %v (err %v)", in, got, want, err)
			}
			if !want && err != nil {
				t.Errorf("%s: refused: %v", in, err)
			}
			if _, err := jcs.Transform([]byte(in), jcs.Rule{AllowFoldedNames: true}); err != nil {
				t.Errorf("%s: refused with AllowFoldedNames: %v", in, err)
			}
			var v any
			d := json.NewDecoder(strings.NewReader(in))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			_, err = jcs.AppendValue(nil, v, jcs.Strict)
			if got := errors.Is(err, jcs.ErrFoldedNames); got != want {
				t.Errorf("%s: AppendValue folded refusal %v, want %v (err %v)", in, got, want, err)
			}
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestNumberRule(t *testing.T) {
	for _, c := range []struct {
		in, asWritten string
		exact         bool
	}{
		{`[12345678901234567891]`, `[12345678901234567891]`, false},
		{`[12345678901234567890]`, `[12345678901234567890]`, false},
		{`[9007199254740992,1e21]`, `[9007199254740992,1e+21]`, true},
		{`[1e400]`, `[1e400]`, false},
		{`[1.0,100e-2,-0]`, `[1,1,0]`, true},
		{`[9007199254740993]`, `[9007199254740993]`, false},
	} {
		got, err := jcs.Transform([]byte(c.in), jcs.Rule{Numbers: jcs.AsWritten})
		if err != nil || string(got) != c.asWritten {
			t.Errorf("%s AsWritten: %s, %v; want %s", c.in, got, err, c.asWritten)
		}
		got, err = jcs.Transform([]byte(c.in), jcs.Strict)
		if c.exact && (err != nil || string(got) != c.asWritten) {
			t.Errorf("%s Exact: %s, %v; want %s", c.in, got, err, c.asWritten)
		}
		if !c.exact && !errors.Is(err, jcs.ErrInexactNumber) {
			t.Errorf("%s Exact: %s, %v; want ErrInexactNumber", c.in, got, err)
		}
	}
}

// TestValueMatchesText: AppendValue of Go values gives the bytes Transform
// gives for their JSON text.
func TestValueMatchesText(t *testing.T) {
	for _, c := range []struct {
		v    any
		text string
	}{
		{map[string]any{"b": int64(1 << 60), "a": []string{"x"}, "c": float32(0.1)}, `{"a":["x"],"b":1152921504606846976,"c":0.1}`},
		{map[string]any{"n": json.Number("1.50"), "r": json.RawMessage(`{"z":1,"y":[true]}`)}, `{"n":1.5,"r":{"y":[true],"z":1}}`},
		{map[string]string{"\U0001F600": "a", "\uFB33": "b"}, "{\"\U0001F600\":\"a\",\"\uFB33\":\"b\"}"},
		{[]any{nil, false, -0.0, uint64(1<<64 - 1)}, `[null,false,0,18446744073709551615]`},
	} {
		got, err := jcs.AppendValue(nil, c.v, jcs.Rule{Numbers: jcs.AsWritten})
		want, werr := jcs.Transform([]byte(c.text), jcs.Rule{Numbers: jcs.AsWritten})
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Errorf("%v: %s (%v), text gives %s (%v)", c.v, got, err, want, werr)
		}
	}
	if _, err := jcs.AppendValue(nil, []any{uint64(1<<64 - 1)}, jcs.Strict); !errors.Is(err, jcs.ErrInexactNumber) {
		t.Errorf("2^64-1 under Exact: %v", err)
	}
	for _, bad := range []any{map[string]any{"a": struct{}{}}, []any{"\xff"}, map[string]any{"\xff": 1}, []any{json.Number("01")}} {
		if _, err := jcs.AppendValue(nil, bad, jcs.Strict); !errors.Is(err, jcs.ErrInvalid) {
			t.Errorf("%#v accepted", bad)
		}
	}
}

// FuzzStrictMatchesGowebpki: on inputs both accept, the strict rule and
// github.com/gowebpki/jcs give the same bytes; whatever the strict rule
// accepts, gowebpki/jcs accepts (up to MaxDepth); and AppendValue of the
// decoded value agrees.
func FuzzStrictMatchesGowebpki(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,"x\u0000"]}`, `{"path":1,"PATH":2}`, `[1e21,0.1,-0]`, `{"\u212a":1,"k":2}`, `"\ud83d\ude00"`, `{"a":{"b":{"B":1}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := jcs.Transform(in, jcs.Strict)
		want, werr := gowebpki.Transform(in)
		if err != nil {
			return
		}
		if werr != nil {
			t.Fatalf("%q: accepted, gowebpki/jcs refuses: %v", in, werr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", in, got, want)
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		if d.Decode(&v) != nil {
			t.Fatalf("%q: accepted, encoding/json refuses", in)
		}
		vb, err := jcs.AppendValue(nil, v, jcs.Strict)
		if err != nil || !bytes.Equal(vb, got) {
			t.Fatalf("%q: AppendValue %s (%v), Transform %s", in, vb, err, got)
		}
	})
}

// BenchmarkStrict: the strict rule on typical argument objects, reusing one
// Canonicalizer (0 allocations once its buffers have grown), and AppendValue.
func BenchmarkStrict(b *testing.B) {
	in := []byte(`{"path":"/srv/data/report.txt","mode":"overwrite","Recursive":true,"count":12,"tags":["a","b"],"opts":{"Depth":3,"follow":false}}`)
	b.Run("Transform", func(b *testing.B) {
		c := jcs.NewCanonicalizer(jcs.Strict)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Transform(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	var v any
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	d.Decode(&v)
	b.Run("AppendValue", func(b *testing.B) {
		buf := make([]byte, 0, 512)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jcs.AppendValue(buf[:0], v, jcs.Strict); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestFoldedNamesSpelledWithEscapes: names are compared after decoding, so
// escapes do not hide a folded duplicate.
func TestFoldedNamesSpelledWithEscapes(t *testing.T) {
	for _, in := range []string{
		`{"path":1,"\u0050ATH":2}`, `{"\u006b":1,"\u212a":2}`, `{"\u212A":1,"K":2}`, `{"s":1,"\u017F":2}`,
		`{"a":{"\ud801\udc00":1,"\ud801\udc28":2}}`, // DESERET capital and small long I
	} {
		if _, err := jcs.Transform([]byte(in), jcs.Strict); !errors.Is(err, jcs.ErrFoldedNames) {
			t.Errorf("%s: %v, want ErrFoldedNames", in, err)
		}
	}
}
